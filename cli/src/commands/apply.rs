//! `rewind apply [SESSION] (--since | --turn | --checkpoint) [--policy block|skip|merge|force]`.

use super::target::TargetArgs;
use super::{CliError, Context, Report, Verb};
use rewind_core::files::ApplyOptions;
use rewind_core::model::Policy;

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

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let target = a.target.target()?;
    let mut engine = ctx.engine(Verb::ApplyFileRewind)?;
    let session = ctx.session(&engine, &a.target.session)?;
    let opts = ApplyOptions {
        target: target.options(ctx.lookup(&engine), &session)?,
        policy: a.policy.into(),
    };
    let retry = super::verdict::retry_command("apply", &session, &opts.target);
    let out = engine.apply_file_rewind(&session, opts)?;
    let text = super::verdict::outcome(&ctx.style, &session, &out, Some(&retry));
    Ok(Report::new(&out, text).refused(super::verdict::refused(&out)))
}
