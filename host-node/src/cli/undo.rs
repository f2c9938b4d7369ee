//! `rewind undo SESSION OPERATION_ID [--policy …]`.

use super::apply::{PolicyArg, describe_outcome};
use super::{Access, CliError, Context, Report, parse_id};
use rewind_core::undo::Options;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The session.
    session: String,
    /// The operation to take back (see `rewind ops`).
    operation: String,
    /// How to treat files edited since.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let session = parse_id(&a.session)?;
    let opts = Options {
        operation_id: parse_id(&a.operation)?,
        policy: a.policy.into(),
    };
    let out = ctx.engine(Access::Rewrite)?.undo(&session, opts)?;
    let text = describe_outcome(&out);
    Ok(Report::new(&out, text).refused(!out.applied))
}
