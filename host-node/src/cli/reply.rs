//! `rewind reply [SESSION] --turn T --text T [--error]`.

use super::{Access, CliError, Context, Report, SessionArg, parse_id};
use rewind_core::record::ReplyOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The turn the reply belongs to.
    #[arg(long)]
    turn: String,
    /// The reply.
    #[arg(long)]
    text: String,
    /// The reply ended in an error.
    #[arg(long)]
    error: bool,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let opts = ReplyOptions {
        turn_id: parse_id(&a.turn)?,
        text: a.text,
        error: a.error,
        payload: None,
    };
    let mut engine = ctx.engine(Access::Record)?;
    let session = ctx.session(&engine, &a.session)?;
    let out = engine.record_reply(&session, opts)?;
    let text = format!("reply {}", out.message_id);
    Ok(Report::new(&out, text))
}
