//! The turn a recording command (`exec`, `snapshot`, `edit`, `reply`, `turn-end`) belongs to
//! when `--turn` is not given: the one turn still running in the session. None running, or
//! several, is an error that names what is open and how to name one.

use super::refs::{Ref, branch_turns};
use super::{CliError, Context};
use rewind_core::ErrorKind;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::TurnStatus;
use rewind_host::native::NativeEngine;

/// `--turn` as given (checked for form before anything is opened), or `None`.
pub(super) fn check(turn: Option<&str>) -> Result<Option<Ref<TurnId>>, CliError> {
    Ref::opt(turn)
}

/// The turn `given` names, or else the session's one running turn.
pub(super) fn resolve(
    ctx: &Context,
    engine: &NativeEngine,
    session: &SessionId,
    given: Option<&Ref<TurnId>>,
) -> Result<TurnId, CliError> {
    if let Some(r) = given {
        return r.resolve(ctx.lookup(engine), session);
    }
    let mut running: Vec<(usize, TurnId)> = branch_turns(engine, session)?
        .into_iter()
        .enumerate()
        .filter(|(_, t)| t.status == TurnStatus::Running)
        .map(|(i, t)| (i + 1, t.id))
        .collect();
    if running.len() == 1 {
        return Ok(running.remove(0).1);
    }
    let running: Vec<String> = running
        .iter()
        .map(|(n, id)| format!("{id} (#{n})"))
        .collect();
    let message = match running.len() {
        0 => format!(
            "no turn is running in session {session}: start one with `rewind prompt --text …`, \
             or name a turn with --turn (#N, @ or an id; `rewind log` lists them)"
        ),
        n => format!(
            "{n} turns are running in session {session}: {}; name one with --turn (#N or its id)",
            running.join(", ")
        ),
    };
    Err(CliError::new(ErrorKind::InvalidInput, message))
}
