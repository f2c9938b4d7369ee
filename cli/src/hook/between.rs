//! Snapshots taken between the agent's actions — at a turn's start, just before a shell command,
//! at a turn's end — and whose their changes are. No agent tool was running since the previous
//! snapshot, so what changed is the person's (`external`), unless background work is known to
//! be running: then it is that work's, in the turn that started it (see `background`).
//!
//! And which turn an event belongs to: the running one, or, for the work of a turn the agent
//! starts by itself (Claude Code's `<task-notification>` turns, which come without a prompt
//! event, after background work ended), the session's latest turn: such a turn is the agent's.

use super::background::Held;
use rewind_core::ErrorKind;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::{Message, TurnStatus};
use rewind_core::ports::{SeqRange, Store};
use rewind_core::shell;
use rewind_host::native::NativeEngine;

type Result<T> = std::result::Result<T, String>;

/// The turn of the session's newest message, and whether it is still running.
pub(super) fn latest_turn(e: &NativeEngine, s: &SessionId) -> Result<Option<(TurnId, bool)>> {
    let rows = e
        .store()
        .last_messages_in(s, SeqRange::ALL, 1)
        .map_err(|e| e.to_string())?;
    let Some(row) = rows.into_iter().next() else {
        return Ok(None);
    };
    let message: Message = serde_json::from_str(&row.body).map_err(|e| e.to_string())?;
    let Some(turn) = message.turn_id else {
        return Ok(None);
    };
    let t = rewind_core::load::turn(e.store(), s, &turn).map_err(|e| e.to_string())?;
    Ok(Some((turn, t.status == TurnStatus::Running)))
}

/// The options of a snapshot in `turn` between the agent's actions.
fn options(turn: &TurnId, bg: &Held) -> shell::Options {
    match bg.newest() {
        Some(run) => shell::Options {
            turn_id: run.turn.clone(),
            command: run.command.clone().filter(|c| !c.trim().is_empty()),
            tool_name: Some(run.tool_name.clone()),
            tool_call_id: run.call_id.clone(),
            tool_message_id: None,
            attribution: shell::Attribution::Command,
        },
        None => shell::Options {
            turn_id: turn.clone(),
            command: None,
            tool_name: None,
            tool_call_id: None,
            tool_message_id: None,
            attribution: shell::Attribution::External,
        },
    }
}

/// Whether `err` says the turn to record into is not there (rewound away, or unknown).
fn gone(err: &shell::Error) -> bool {
    matches!(
        err,
        shell::Error::Record(rewind_core::record::Error::TurnRemoved { .. })
    ) || err.kind() == ErrorKind::NotFound
}

/// Take a snapshot in `turn` between the agent's actions (see the module).
pub(super) fn snapshot(
    e: &mut NativeEngine,
    s: &SessionId,
    turn: &TurnId,
    bg: &mut Held,
) -> Result<shell::Outcome> {
    loop {
        let opts = options(turn, bg);
        let attributed = opts.turn_id.clone();
        match e.snapshot_workspace(s, opts) {
            // The background work's turn was rewound away (or is gone): nothing can be recorded
            // into it any more, so its work is no longer followed.
            Err(err) if &attributed != turn && gone(&err) => {
                bg.forget(&attributed);
            }
            done => return done.map_err(|e| e.to_string()),
        }
    }
}

/// At a turn's end: a snapshot between the agent's actions (what changed since its last tool is
/// the person's, or running background work's), then what the agent says is still in flight.
pub(super) fn turn_end(
    e: &mut NativeEngine,
    p: &super::event::Payload,
    s: &SessionId,
    turn: &TurnId,
    bg: &mut Held,
) -> Result<()> {
    snapshot(e, s, turn, bg)?;
    bg.listed(p.background_tasks.as_ref(), turn);
    Ok(())
}
