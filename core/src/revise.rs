//! Revise the latest turn: edit its prompt or retry its reply. Only the latest turn can be
//! edited or retried; the errors say so. Guards run before anything is stopped or written.

use crate::agent_resume::{self, AgentPoint};
use crate::both;
use crate::conversation;
use crate::ctx::Ports;
use crate::error::ErrorKind;
use crate::files::{self, Preview, TargetOptions};
use crate::id::{MessageId, OperationId, SessionId, TurnId};
use crate::load;
use crate::model::{Message, MessageKind, Policy, Role};
use crate::record::{self, PromptOptions};
use crate::window;
use serde::{Deserialize, Serialize};

/// What happens to the files of the edited turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceMode {
    /// Leave the files as they are.
    #[default]
    Preserve,
    /// Rewind the turn's file changes too (refused if any file is unsafe).
    Rewind,
}

/// Options of [`edit_last_prompt`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditOptions {
    /// The latest prompt.
    pub message_id: MessageId,
    /// The new prompt text.
    pub text: String,
    /// Files: preserve (default) or rewind.
    #[serde(default)]
    pub workspace: WorkspaceMode,
}

/// Options of [`retry_last_reply`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryOptions {
    /// The latest assistant reply.
    pub message_id: MessageId,
}

/// How an edit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// The conversation was rewound and the new prompt recorded.
    Rewind,
    /// A workspace guard refused; nothing changed.
    Blocked,
}

/// What an edit or retry did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Rewound, or blocked by a guard.
    pub disposition: Disposition,
    /// The guard's code when blocked (`guard.workspaceRewindUnsafeFiles`, …).
    pub reason_code: Option<&'static str>,
    /// The new turn, when recorded.
    pub turn_id: Option<TurnId>,
    /// The new prompt, when recorded.
    pub message_id: Option<MessageId>,
    /// The text submitted.
    pub text: String,
    /// The rewind operation.
    pub operation_id: Option<OperationId>,
    /// The file preview, in `rewind` mode.
    pub preview: Option<Preview>,
    /// How to resume the agent's own conversation at the same point, for a session an agent's
    /// hooks recorded ([`crate::agent_resume`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_resume: Option<Box<crate::agent_resume::AgentResume>>,
}

