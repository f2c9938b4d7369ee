//! Conversation rewind: move the branch cursor to before a prompt. Nothing is deleted; the old
//! branch stays stored but unselected. The commit carries a generation compare-and-swap, so of
//! two racing rewinds exactly one wins.

use crate::batch::{Batch, Precondition, Write};
use crate::branch::{self, Evaluation, Scope};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::files::undone_changes;
use crate::id::{MessageId, OperationId, SessionId, TurnId};
use crate::load::{self, SessionLog, encode};
use crate::model::{Message, MessageKind, Operation, OperationKind, Role, Session};
use crate::ports::{SeqRange, Store};
use crate::record;
use crate::window;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Options of [`rewind`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The prompt to rewind to (the conversation continues from just before it). An assistant
    /// message maps back to its turn's prompt.
    pub to: MessageId,
}

/// What [`rewind`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Always true on `Ok`: the new branch is committed.
    pub rewound: bool,
    /// The recorded operation.
    pub operation_id: OperationId,
    /// The prompt actually rewound to (after mapping an assistant id back).
    pub target_message_id: MessageId,
    /// The id that was asked for.
    pub requested_message_id: MessageId,
    /// The new branch generation.
    pub generation: u64,
    /// Messages kept on the branch before the target.
    pub kept_message_count: usize,
    /// Turns no longer on the branch.
    pub removed_turn_ids: Vec<TurnId>,
    /// How the target was evaluated ([`crate::branch::evaluate_rewind_target`]).
    pub evaluation: Evaluation,
    /// How to resume the agent's own conversation at the same point, for a session an agent's
    /// hooks recorded ([`crate::agent_resume`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_resume: Option<Box<crate::agent_resume::AgentResume>>,
}

