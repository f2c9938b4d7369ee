//! `rewind undo [SESSION] OPERATION_ID [--policy …]`.

use super::apply::{PolicyArg, describe_outcome};
use super::{Access, CliError, Context, Report, SessionArg, parse_id};
use rewind_core::undo::Options;

/// `undo OP` or `undo SESSION OP`: with one positional it is the operation.
#[derive(Debug, clap::Args)]
#[command(allow_missing_positional = true)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The operation to take back (see `rewind ops`).
    operation: String,
    /// How to treat files edited since.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let opts = Options {
        operation_id: parse_id(&a.operation)?,
        policy: a.policy.into(),
    };
    let mut engine = ctx.engine(Access::Rewrite)?;
    let session = ctx.session(&engine, &a.session)?;
    let out = engine.undo(&session, opts)?;
    let text = describe_outcome(&out);
    Ok(Report::new(&out, text).refused(!out.applied))
}
