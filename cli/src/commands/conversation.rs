//! `rewind conversation [SESSION] --to MSG`.

use super::refs::Ref;
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Style, count, short_id};
use rewind_core::conversation::{Options, Outcome};
use rewind_core::id::SessionId;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    // `--since`: the file rewinds' old spelling of `--to`, taken by every rewind alike.
    #[arg(alias = "since")]
    /// The prompt to go back to: an id or prefix, or #N, @, @-1 (an assistant message maps to its
    /// prompt).
    #[arg(long, value_name = "TARGET", add = super::candidates::turns())]
    to: String,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let to = Ref::new(&a.to)?;
    let mut engine = ctx.engine(Verb::RewindConversation)?;
    let session = ctx.session(&engine, &a.session)?;
    let to = to.resolve(ctx.lookup(&engine), &session)?;
    let mut out = engine.rewind_conversation(&session, Options { to })?;
    rewind_host::agent_copy::settle(&mut out.agent_resume);
    rewind_host::agent_copy::bind::expect(&ctx.db, out.agent_resume.as_deref(), &session);
    let text = describe(&ctx.style, &session, &out);
    Ok(Report::new(&out, text))
}

/// The human form of a conversation rewind, shared with the picker.
pub(super) fn describe(style: &Style, session: &SessionId, out: &Outcome) -> String {
    let resume = super::agent_resume::describe(style, out.agent_resume.as_deref());
    format!(
        "conversation rewound to before {} (generation {}); {} kept, {} off the branch; files \
         untouched (rewind them with {}){resume}",
        style.id(out.target_message_id.as_str()),
        out.generation,
        count(out.kept_message_count, "message"),
        count(out.removed_turn_ids.len(), "turn"),
        style.hint(format!(
            "rewind apply {} --to {}",
            short_id(session.as_str()),
            short_id(out.target_message_id.as_str())
        )),
    )
}
