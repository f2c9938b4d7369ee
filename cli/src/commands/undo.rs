//! `rewind undo [SESSION] [OPERATION] [--policy …]` and `rewind redo [SESSION]`. Like jj's
//! `undo`: with no operation, `undo` takes back the session's latest rewind still in effect
//! (again and again, walking back), and `redo` takes back the latest undo. A rewind is undone
//! whole: the files it wrote and, for a conversation rewind or `both`, the conversation cursor.

use super::apply::PolicyArg;
use super::refs::Ref;
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, Style, short_id};
use rewind_core::id::{OperationId, SessionId};
use rewind_core::undo::{Options, Outcome, RedoOptions};
use std::fmt::Write as _;

/// `undo`, `undo OP` or `undo SESSION OP`: a lone argument that is not a session id (`ses_…`) is
/// the operation.
#[derive(Debug, clap::Args)]
#[command(allow_missing_positional = true)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The operation to take back (an id or unique prefix, see `rewind ops`; default: the
    /// latest rewind still in effect).
    #[arg(add = super::candidates::operations())]
    operation: Option<String>,
    /// How to treat files edited since.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

/// `redo [SESSION]`.
#[derive(Debug, clap::Args)]
pub(super) struct RedoArgs {
    #[command(flatten)]
    session: SessionArg,
    /// How to treat files edited since.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

/// The human form of an undo or redo: the files, then the conversation, then what undoes it.
fn describe(style: &Style, session: &SessionId, out: &Outcome) -> String {
    let retry = format!(
        "rewind undo {} {}",
        short_id(session.as_str()),
        short_id(out.undone_operation_id.as_str())
    );
    let files = &out.files;
    let Some(c) = &out.conversation else {
        // Taking back a rewind is redone with `redo`; a redo is itself undone with `undo`.
        return match out.redo {
            false => super::verdict::outcome_of_undo(style, session, files, Some(&retry)),
            true => super::verdict::outcome(style, session, files, Some(&retry)),
        };
    };
    let mut t = super::verdict::restored(style, &files.restored_files);
    let place = match &c.rewound_to {
        Some(m) => format!("conversation back to before {}", style.id(m.as_str())),
        None => "every turn of the conversation back".to_owned(),
    };
    let next = match out.redo {
        false => format!("take it back with {}", style.hint("rewind redo")),
        true => format!("undo it again with {}", style.hint("rewind undo")),
    };
    let what = match &out.redone_operation_id {
        Some(r) => format!(
            "redid {} (took back undo {})",
            style.id(r.as_str()),
            style.id(out.undone_operation_id.as_str())
        ),
        None => format!("undid {}", style.id(out.undone_operation_id.as_str())),
    };
    let _ = write!(
        t,
        "{}: {what}: {place} (generation {}), {} written; {next}{}",
        style.paint(Role::Added, "applied"),
        c.generation,
        crate::style::count(files.restored_files.len(), "file"),
        super::agent_resume::describe(style, c.agent_resume.as_deref()),
    );
    t
}

fn report(ctx: &Context, session: &SessionId, mut out: Outcome) -> Report {
    if let Some(c) = out.conversation.as_mut() {
        rewind_host::agent_copy::settle(&mut c.agent_resume);
        // The whole session's resume goes on in this session, as a rewind's does.
        rewind_host::agent_copy::bind::expect(&ctx.db, c.agent_resume.as_deref(), session);
    }
    let text = describe(&ctx.style, session, &out);
    Report::new(&out, text).refused(super::verdict::refused(&out.files))
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    // clap gives a lone argument to the operation: a session id there means "its latest".
    let (session, operation) = match (a.session.session, a.operation) {
        (None, Some(lone)) if lone.trim().starts_with(SessionId::PREFIX) => (Some(lone), None),
        pair => pair,
    };
    let operation = Ref::<OperationId>::opt(operation.as_deref())?;
    let mut engine = ctx.engine(Verb::Undo)?;
    let session = ctx.session(&engine, &SessionArg { session })?;
    let operation_id = match operation {
        Some(op) => Some(op.resolve(ctx.lookup(&engine), &session)?),
        None => None,
    };
    let opts = Options {
        operation_id,
        policy: a.policy.into(),
    };
    let out = engine.undo(&session, opts)?;
    Ok(report(ctx, &session, out))
}

pub(super) fn run_redo(ctx: &Context, a: RedoArgs) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Verb::Undo)?;
    let session = ctx.session(&engine, &a.session)?;
    let out = engine.redo(
        &session,
        RedoOptions {
            policy: a.policy.into(),
        },
    )?;
    Ok(report(ctx, &session, out))
}
