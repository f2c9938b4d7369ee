//! How SQLite failures become [`HostError`]s: the engine only needs to tell "someone else changed
//! the state" (a constraint) from "the data is damaged" from "the disk or the lock failed".

use rewind_core::batch::Write;
use rewind_core::{HostError, HostErrorKind};
use rusqlite::{ErrorCode, ffi};

/// Wrap `e` with what was being done, e.g. "cannot read messages of session ses_x: disk I/O error".
pub(super) fn host(context: &str, e: rusqlite::Error) -> HostError {
    let kind = kind_of(&e);
    let why = match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => "disk full".to_owned(),
        Some(ErrorCode::ReadOnly) => format!("{e} (the store is read-only for this user)"),
        _ => e.to_string(),
    };
    HostError::new(kind, format!("{context}: {why}")).with_source(e)
}

/// A failed precondition with a readable message.
pub(super) fn precondition(message: impl Into<String>) -> HostError {
    HostError::new(HostErrorKind::PreconditionFailed, message)
}

fn kind_of(e: &rusqlite::Error) -> HostErrorKind {
    match e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::ConstraintViolation => HostErrorKind::PreconditionFailed,
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => HostErrorKind::Corrupt,
            _ => HostErrorKind::Io,
        },
        // A value of the wrong type or range can only come from a damaged or foreign row.
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => HostErrorKind::Corrupt,
        _ => HostErrorKind::Io,
    }
}

/// The error for a write that SQLite refused. Constraint violations are the batch's fault
/// (someone got there first, or the batch names something that is not there), so they are
/// reported as failed preconditions in the words MemStore uses; anything else is I/O.
pub(super) fn write(w: &Write, e: rusqlite::Error) -> HostError {
    if e.sqlite_error_code() != Some(ErrorCode::ConstraintViolation) {
        return host(&format!("cannot {}", verb(w)), e);
    }
    let extended = e.sqlite_extended_error_code();
    let message = match (w, extended) {
        (_, Some(ffi::SQLITE_CONSTRAINT_FOREIGNKEY)) => match w.session() {
            Some(session) => format!("session {session} does not exist"),
            None => format!("cannot {}: {e}", verb(w)),
        },
        (Write::CreateSession { session, .. }, _) => format!("session {session} already exists"),
        (
            Write::AppendMessage {
                session, message, ..
            },
            Some(ffi::SQLITE_CONSTRAINT_UNIQUE),
        ) => format!("{message} already exists in session {session}"),
        (
            Write::PutCheckpoint {
                session,
                checkpoint,
                ..
            },
            Some(ffi::SQLITE_CONSTRAINT_UNIQUE),
        ) => format!("{checkpoint} already exists in session {session}"),
        // The primary key (same table) or the trigger (the other table) found the seq in use.
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
    };
    precondition(message).with_source(e)
}

/// What a write does, for messages.
fn verb(w: &Write) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_says_so() {
        let e = rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_FULL), None);
        let h = host("cannot commit the batch", e);
        assert_eq!(h.message(), "cannot commit the batch: disk full");
    }
}
