//! `rewind reply SESSION --turn T --text T [--error]`.

use super::{Access, CliError, Context, Report, parse_id};
use rewind_core::record::ReplyOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The session.
    session: String,
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
    let session = parse_id(&a.session)?;
    let opts = ReplyOptions {
        turn_id: parse_id(&a.turn)?,
        text: a.text,
        error: a.error,
        payload: None,
    };
    let out = ctx.engine(Access::Record)?.record_reply(&session, opts)?;
    let text = format!("reply {}", out.message_id);
    Ok(Report::new(&out, text))
}
