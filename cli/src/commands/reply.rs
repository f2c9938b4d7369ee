//! `rewind reply [SESSION] [--turn T] --text T [--error]`.

use super::{CliError, Context, Report, SessionArg, Verb};
use rewind_core::record::ReplyOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The turn the reply belongs to (#N, @, an id or prefix; default: the session's one running
    /// turn).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// The reply.
    #[arg(long)]
    text: String,
    /// The reply ended in an error.
    #[arg(long)]
    error: bool,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let turn = super::open_turn::check(a.turn.as_deref())?;
    let mut engine = ctx.engine(Verb::RecordReply)?;
    let session = ctx.session(&engine, &a.session)?;
    let turn_id = super::open_turn::resolve(ctx, &engine, &session, turn.as_ref())?;
    let opts = ReplyOptions {
        turn_id,
        text: a.text,
        error: a.error,
        payload: None,
    };
    let out = engine.record_reply(&session, opts)?;
    let text = format!("reply {}", out.message_id);
    Ok(Report::new(&out, text))
}
