//! `rewind prompt [SESSION] --text T`.

use super::{CliError, Context, Report, SessionArg, Verb};
use rewind_core::record::PromptOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// What the person asked.
    #[arg(long)]
    text: String,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Verb::RecordPrompt)?;
    let session = ctx.session(&engine, &a.session)?;
    let out = engine.record_prompt(
        &session,
        PromptOptions {
            text: a.text,
            payload: None,
        },
    )?;
    let text = format!("turn {}  prompt {}", out.turn_id, out.message_id);
    Ok(Report::new(&out, text))
}