/// Failures of edit and retry.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// A guard refused: its code and why.
    #[error("{message} ({code})")]
    Guard {
        /// `guard.latestQueryEditOnly`, `guard.latestAssistantRetryOnly` or `proto.invalidPayload`.
        code: &'static str,
        /// Readable reason.
        message: String,
    },
    /// The conversation rewind failed.
    #[error(transparent)]
    Conversation(#[from] conversation::Error),
    /// The combined rewind failed.
    #[error(transparent)]
    Both(#[from] both::Error),
    /// The file preview failed.
    #[error(transparent)]
    Files(#[from] files::Error),
    /// Recording the new prompt failed.
    #[error(transparent)]
    Record(#[from] record::Error),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::Guard {
                code: "proto.invalidPayload",
                ..
            } => ErrorKind::InvalidInput,
            Self::Guard { .. } => ErrorKind::Unavailable,
            Self::Conversation(e) => e.kind(),
            Self::Both(e) => e.kind(),
            Self::Files(e) => e.kind(),
            Self::Record(e) => e.kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

fn blocked(code: &'static str, text: String, preview: Option<Preview>) -> Outcome {
    Outcome {
        disposition: Disposition::Blocked,
        reason_code: Some(code),
        turn_id: None,
        message_id: None,
        text,
        operation_id: None,
        preview,
        agent_resume: None,
    }
}

/// Replace the latest prompt with new text: rewind to before it (files preserved, or rewound
/// through the conflict-checked planner) and record the new prompt.
pub fn edit_last_prompt(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: EditOptions,
) -> Result<Outcome, Error> {
    if opts.text.trim().is_empty() {
        return Err(Error::Guard {
            code: "proto.invalidPayload",
            message: "input must not be empty".into(),
        });
    }
    let s = load::session(p.store, session)?;
    let latest = window::latest_active(p.store, &s, u64::MAX, Message::is_prompt)
        .map_err(load::Error::Host)?;
    let Some(old) = latest.filter(|m| m.id == opts.message_id) else {
        return Err(Error::Guard {
            code: "guard.latestQueryEditOnly",
            message: format!(
                "only the latest prompt can be edited, and {} is not it",
                opts.message_id
            ),
        });
    };
    let (operation_id, preview) = match opts.workspace {
        WorkspaceMode::Preserve => {
            let out = conversation::rewind(
                p,
                session,
                conversation::Options {
                    to: opts.message_id.clone(),
                },
            )?;
            (Some(out.operation_id), None)
        }
        WorkspaceMode::Rewind => {
            let target = TargetOptions {
                turn: Some(opts.message_id.to_string()),
                ..TargetOptions::default()
            };
            let preview = files::preview(p, session, target)?;
            if !preview.unsafe_files.is_empty() {
                return Ok(blocked(
                    "guard.workspaceRewindUnsafeFiles",
                    opts.text,
                    Some(preview),
                ));
            }
            // Paths already at their target need no write: the rewind goes ahead without them.
            if preview.safe_files.is_empty() && preview.unchanged_files.is_empty() {
                return Ok(blocked(
                    "guard.workspaceRewindUnavailable",
                    opts.text,
                    Some(preview),
                ));
            }
            let out = both::rewind(
                p,
                session,
                both::Options {
                    to: opts.message_id.clone(),
                    policy: Policy::Block,
                    paths: Vec::new(),
                },
            )?;
            if !out.rewound {
                return Ok(blocked(
                    "guard.workspaceRewindApplyConflict",
                    opts.text,
                    Some(out.files.preview),
                ));
            }
            (out.files.operation_id, Some(out.files.preview))
        }
    };
    let new = record::prompt(
        p,
        session,
        PromptOptions {
            text: opts.text.clone(),
            // The agent's history stood where it stood before the prompt it replaces.
            payload: AgentPoint::of(&old).map(|point| point.payload()),
        },
    )?;
    let salt = operation_id
        .as_ref()
        .map_or(new.message_id.as_str(), |op| op.as_str());
    let agent_resume = agent_resume::before(&s, &old, Some(&opts.text), salt);
    Ok(Outcome {
        disposition: Disposition::Rewind,
        reason_code: None,
        turn_id: Some(new.turn_id),
        message_id: Some(new.message_id),
        text: opts.text,
        operation_id,
        preview,
        agent_resume,
    })
}

/// Retry the latest reply: rewind the conversation to before its prompt and record the same
/// prompt again (the original text is read before the rewind).
pub fn retry_last_reply(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: RetryOptions,
) -> Result<Outcome, Error> {
    let s = load::session(p.store, session)?;
    let newest = |pick: fn(&Message) -> bool| {
        window::latest_active(p.store, &s, u64::MAX, pick).map_err(load::Error::Host)
    };
    let latest = newest(|m| m.role == Role::Assistant && m.kind == MessageKind::Reply)?;
    let latest_prompt = newest(Message::is_prompt)?;
    let guard = || Error::Guard {
        code: "guard.latestAssistantRetryOnly",
        message: format!(
            "only the latest assistant reply can be retried, and {} is not it",
            opts.message_id
        ),
    };
    let reply = latest
        .filter(|m| m.id == opts.message_id)
        .ok_or_else(guard)?;
    let prompt = latest_prompt
        .filter(|pr| pr.seq < reply.seq && pr.turn_id == reply.turn_id)
        .ok_or_else(guard)?;
    let text = prompt.text();
    let out = conversation::rewind(p, session, conversation::Options { to: reply.id })?;
    let agent_resume = agent_resume::before(&s, &prompt, Some(&text), out.operation_id.as_str());
    let payload = prompt.payload;
    let new = record::prompt(
        p,
        session,
        PromptOptions {
            text: text.clone(),
            payload,
        },
    )?;
    Ok(Outcome {
        disposition: Disposition::Rewind,
        reason_code: None,
        turn_id: Some(new.turn_id),
        message_id: Some(new.message_id),
        text,
        operation_id: Some(out.operation_id),
        preview: None,
        agent_resume,
    })
}
