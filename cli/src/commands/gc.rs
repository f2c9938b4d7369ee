//! `rewind gc [--keep N] [--older-than AGE] [--dry-run]`: retention, then unreferenced blobs.
//! AGE is days (`30`) or a number with a unit (`90m`, `12h`, `7d`); 0 is refused and anything
//! under one hour counts as one hour, so the session in use is never dropped.

use super::{CliError, Context, Report, Verb};
use crate::style::count;
use rewind_core::ErrorKind;
use rewind_host::config::Config;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Keep the newest N checkpoints of each session (default: the config's, 100).
    #[arg(long)]
    keep: Option<usize>,
    /// Drop sessions idle for longer than AGE: days, or `90m` / `12h` / `7d` (default: the
    /// config's, never). At least one hour; a running turn keeps its session.
    #[arg(long, value_name = "AGE")]
    older_than: Option<String>,
    /// Show what would be deleted; delete nothing.
    #[arg(long)]
    dry_run: bool,
}

/// `keep` (from `source`) must leave something: `--keep 0` would make every plain `rewind gc`
/// delete every checkpoint, so it is refused like `--older-than 0`.
pub(super) fn check_keep(keep: usize, source: &str) -> Result<(), CliError> {
    if keep > 0 {
        return Ok(());
    }
    Err(CliError::new(
        ErrorKind::InvalidInput,
        format!(
            "{source} 0 would make gc delete every checkpoint of every session, so nothing \
             could be rewound; nothing was changed. Keep at least 1 (the default is 100)"
        ),
    ))
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    if let Some(missing) = &ctx.no_store {
        // Nothing recorded, nothing to collect: a success that opens (and creates) nothing.
        let out = rewind_core::gc::Outcome {
            plan: rewind_core::gc::Plan::default(),
            applied: false,
            batches: 0,
        };
        let text = format!("nothing to collect: {}", missing.message());
        return Ok(Report::new(&out, text));
    }
    let config = Config::load(&ctx.db).map_err(|e| CliError::host(e.to_string()))?;
    let mut opts = config.retention();
    match a.keep {
        Some(k) => check_keep(k, "--keep")?,
        None => check_keep(
            opts.keep,
            &format!("{} says keep", Config::path_for(&ctx.db).display()),
        )?,
    }
    opts.keep = a.keep.unwrap_or(opts.keep);
    match a.older_than.as_deref().map(age_ms).transpose()? {
        Some(ms) => {
            opts.older_than_days = None;
            opts.older_than_ms = Some(ms);
        }
        None if opts.older_than_days == Some(0) => {
            return Err(CliError::new(
                ErrorKind::InvalidInput,
                format!(
                    "{} says older-than 0, which would drop every session including the one in \
                     use; nothing was deleted. Change it with `rewind config --older-than never` \
                     (or a number of days)",
                    Config::path_for(&ctx.db).display()
                ),
            ));
        }
        None => {}
    }
    let out = ctx.engine(Verb::Gc)?.gc(opts, a.dry_run)?;
    let t = &out.plan.totals;
    let mut text = format!(
        "{}{}, {}, {} ({})",
        if a.dry_run {
            "would delete "
        } else if out.applied {
            "deleted "
        } else {
            "nothing to delete: "
        },
        count(t.sessions.count, "session"),
        count(t.checkpoints.count, "checkpoint"),
        count(t.blobs.count, "stored content"),
        super::stats::bytes(t.blobs.bytes)
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
            "\n{} found: no content was deleted",
            count(out.plan.undecodable_rows, "undecodable row")
        );
    }
    Ok(Report::new(&out, text))
}

/// `30` (days), `90m`, `12h`, `7d`, `45s` → milliseconds.
fn age_ms(text: &str) -> Result<u64, CliError> {
    let bad = || {
        CliError::new(
            ErrorKind::InvalidInput,
            format!("--older-than takes days or a number with s/m/h/d (e.g. 12h), not {text:?}"),
        )
    };
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "d"),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let scale: u64 = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(bad()),
    };
    Ok(n.saturating_mul(scale))
}
