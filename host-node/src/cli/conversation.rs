//! `rewind conversation SESSION --to MSG`.

use super::{Access, CliError, Context, Report, parse_id};
use rewind_core::conversation::Options;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The session.
    session: String,
    /// The prompt to go back to (an assistant message maps to its prompt).
    #[arg(long, value_name = "MSG")]
    to: String,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let session = parse_id(&a.session)?;
    let out = ctx.engine(Access::Record)?.rewind_conversation(
        &session,
        Options {
            to: parse_id(&a.to)?,
        },
    )?;
    let text = format!(
        "conversation rewound to before {} (generation {}); {} message(s) kept, {} turn(s) removed; files untouched",
        out.target_message_id,
        out.generation,
        out.kept_message_count,
        out.removed_turn_ids.len()
    );
    Ok(Report::new(&out, text))
}
