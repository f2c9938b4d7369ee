//! `rewind resume [SESSION]`: the derived state, with diagnostics for rows that do not decode.

use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{count, visible};
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Verb::Resume)?;
    let session = ctx.session(&engine, &a.session)?;
    let state = engine.resume(&session)?;
    let mut text = format!(
        "session {} ({}): {} on the active branch, {} sent to the model, turn {}, generation {}\n",
        state.session.id,
        visible(&state.session.title),
        count(state.messages.len(), "message"),
        state.model_history.len(),
        state.turn_number,
        state.session.generation
    );
    if let Some(t) = &state.running_turn {
        let _ = writeln!(text, "running turn: {t}");
    }
    let _ = writeln!(
        text,
        "{} on the branch; undoable operations: {}",
        count(state.active_checkpoints.len(), "checkpoint"),
        state.undoable_operations.len()
    );
    for d in &state.diagnostics {
        let _ = writeln!(
            text,
            "diagnostic: {} {} (seq {}) could not be read: {}",
            d.kind,
            visible(&d.id),
            d.seq,
            visible(&d.reason)
        );
    }
    Ok(Report::new(&state, text))
}
