//! `rewind resume [SESSION]`: the derived state, with diagnostics for rows that do not decode:
//! counted for people (`rewind_core::resume::summary`), whole with `--json`.

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
    if ctx.json {
        // The whole state: every message of the branch, by id.
        let state = engine.resume(&session)?;
        return Ok(Report::new(&state, String::new()));
    }
    // The text says how many: the same rows read and decoded, kept only as counts.
    let state = rewind_core::resume::summary(engine.store(), &session)?;
    let mut text = format!(
        "session {} ({}): {} on the active branch, {} sent to the model, turn {}, generation {}\n",
        state.session.id,
        visible(&state.session.title),
        count(state.messages, "message"),
        state.model_history,
        state.turn_number,
        state.session.generation
    );
    if let Some(t) = &state.running_turn {
        let _ = writeln!(text, "running turn: {t}");
    }
    let _ = writeln!(
        text,
        "{} on the branch; undoable operations: {}",
        count(state.active_checkpoints, "checkpoint"),
        state.undoable_operations
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
    Ok(Report::new(&serde_json::Value::Null, text))
}
