//! `rewind preview [SESSION] (--since MSG | --turn MSG | --checkpoint ID) [--path P]...`.

use super::{Access, CliError, Context, Report, SessionArg, parse_id};
use rewind_core::files::{Preview, TargetOptions};
use std::fmt::Write as _;

/// Exactly one target, plus an optional path filter (shared with `apply`).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["since", "turn", "checkpoint"])))]
pub(super) struct TargetArgs {
    #[command(flatten)]
    pub(super) session: SessionArg,
    /// Back to before this prompt: its turn and everything after.
    #[arg(long, value_name = "MSG")]
    since: Option<String>,
    /// Only the turn of this message (or this turn id).
    #[arg(long, value_name = "MSG")]
    turn: Option<String>,
    /// Only this checkpoint.
    #[arg(long, value_name = "ID")]
    checkpoint: Option<String>,
    /// Only these paths (repeatable; a directory covers what is below it).
    #[arg(long = "path", value_name = "P")]
    paths: Vec<String>,
    /// Also undo the changes you made between turns that snapshots recorded (`external`
    /// checkpoints); by default they are kept and shown as conflicts.
    #[arg(long)]
    include_external: bool,
}

impl TargetArgs {
    pub(super) fn options(&self) -> Result<TargetOptions, CliError> {
        Ok(TargetOptions {
            since: self.since.as_deref().map(parse_id).transpose()?,
            turn: self.turn.clone(),
            checkpoint: self.checkpoint.as_deref().map(parse_id).transpose()?,
            paths: self.paths.clone(),
            include_external: self.include_external,
        })
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    target: TargetArgs,
    /// Also show the unified diff of what the rewind would write (as `rewind diff`).
    #[arg(short = 'p', long)]
    patch: bool,
}

/// Said of a file too large for a patch, whose lines the totals do not count.
const LARGE: &str = "large file, no line counts";

/// The human form of a preview.
pub(super) fn describe(p: &Preview) -> String {
    let mut t = String::new();
    for f in &p.safe_files {
        let action = format!("{:?}", f.action).to_lowercase();
        let large = if f.large {
            format!("; {LARGE}")
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "  {action:<8} {}  ({} change(s) by {}{large})",
            f.path,
            f.operation_count,
            f.tool_names.join(", ")
        );
    }
    for f in &p.unsafe_files {
        let reason = serde_json::to_value(f.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let merge = if f.mergeable {
            " [merge would keep the later edits]"
        } else {
            ""
        };
        let large = if f.large {
            format!(" [{LARGE}]")
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "  UNSAFE   {}  {reason}: {}{merge}{large}",
            f.path, f.message
        );
    }
    for path in &p.reverted_paths {
        let _ = writeln!(
            t,
            "  undone   {path}  (already restored by an earlier rewind)"
        );
    }
    let verdict = if p.can_apply {
        "can apply"
    } else if p.safe_files.is_empty() && p.unsafe_files.is_empty() {
        "nothing to restore"
    } else {
        "blocked: resolve the unsafe files or choose --policy skip, merge or force"
    };
    let large = p.safe_files.iter().filter(|f| f.large).count()
        + p.unsafe_files.iter().filter(|f| f.large).count();
    let uncounted = match large {
        0 => String::new(),
        1 => " (not counting 1 large file)".to_owned(),
        n => format!(" (not counting {n} large files)"),
    };
    let _ = write!(
        t,
        "{} file(s), +{} -{} lines to undo{uncounted}; {verdict}",
        p.stats.files, p.stats.lines.additions, p.stats.lines.deletions
    );
    t
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let opts = a.target.options()?;
    let mut engine = ctx.engine(Access::Read)?;
    let session = ctx.session(&engine, &a.target.session)?;
    let diff = match a.patch {
        true => Some(engine.diff_file_rewind(&session, opts.clone())?),
        false => None,
    };
    let preview = engine.preview_file_rewind(&session, opts)?;
    let mut text = describe(&preview);
    let mut doc = serde_json::to_value(&preview).unwrap_or_default();
    if let Some(d) = diff {
        let _ = write!(text, "\n\n{}", super::diff::render(&ctx.style, &d));
        // The preview's fields stay as they are; the diff comes beside them.
        if let serde_json::Value::Object(fields) = &mut doc {
            fields.insert("diff".into(), serde_json::to_value(&d).unwrap_or_default());
        }
    }
    Ok(Report::new(&doc, text))
}
