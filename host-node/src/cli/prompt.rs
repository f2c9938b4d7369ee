//! `rewind prompt SESSION --text T`.

use super::{Access, CliError, Context, Report, parse_id};
use rewind_core::record::PromptOptions;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The session.
    session: String,
    /// What the person asked.
    #[arg(long)]
    text: String,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let session = parse_id(&a.session)?;
    let out = ctx.engine(Access::Record)?.record_prompt(
        &session,
        PromptOptions {
            text: a.text,
            payload: None,
        },
    )?;
    let text = format!("turn {}  prompt {}", out.turn_id, out.message_id);
    Ok(Report::new(&out, text))
}
