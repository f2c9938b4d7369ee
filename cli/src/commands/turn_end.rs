//! `rewind turn-end [SESSION] [--turn T] [--failed]`.

use super::{CliError, Context, Report, SessionArg, Verb};
use rewind_core::record::CompleteTurnOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The running turn (#N, @, an id or prefix; default: the session's one running turn).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// The turn failed.
    #[arg(long)]
    failed: bool,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let turn = super::open_turn::check(a.turn.as_deref())?;
    let mut engine = ctx.engine(Verb::CompleteTurn)?;
    let session = ctx.session(&engine, &a.session)?;
    let turn_id = super::open_turn::resolve(ctx, &engine, &session, turn.as_ref())?;
    let opts = CompleteTurnOptions {
        turn_id,
        failed: a.failed,
        round_count: None,
    };
    let out = engine.complete_turn(&session, opts)?;
    let text = match &out.boundary {
        Some(b) => format!(
            "turn {} {:?}; boundary {}",
            out.turn_id, out.status, b.boundary_message_id
        ),
        None => format!(
            "turn {} {:?}; no completed reply, so no fork boundary",
            out.turn_id, out.status
        ),
    }
    .replace("Completed", "completed")
    .replace("Failed", "failed");
    Ok(Report::new(&out, text))
}
