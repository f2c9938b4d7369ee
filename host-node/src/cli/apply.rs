//! `rewind apply [SESSION] (--since | --turn | --checkpoint) [--policy block|skip|merge|force]`.

use super::preview::{TargetArgs, describe};
use super::{Access, CliError, Context, Report};
use rewind_core::files::{ApplyOptions, ApplyOutcome, RestoredFile};
use rewind_core::model::Policy;
use std::fmt::Write as _;

/// The policies, as CLI words.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub(super) enum PolicyArg {
    /// Any unsafe file: nothing is written.
    #[default]
    Block,
    /// Restore the safe files, leave the rest.
    Skip,
    /// Keep later edits, reverse-apply the agent's change (text files).
    Merge,
    /// Overwrite unsafe files too (journaled, so undoable).
    Force,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Self {
        match p {
            PolicyArg::Block => Self::Block,
            PolicyArg::Skip => Self::Skip,
            PolicyArg::Merge => Self::Merge,
            PolicyArg::Force => Self::Force,
        }
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    target: TargetArgs,
    /// How to treat unsafe files.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

pub(super) fn restored_lines(files: &[RestoredFile]) -> String {
    let mut t = String::new();
    for f in files {
        let how = if f.merged {
            " (merged: later edits kept)"
        } else if f.forced {
            " (forced over later edits)"
        } else {
            ""
        };
        let _ = writeln!(
            t,
            "  {:<8} {}{how}",
            format!("{:?}", f.action).to_lowercase(),
            f.path
        );
    }
    t
}

/// The human form of an apply, shared with `both` and `undo`.
pub(super) fn describe_outcome(out: &ApplyOutcome) -> String {
    if out.applied {
        let mut t = restored_lines(&out.restored_files);
        for s in &out.skipped_files {
            let _ = writeln!(t, "  skipped  {s}");
        }
        let op = out
            .operation_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let _ = write!(
            t,
            "applied: {} file(s) written; undo with `rewind undo <session> {op}`",
            out.restored_files.len()
        );
        t
    } else {
        format!(
            "{}\nnot applied: {}",
            describe(&out.preview),
            out.cause.as_deref().unwrap_or("nothing to do")
        )
    }
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let opts = ApplyOptions {
        target: a.target.options()?,
        policy: a.policy.into(),
    };
    let mut engine = ctx.engine(Access::Rewrite)?;
    let session = ctx.session(&engine, &a.target.session)?;
    let out = engine.apply_file_rewind(&session, opts)?;
    let text = describe_outcome(&out);
    Ok(Report::new(&out, text).refused(!out.applied))
}
