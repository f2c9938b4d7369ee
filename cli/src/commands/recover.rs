//! `rewind recover [--abandon JOURNAL]`: settle applies a crash interrupted (writing commands
//! already do this on open; this one waits for a running apply and reports every journal), or
//! give up on one that cannot be settled, leaving its files as they are.

use super::{CliError, Context, Report, Verb};
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Stop treating this stuck journal as pending: its paths are left exactly as they are and
    /// its record is kept in the operation log.
    #[arg(long, value_name = "JOURNAL")]
    abandon: Option<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    // Opening for rewriting waits for the apply lock and settles every journal it can: that
    // outcome is what this command reports.
    let opened = ctx.open(Verb::Recover)?;
    let (mut engine, outcome) = (opened.engine, opened.recovered);
    if let Some(journal) = a.abandon {
        let journal = super::refs::journal(ctx.lookup(&engine), &journal)?;
        let done = engine.abandon_journal(&journal)?;
        let text = format!(
            "abandoned {} ({}): {} left as they are; its record is in operation {}",
            done.journal_id,
            done.session_id,
            crate::style::count(done.paths.len(), "path"),
            done.operation_id
        );
        return Ok(Report::new(&done, text));
    }
    let mut text = String::new();
    for r in &outcome.recovered {
        let action = serde_json::to_value(r.action)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{} ({}): {action}; {} restored, {} left as found",
            r.journal_id,
            r.session_id,
            crate::style::count(r.restored_paths.len(), "path"),
            crate::style::count(r.left_paths.len(), "path")
        );
    }
    for s in &outcome.stuck {
        let _ = writeln!(text, "{}", rewind_host::native::describe_stuck(s));
    }
    if outcome.recovered.is_empty() && outcome.stuck.is_empty() {
        text.push_str("nothing to recover");
    }
    let refused = !outcome.stuck.is_empty();
    Ok(Report::new(&outcome, text).refused(refused))
}
