//! `rewind conversation [SESSION] --to MSG`.

use super::{Access, CliError, Context, Report, SessionArg, parse_id};
use rewind_core::conversation::{Options, Outcome};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The prompt to go back to (an assistant message maps to its prompt).
    #[arg(long, value_name = "MSG")]
    to: String,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let to = parse_id(&a.to)?;
    let mut engine = ctx.engine(Access::Record)?;
    let session = ctx.session(&engine, &a.session)?;
    let out = engine.rewind_conversation(&session, Options { to })?;
    let text = describe(&out);
    Ok(Report::new(&out, text))
}

/// The human form of a conversation rewind, shared with the picker.
pub(super) fn describe(out: &Outcome) -> String {
    format!(
        "conversation rewound to before {} (generation {}); {} message(s) kept, {} turn(s) removed; files untouched",
        out.target_message_id,
        out.generation,
        out.kept_message_count,
        out.removed_turn_ids.len()
    )
}
