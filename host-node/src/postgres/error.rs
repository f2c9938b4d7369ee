//! How PostgreSQL failures become [`HostError`]s, with the kinds the SQLite store uses: a
//! constraint is the batch's fault (`precondition_failed`), a lock waited on past
//! `lock_timeout` is `busy`, a value the schema cannot hold is `corrupt`, the rest `io`.

use crate::store::refusal::{self, Refusal};
use postgres::error::SqlState;
use rewind_core::batch::Write;
use rewind_core::{HostError, HostErrorKind};

/// Wrap `e` with what was being done, e.g. "cannot read messages of session ses_x: …".
pub(super) fn host(context: &str, e: postgres::Error) -> HostError {
    let code = e.code().cloned();
    let kind = match &code {
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => HostErrorKind::Busy,
        Some(c) if *c == SqlState::DATA_CORRUPTED || *c == SqlState::INDEX_CORRUPTED => {
            HostErrorKind::Corrupt
        }
        Some(c) if is_constraint(c) => HostErrorKind::PreconditionFailed,
        _ => HostErrorKind::Io,
    };
    let why = match e.as_db_error() {
        Some(db) if code == Some(SqlState::DISK_FULL) => format!("disk full ({})", db.message()),
        Some(db) if code == Some(SqlState::READ_ONLY_SQL_TRANSACTION) => {
            format!("{} (the store was opened read-only)", db.message())
        }
        Some(db) => db.message().to_owned(),
        None => e.to_string(),
    };
    HostError::new(kind, format!("{context}: {why}")).with_source(e)
}

/// A failed precondition with a readable message.
pub(super) fn precondition(message: impl Into<String>) -> HostError {
    HostError::new(HostErrorKind::PreconditionFailed, message)
}

/// A stored number the core cannot hold (a negative seq): only a damaged or foreign row.
pub(super) fn corrupt(what: &str, n: i64) -> HostError {
    HostError::new(
        HostErrorKind::Corrupt,
        format!("{what}: stored value {n} is not a rewind count"),
    )
}

fn is_constraint(code: &SqlState) -> bool {
    [
        SqlState::UNIQUE_VIOLATION,
        SqlState::FOREIGN_KEY_VIOLATION,
        SqlState::NOT_NULL_VIOLATION,
        SqlState::CHECK_VIOLATION,
    ]
    .contains(code)
}

/// The error for a write PostgreSQL refused: constraints become failed preconditions in the
/// same words as SQLite's (see `store::refusal`); the constraint's name tells an id taken
/// (`*_id_unique`) from a seq taken (the primary key, or the seq trigger naming it).
pub(super) fn write(w: &Write, e: postgres::Error) -> HostError {
    let Some(code) = e.code().filter(|c| is_constraint(c)) else {
        return host(&format!("cannot {}", refusal::verb(w)), e);
    };
    let named = e.as_db_error().and_then(|d| d.constraint());
    let why = match code {
        c if *c == SqlState::FOREIGN_KEY_VIOLATION => Refusal::MissingSession,
        _ if named.is_some_and(|n| n.ends_with("_id_unique")) => Refusal::IdTaken,
        _ => Refusal::Other,
    };
    let detail = e
        .as_db_error()
        .map_or_else(|| e.to_string(), |d| d.message().to_owned());
    precondition(refusal::message(w, why, &detail)).with_source(e)
}
