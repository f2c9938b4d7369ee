//! `rewind gc [--keep N] [--older-than DAYS] [--dry-run]`: retention, then unreferenced blobs.

use super::{Access, CliError, Context, Report};
use crate::config::Config;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Keep the newest N checkpoints of each session (default: the config's, 100).
    #[arg(long)]
    keep: Option<usize>,
    /// Drop sessions idle for more than DAYS days (default: the config's, never).
    #[arg(long, value_name = "DAYS")]
    older_than: Option<u64>,
    /// Show what would be deleted; delete nothing.
    #[arg(long)]
    dry_run: bool,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let config = Config::load(&ctx.db).map_err(|e| CliError::host(e.to_string()))?;
    let mut opts = config.retention();
    opts.keep = a.keep.unwrap_or(opts.keep);
    opts.older_than_days = a.older_than.or(opts.older_than_days);
    let out = ctx.engine(Access::Maintain)?.gc(opts, a.dry_run)?;
    let t = &out.plan.totals;
    let mut text = format!(
        "{}{} session(s), {} checkpoint(s), {} blob(s) ({} bytes)",
        if a.dry_run {
            "would delete "
        } else if out.applied {
            "deleted "
        } else {
            "nothing to delete: "
        },
        t.sessions.count,
        t.checkpoints.count,
        t.blobs.count,
        t.blobs.bytes
    );
    for p in &out.plan.protected {
        let _ = write!(
            text,
            "\nkept {} ({})",
            p.session_id,
            p.reason.replace('_', " ")
        );
    }
    if out.plan.undecodable_rows > 0 {
        let _ = write!(
            text,
            "\n{} undecodable row(s) found: no blob was deleted",
            out.plan.undecodable_rows
        );
    }
    Ok(Report::new(&out, text))
}
