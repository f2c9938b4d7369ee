//! What a store says when a write breaks one of its constraints: the batch's fault (someone
//! got there first, or the batch names something that is not there), in the words MemStore
//! uses, the same whichever database said no.

use rewind_core::batch::Write;
use std::fmt::Display;

/// Which kind of constraint refused the write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A reference to a session that does not exist.
    MissingSession,
    /// The row's id is taken (a unique id within its session).
    IdTaken,
    /// Anything else: a key (session, seq) that is taken, a duplicate key of another table.
    Other,
}

/// The message of a failed precondition for a write a constraint refused.
pub(crate) fn message(w: &Write, why: Refusal, e: &dyn Display) -> String {
    match (w, why) {
        (_, Refusal::MissingSession) => match w.session() {
            Some(session) => format!("session {session} does not exist"),
            None => format!("cannot {}: {e}", verb(w)),
        },
        (Write::CreateSession { session, .. }, _) => format!("session {session} already exists"),
        (
            Write::AppendMessage {
                session, message, ..
            },
            Refusal::IdTaken,
        ) => format!("{message} already exists in session {session}"),
        (
            Write::PutCheckpoint {
                session,
                checkpoint,
                ..
            },
            Refusal::IdTaken,
        ) => format!("{checkpoint} already exists in session {session}"),
        (
            Write::AppendMessage { session, seq, .. } | Write::PutCheckpoint { session, seq, .. },
            _,
        ) => {
            format!("seq {seq} of session {session} is taken")
        }
        (Write::PutOperation { operation, .. }, _) => format!("{operation} already exists"),
        (Write::PutJournal { journal, .. }, _) => format!("{journal} already exists"),
        (
            Write::PutCommandFact {
                parent, command, ..
            },
            _,
        ) => {
            format!("command {command} already ran in session {parent}")
        }
        _ => format!("cannot {}: {e}", verb(w)),
    }
}

/// What a write does, for messages.
pub(crate) fn verb(w: &Write) -> String {
    match w {
        Write::CreateSession { session, .. } => format!("create session {session}"),
        Write::UpdateSession { session, .. } => format!("update session {session}"),
        Write::AppendMessage { message, .. } => format!("append message {message}"),
        Write::PutTurn { turn, .. } => format!("store turn {turn}"),
        Write::PutCheckpoint { checkpoint, .. } => format!("store checkpoint {checkpoint}"),
        Write::PutBlob { hash, .. } => format!("store blob {}", hash.short()),
        Write::PutOperation { operation, .. } => format!("store operation {operation}"),
        Write::PutJournal { journal, .. } => format!("store journal {journal}"),
        Write::RemoveJournal { journal } => format!("remove journal {journal}"),
        Write::PutCommandFact {
            parent, command, ..
        } => {
            format!("record command {command} of session {parent}")
        }
        Write::DeleteBlob { hash } => format!("delete blob {}", hash.short()),
        Write::DeleteCheckpoint { checkpoint, .. } => format!("delete checkpoint {checkpoint}"),
        Write::DeleteSession { session } => format!("delete session {session}"),
        Write::PutWorkspaceSnapshot { session, .. } => {
            format!("store the workspace snapshot of session {session}")
        }
    }
}
