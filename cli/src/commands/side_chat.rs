//! `rewind side-chat [SESSION] [--command-id ID]`.

use super::{CliError, Context, Report, SessionArg, Verb};
use rewind_core::fork::SideChatOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// Idempotency key (any key of yours: a UUID, `cmd_…`): the same key returns the same side
    /// chat and writes nothing.
    #[arg(long, value_name = "ID")]
    command_id: Option<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let opts = SideChatOptions {
        command_id: a
            .command_id
            .as_deref()
            .map(super::refs::command_id)
            .transpose()?,
    };
    let mut engine = ctx.engine(Verb::SideChat)?;
    let session = ctx.session(&engine, &a.session)?;
    let mut out = engine.side_chat(&session, opts)?;
    rewind_host::agent_copy::settle(&mut out.agent_resume);
    rewind_host::agent_copy::bind::expect(&ctx.db, out.agent_resume.as_deref(), &out.child_id);
    let text = super::fork::describe(&ctx.style, &out, "side chat");
    Ok(Report::new(&out, text))
}
