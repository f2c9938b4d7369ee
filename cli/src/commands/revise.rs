//! `rewind edit-prompt` and `rewind retry`: change the latest prompt, or ask for the latest
//! reply again. Both rewind the conversation to before the latest turn and record anew; the
//! latest prompt and reply are found from the latest turn alone, so the cost does not grow with
//! the session.

use super::refs::Ref;
use super::{CliError, Context, NativeEngine, Report, SessionArg, Verb};
use crate::style::{Role, Style, short_id};
use rewind_core::ErrorKind;
use rewind_core::id::{MessageId, SessionId};
use rewind_core::load::SessionLog;
use rewind_core::model::{MessageKind, Turn};
use rewind_core::refs::{self, Position};
use rewind_core::revise::{Disposition, EditOptions, Outcome, RetryOptions, WorkspaceMode};

/// What happens to the edited turn's files.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub(super) enum FilesArg {
    /// Leave the files as they are.
    #[default]
    Keep,
    /// Rewind the turn's file changes too (refused if any file was edited since).
    Rewind,
}

#[derive(Debug, clap::Args)]
pub(super) struct EditArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The new prompt text.
    #[arg(long)]
    text: String,
    /// The prompt to edit (default: the latest; only the latest can be edited).
    #[arg(long, value_name = "MSG")]
    message: Option<String>,
    /// Keep the turn's file changes, or rewind them too.
    #[arg(long, value_enum, default_value_t)]
    files: FilesArg,
}

#[derive(Debug, clap::Args)]
pub(super) struct RetryArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The reply to retry (default: the latest).
    #[arg(long, value_name = "MSG")]
    message: Option<String>,
}

fn no_turns() -> CliError {
    CliError::new(
        ErrorKind::InvalidInput,
        "the session has no prompt yet; record one with `rewind prompt`",
    )
}

/// The latest turn of the active branch (`@`): one ordinal read per branch range, never every
/// turn of the session.
fn latest_turn(engine: &NativeEngine, session: &SessionId) -> Result<Turn, CliError> {
    match refs::turn_at(engine.store(), session, Position::Back(0), "@") {
        Ok(t) => Ok(t),
        Err(refs::Error::NoSuchTurn { .. }) => Err(no_turns()),
        Err(e) => Err(CliError::from_engine(rewind_core::Coded::code(&e), e)),
    }
}

/// The latest turn's prompt.
fn latest_prompt(engine: &NativeEngine, session: &SessionId) -> Result<MessageId, CliError> {
    Ok(latest_turn(engine, session)?.prompt_id)
}

/// The latest reply on the active branch, read from the latest turn on.
fn latest_reply(engine: &NativeEngine, session: &SessionId) -> Result<MessageId, CliError> {
    let last = latest_turn(engine, session)?;
    let log = SessionLog::tail(engine.store(), session, last.prompt_seq)?;
    log.messages
        .iter()
        .rev()
        .find(|m| m.kind == MessageKind::Reply && log.session.branch.contains(m.seq))
        .map(|m| m.id.clone())
        .ok_or_else(|| {
            CliError::new(
                ErrorKind::InvalidInput,
                "the latest turn has no reply to retry yet",
            )
        })
}

fn describe(style: &Style, what: &str, out: &Outcome) -> String {
    match out.disposition {
        Disposition::Rewind => {
            let turn = out
                .turn_id
                .as_ref()
                .map(|t| {
                    format!(
                        "; new turn {} (prompt {})",
                        t,
                        out.message_id.as_ref().map_or("", |m| m.as_str())
                    )
                })
                .unwrap_or_default();
            let undo = out
                .operation_id
                .as_ref()
                .map(|op| format!("; operation {}", style.id(op.as_str())))
                .unwrap_or_default();
            let resume = super::agent_resume::describe(style, out.agent_resume.as_deref());
            format!("{what}: conversation rewound to before the latest turn{undo}{turn}{resume}")
        }
        Disposition::Blocked => {
            let files = out
                .preview
                .as_ref()
                .map(|p| format!("\n{}", super::verdict::preview(style, p, None)))
                .unwrap_or_default();
            format!(
                "{}: {} ({}); nothing changed{files}",
                style.paint(Role::Bad, "refused"),
                what,
                out.reason_code.unwrap_or("blocked")
            )
        }
    }
}

pub(super) fn run_edit(ctx: &Context, a: EditArgs) -> Result<Report, CliError> {
    let given = Ref::<MessageId>::opt(a.message.as_deref())?;
    let rewind_files = matches!(a.files, FilesArg::Rewind);
    let mut engine = ctx.engine(Verb::EditLastPrompt { rewind_files })?;
    let session = ctx.session(&engine, &a.session)?;
    let message_id = match given {
        Some(m) => m.resolve(ctx.lookup(&engine), &session)?,
        None => latest_prompt(&engine, &session)?,
    };
    let opts = EditOptions {
        message_id: message_id.clone(),
        text: a.text,
        workspace: match a.files {
            FilesArg::Keep => WorkspaceMode::Preserve,
            FilesArg::Rewind => WorkspaceMode::Rewind,
        },
    };
    let mut out = engine.edit_last_prompt(&session, opts)?;
    rewind_host::agent_copy::settle(&mut out.agent_resume);
    rewind_host::agent_copy::bind::expect(&ctx.db, out.agent_resume.as_deref(), &session);
    let what = format!("edited prompt {}", short_id(message_id.as_str()));
    let text = describe(&ctx.style, &what, &out);
    let refused = out.disposition == Disposition::Blocked;
    Ok(Report::new(&out, text).refused(refused))
}

pub(super) fn run_retry(ctx: &Context, a: RetryArgs) -> Result<Report, CliError> {
    let given = Ref::<MessageId>::opt(a.message.as_deref())?;
    let mut engine = ctx.engine(Verb::RetryLastReply)?;
    let session = ctx.session(&engine, &a.session)?;
    let message_id = match given {
        Some(m) => m.resolve(ctx.lookup(&engine), &session)?,
        None => latest_reply(&engine, &session)?,
    };
    let mut out = engine.retry_last_reply(
        &session,
        RetryOptions {
            message_id: message_id.clone(),
        },
    )?;
    rewind_host::agent_copy::settle(&mut out.agent_resume);
    rewind_host::agent_copy::bind::expect(&ctx.db, out.agent_resume.as_deref(), &session);
    let what = format!("retrying reply {}", short_id(message_id.as_str()));
    let text = describe(&ctx.style, &what, &out);
    let refused = out.disposition == Disposition::Blocked;
    Ok(Report::new(&out, text).refused(refused))
}
