//! `rewind recover`: settle applies a crash interrupted (opening already does this; the command
//! reports what was settled).

use super::{CliError, Context, Report};
use crate::native::open;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {}

pub(super) fn run(ctx: &Context, _: Args) -> Result<Report, CliError> {
    let (mut engine, mut outcome) = open(&ctx.workspace, &ctx.db).map_err(CliError::open)?;
    let again = engine.recover(None)?;
    outcome.recovered.extend(again.recovered);
    outcome.diagnostics.extend(again.diagnostics);
    let mut text = String::new();
    for r in &outcome.recovered {
        let action = serde_json::to_value(r.action)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{} ({}): {action}; {} path(s) restored, {} left as found",
            r.journal_id,
            r.session_id,
            r.restored_paths.len(),
            r.left_paths.len()
        );
    }
    if outcome.recovered.is_empty() {
        text.push_str("nothing to recover");
    }
    Ok(Report::new(&outcome, text))
}
