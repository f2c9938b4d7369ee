//! The active branch's turns, numbered the way `rewind log` numbers them (`#N` is the Nth): for
//! the commands that list turns. Naming one turn (`#N`, `@`, `@-N`) does not load them all: that
//! is the core's `refs::turn_at`.

use super::super::{CliError, NativeEngine};
use rewind_core::id::SessionId;
use rewind_core::model::Turn;

/// The active branch's turns, oldest first: turn `#N` is `[N - 1]`.
pub(crate) fn branch_turns(
    engine: &NativeEngine,
    session: &SessionId,
) -> Result<Vec<Turn>, CliError> {
    let s = rewind_core::load::session(engine.store(), session)?;
    let mut turns: Vec<Turn> = rewind_core::load::turns(engine.store(), session)?
        .items
        .into_iter()
        .filter(|t| s.branch.contains(t.prompt_seq))
        .collect();
    turns.sort_by_key(|t| t.prompt_seq);
    Ok(turns)
}
