//! Turns opened by a tool event. Cline runs its lifecycle hooks (`UserPromptSubmit`,
//! `TaskComplete`) detached, so a turn's first tool event can come before its prompt, or with
//! no prompt at all; Windsurf's and Kiro's hosts may not send one either. Such a tool opens the
//! turn itself; the prompt that comes later, while that turn runs, is kept in it as a notice
//! (the turn's first message is already there) instead of starting a turn of its own. Which
//! turn was opened so is kept in `hook-lazy/` beside the database until its prompt comes.

use super::background::Held;
use super::between;
use super::root::Place;
use rewind_core::hash::ContentHash;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::record::{NoticeOptions, PromptOptions};
use rewind_host::native::NativeEngine;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, String>;

/// The text of a turn opened before (or without) its prompt.
pub(super) const OPENED: &str = "(the agent began this turn before its prompt event came)";

fn marker(db: &Path, agent: &str, session: &str) -> PathBuf {
    let key = ContentHash::of(format!("{agent}\n{session}").as_bytes());
    let dir = db.parent().unwrap_or(Path::new(".")).join("hook-lazy");
    dir.join(&key.as_str()[..32])
}

/// Whether `agent`'s tool events may open a turn.
pub(super) fn opens_turns(place: &Place, host: Option<super::payload::Host>) -> bool {
    use super::payload::Host;
    use crate::agents::Agent;
    matches!(place.agent, Agent::Cline | Agent::Windsurf)
        || matches!(host, Some(Host::Cline | Host::Windsurf | Host::Kiro))
}

/// Open a turn for a tool event that found none running.
pub(super) fn open(
    e: &mut NativeEngine,
    place: &Place,
    (agent_session, s): (&str, &SessionId),
    bg: &mut Held,
) -> Result<TurnId> {
    let opts = PromptOptions {
        text: OPENED.to_owned(),
        payload: None,
    };
    let turn = e.record_prompt(s, opts).map_err(|e| e.to_string())?.turn_id;
    between::snapshot(e, s, &turn, bg)?;
    let path = marker(&place.db, place.agent.as_str(), agent_session);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    rewind_host::disk::write_own_file(&path, turn.as_str().as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(turn)
}

/// A prompt for the turn a tool opened (`running`: the session's running turn): kept in it as
/// a notice, and `true`; `false` when it is a new turn's prompt.
pub(super) fn late_prompt(
    e: &mut NativeEngine,
    place: &Place,
    (agent_session, s): (&str, &SessionId),
    running: Option<&TurnId>,
    text: &str,
) -> Result<bool> {
    let path = marker(&place.db, place.agent.as_str(), agent_session);
    let Ok(opened) = std::fs::read_to_string(&path) else {
        return Ok(false);
    };
    let _ = std::fs::remove_file(&path);
    let Some(turn) = running.filter(|t| t.as_str() == opened) else {
        return Ok(false);
    };
    let opts = NoticeOptions {
        turn_id: Some(turn.clone()),
        text: format!("prompt: {text}"),
        visible_to_ui: true,
        visible_to_model: true,
    };
    e.record_notice(s, opts).map_err(|e| e.to_string())?;
    Ok(true)
}
