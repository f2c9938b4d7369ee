//! A turn whose end never came. Gemini CLI 0.61 sends no `AfterAgent` when the model fails
//! (the error ends the turn before its after-agent hook), and Claude Code sends no `Stop` when
//! the person interrupts; the agent's next prompt is then the first sign. So a prompt that finds
//! the session's turn still running ends that turn as failed before its own begins: the failed
//! turn keeps what it recorded (it rewinds like any other), and no turn stays `running`
//! forever.

use super::act::running_turn;
use rewind_core::id::SessionId;
use rewind_core::record::CompleteTurnOptions;
use rewind_host::native::NativeEngine;

/// End the session's running turn, if any, as failed.
pub(super) fn end(e: &mut NativeEngine, s: &SessionId) -> Result<(), String> {
    let Some(turn) = running_turn(e, s)? else {
        return Ok(());
    };
    let opts = CompleteTurnOptions {
        turn_id: turn,
        failed: true,
        round_count: None,
    };
    e.complete_turn(s, opts).map_err(|e| e.to_string())?;
    Ok(())
}