/// Failures of a conversation rewind. Nothing is committed in any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// `target_message_not_found`.
    #[error("message {0} is not available in the active conversation branch")]
    NotOnBranch(MessageId),
    /// `target_message_is_not_user_prompt`.
    #[error("message {0} is not a rewindable user prompt")]
    NotAPrompt(MessageId),
    /// The evaluation table refused the target.
    #[error("rewind to {target} is unavailable: {reason}")]
    Unavailable {
        /// The target.
        target: MessageId,
        /// The evaluation's `reason` (which of its seven outcomes).
        reason: &'static str,
    },
    /// The host could not stop the removed turns' background work.
    #[error("stopping the background work of the removed turns failed: {0}")]
    StopFailed(HostError),
    /// Another rewind won the race.
    #[error("session {0} was rewound by someone else first; nothing was changed")]
    Raced(SessionId),
    /// The store failed.
    #[error("committing the rewind failed: {0}")]
    Store(HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::NotOnBranch(_) => ErrorKind::NotFound,
            Self::NotAPrompt(_) => ErrorKind::InvalidInput,
            Self::Unavailable { .. } => ErrorKind::Unavailable,
            Self::StopFailed(e) | Self::Store(e) => e.error_kind(),
            Self::Raced(_) => ErrorKind::Conflict,
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// A planned cursor move.
#[derive(Clone, Debug)]
pub(crate) struct ConversationPlan {
    pub(crate) base: Session,
    pub(crate) target: MessageId,
    pub(crate) target_seq: u64,
    pub(crate) requested: MessageId,
    pub(crate) kept: usize,
    pub(crate) removed_turns: Vec<TurnId>,
    pub(crate) evaluation: Evaluation,
}

impl ConversationPlan {
    /// The session row after the move, given the session's last seq at commit time.
    pub(crate) fn moved(&self, stored_last: u64) -> Session {
        let last_seq = self.base.last_seq(stored_last);
        Session {
            branch: self.base.branch.rewound(self.target_seq, last_seq),
            seq_high_water: last_seq,
            generation: self.base.generation + 1,
            rewound_to: Some(self.target.clone()),
            ..self.base.clone()
        }
    }
}

/// Plan a move of the cursor to before `to`. Only in `conversation` scope does an assistant id
/// map back to its prompt; `both` must name the prompt itself. Reads the target, the branch from
/// it on, the last compaction and a count: the cost follows what the rewind removes.
pub(crate) fn plan(
    store: &dyn Store,
    session: &Session,
    to: &MessageId,
    scope: Scope,
    checkpoint_available: bool,
) -> Result<ConversationPlan, Error> {
    let host = |e: HostError| Error::Load(load::Error::Host(e));
    // A row that does not decode is not on the branch, as branch selection has it.
    let requested = match window::message(store, &session.id, to) {
        Ok(m) if session.branch.contains(m.seq) => m,
        Ok(_) | Err(load::Error::NotFound { .. } | load::Error::Corrupt { .. }) => {
            return Err(Error::NotOnBranch(to.clone()));
        }
        Err(e) => return Err(e.into()),
    };
    let target = if scope == Scope::Conversation && !requested.is_prompt() {
        window::latest_active(store, session, requested.seq, Message::is_prompt)
            .map_err(host)?
            .ok_or_else(|| Error::NotAPrompt(to.clone()))?
    } else {
        requested
    };
    if !target.is_prompt() {
        return Err(Error::NotAPrompt(to.clone()));
    }
    let tail = window::messages_in(store, &session.id, SeqRange::from(target.seq))?.items;
    let removed: Vec<&Message> = tail
        .iter()
        .filter(|m| session.branch.contains(m.seq))
        .collect();
    // The evaluation only needs the order of the target and the last compaction: a compaction
    // before the target stands in for the whole kept prefix.
    let mut items = Vec::new();
    if let Some(b) = window::last_boundary(store, session)
        .map_err(host)?
        .filter(|b| b.seq < target.seq)
    {
        items.push(branch::Item {
            id: b.id,
            boundary: true,
        });
    }
    items.extend(branch::items(&removed));
    let evaluation =
        branch::evaluate_rewind_target(&items, &target.id, scope, checkpoint_available);
    if !evaluation.available {
        return Err(Error::Unavailable {
            target: target.id,
            reason: evaluation.reason,
        });
    }
    let mut seen = BTreeSet::new();
    let removed_turns = removed
        .iter()
        .filter_map(|m| m.turn_id.clone())
        .filter(|t| seen.insert(t.clone()))
        .collect();
    let kept = window::active_count_before(store, session, target.seq).map_err(host)?;
    Ok(ConversationPlan {
        base: session.clone(),
        target: target.id,
        target_seq: target.seq,
        requested: to.clone(),
        kept: usize::try_from(kept).unwrap_or(usize::MAX),
        removed_turns,
        evaluation,
    })
}

/// Ask the host to stop the removed turns' background work; a failure aborts the rewind.
pub(crate) fn stop_turns(p: &mut Ports<'_>, plan: &ConversationPlan) -> Result<(), HostError> {
    match p.turn_control.as_deref_mut() {
        Some(control) if !plan.removed_turns.is_empty() => {
            control.stop_turns(&plan.base.id, &plan.removed_turns)
        }
        _ => Ok(()),
    }
}

/// Files that removed turns changed and that are still on disk: the model is told, so it does
/// not believe the workspace went back with the conversation. A turn's checkpoints follow its
/// prompt, so only checkpoints from the earliest removed prompt on are read.
fn files_left_behind(store: &dyn Store, plan: &ConversationPlan) -> Result<Vec<String>, Error> {
    let session = &plan.base.id;
    let mut from = plan.target_seq;
    for t in &plan.removed_turns {
        if let Some(row) = store.turn(session, t).map_err(load::Error::Host)? {
            from = from.min(row.seq);
        }
    }
    let log = SessionLog::tail(store, session, from)?;
    let undone = undone_changes(&log.operations);
    let removed: BTreeSet<&TurnId> = plan.removed_turns.iter().collect();
    let paths: BTreeSet<String> = log
        .checkpoints
        .iter()
        .filter(|c| removed.contains(&c.turn_id))
        .flat_map(|c| {
            c.changes
                .iter()
                .filter(|ch| !undone.contains(&(c.id.clone(), ch.path.clone())))
                .map(|ch| ch.path.to_string())
        })
        .collect();
    Ok(paths.into_iter().collect())
}

/// Rewind the conversation to before a prompt.
pub fn rewind(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<Outcome, Error> {
    let mut stopped = false;
    for _ in 0..8 {
        let base = load::session(p.store, session)?;
        let plan = plan(p.store, &base, &opts.to, Scope::Conversation, false)?;
        if !stopped {
            stop_turns(p, &plan).map_err(Error::StopFailed)?;
            stopped = true;
        }
        let last = p.store.last_seq(session).map_err(Error::Store)?;
        let moved = plan.moved(last);
        let op = Operation {
            id: p.mint(),
            session_id: session.clone(),
            kind: OperationKind::ConversationRewind,
            created_at: p.now(),
            target: Some(crate::model::OpTarget::Since {
                message_id: plan.target.clone(),
            }),
            policy: None,
            files: Vec::new(),
            undoes: None,
            journal_id: None,
            branch_target: Some(plan.target.clone()),
            generation: Some(moved.generation),
            dropped_through: None,
            note: None,
            cursor_before: Some(crate::model::CursorBefore::of(&plan.base, last)),
        };
        let mut batch = Batch::new();
        batch.require(Precondition::Generation(
            session.clone(),
            plan.base.generation,
        ));
        batch.require(Precondition::LastSeq(session.clone(), last));
        batch.push(Write::UpdateSession {
            session: session.clone(),
            generation: moved.generation,
            body: encode(&moved),
        });
        batch.push(Write::PutOperation {
            session: session.clone(),
            operation: op.id.clone(),
            body: encode(&op),
        });
        let left = files_left_behind(p.store, &plan)?;
        if !left.is_empty() {
            let text = format!(
                "The conversation was rewound to before an earlier prompt. Files changed by the removed turns were \
                 not restored and are still on disk: {}.",
                left.join(", ")
            );
            let mut m = record::new_message(
                p,
                session,
                plan.base.last_seq(last) + 1,
                Role::System,
                MessageKind::Notice,
                text,
            );
            m.visible_to_ui = false;
            record::push_message(&mut batch, &m);
        }
        match p.store.commit(batch) {
            Ok(()) => {
                let agent_resume = window::message(p.store, session, &plan.target)
                    .ok()
                    .and_then(|m| {
                        crate::agent_resume::before(&plan.base, &m, None, op.id.as_str())
                    });
                return Ok(Outcome {
                    rewound: true,
                    operation_id: op.id,
                    target_message_id: plan.target,
                    requested_message_id: plan.requested,
                    generation: moved.generation,
                    kept_message_count: plan.kept,
                    removed_turn_ids: plan.removed_turns,
                    evaluation: plan.evaluation,
                    agent_resume,
                });
            }
            Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {
                if load::session(p.store, session)?.generation != plan.base.generation {
                    return Err(Error::Raced(session.clone()));
                }
            }
            Err(e) => return Err(Error::Store(e)),
        }
    }
    Err(Error::Raced(session.clone()))
}
