//! `rewind ops [SESSION]`: the operation log.

use super::{Access, CliError, Context, Report, SessionArg};
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let engine = ctx.engine(Access::Read)?;
    let session = ctx.session(&engine, &a.session)?;
    let ops = engine.operations(&session)?;
    let mut text = String::new();
    for o in &ops.items {
        let _ = write!(text, "{}  {:<20}", o.id, o.kind.as_str());
        if let Some(u) = &o.undoes {
            let _ = write!(text, " undoes {u}");
        }
        if let Some(t) = &o.branch_target {
            let _ = write!(text, " conversation -> before {t}");
        }
        if !o.files.is_empty() {
            let _ = write!(text, " {} file(s)", o.files.len());
        }
        if let Some(n) = &o.note {
            let _ = write!(text, "  {n}");
        }
        text.push('\n');
    }
    if ops.items.is_empty() {
        text.push_str("no operations");
    }
    Ok(Report::new(&ops.items, text))
}
