//! How SQLite failures become [`HostError`]s: the engine only needs to tell "someone else changed
//! the state" (a constraint) from "the data is damaged" from "the disk or the lock failed".

use crate::store::refusal::{self, Refusal};
use rewind_core::batch::Write;
use rewind_core::{HostError, HostErrorKind};
use rusqlite::{ErrorCode, ffi};

/// Wrap `e` with what was being done, e.g. "cannot read messages of session ses_x: disk I/O error".
pub(super) fn host(context: &str, e: rusqlite::Error) -> HostError {
    let kind = kind_of(&e);
    let why = match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => "disk full".to_owned(),
        Some(ErrorCode::SystemIoFailure) if out_of_space() => format!("disk full ({e})"),
        Some(ErrorCode::ReadOnly) => format!("{e} (the store is read-only for this user)"),
        _ => e.to_string(),
    };
    HostError::new(kind, format!("{context}: {why}")).with_source(e)
}

/// Whether the system call SQLite just failed on ran out of space. SQLite says SQLITE_FULL only
/// where it checks for ENOSPC itself; growing the `-shm` file or syncing on a full disk is a bare
/// "disk I/O error". Its errno is still this thread's (successful calls since leave errno alone),
/// so a full disk is named as one wherever it surfaces.
fn out_of_space() -> bool {
    matches!(
        std::io::Error::last_os_error().kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
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
        return host(&format!("cannot {}", refusal::verb(w)), e);
    }
    let why = match e.sqlite_extended_error_code() {
        Some(ffi::SQLITE_CONSTRAINT_FOREIGNKEY) => Refusal::MissingSession,
        Some(ffi::SQLITE_CONSTRAINT_UNIQUE) => Refusal::IdTaken,
        // The primary key (same table) or the trigger (the other table) found the seq in use.
        _ => Refusal::Other,
    };
    precondition(refusal::message(w, why, &e)).with_source(e)
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
