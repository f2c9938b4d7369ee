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
        None => reason(&e),
    };
    HostError::new(kind, format!("{context}: {why}")).with_source(e)
}

/// Everything a failure says: the server's message, or the error and each cause below it
/// (`postgres::Error`'s own text is only its kind, "error connecting to server", while the
/// cause says "Connection refused").
pub(super) fn reason(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_owned();
    }
    let mut parts = vec![e.to_string()];
    let mut below = std::error::Error::source(e);
    while let Some(cause) = below {
        parts.push(cause.to_string());
        below = cause.source();
    }
    parts.join(": ")
}

/// Why connecting to `location` failed, in the person's terms, with the code that fits: a
/// connection string that cannot work as written is `invalid_input`, the rest `host_error`.
pub(super) fn connect(location: &str, e: postgres::Error) -> HostError {
    let code = e.code().cloned();
    let (kind, why) = match (e.as_db_error(), &code) {
        (Some(db), Some(c)) if *c == SqlState::INVALID_PASSWORD => (
            HostErrorKind::Io,
            format!("{} (the password is wrong)", db.message()),
        ),
        (Some(db), Some(c)) if *c == SqlState::INVALID_CATALOG_NAME => (
            HostErrorKind::Io,
            format!(
                "{} (create it first, e.g. `createdb`, or name another)",
                db.message()
            ),
        ),
        (Some(db), _) => (HostErrorKind::Io, db.message().to_owned()),
        (None, _) => unanswered(&e),
    };
    let context = format!("cannot connect to PostgreSQL at {location}");
    HostError::new(kind, format!("{context}: {why}")).with_source(e)
}

/// A connection failure the server did not answer: read the innermost cause.
fn unanswered(e: &postgres::Error) -> (HostErrorKind, String) {
    let mut inner: &(dyn std::error::Error + 'static) = e;
    while let Some(cause) = inner.source() {
        inner = cause;
    }
    let text = inner.to_string();
    if let Some(io) = inner.downcast_ref::<std::io::Error>() {
        let hint = match io.kind() {
            std::io::ErrorKind::ConnectionRefused => {
                " (is the server running, and listening there?)"
            }
            std::io::ErrorKind::NotFound => {
                " (no server socket there: is the server running, and is that its socket directory?)"
            }
            std::io::ErrorKind::TimedOut => " (no answer: is the host reachable?)",
            _ => "",
        };
        return (HostErrorKind::Io, format!("{}{hint}", lower_first(&text)));
    }
    match text.as_str() {
        "password missing" => (
            HostErrorKind::Io,
            "the server asks for a password and the connection string gives none \
             (postgres://user:PASSWORD@host/db, or password=… in key=value form)"
                .into(),
        ),
        "both host and hostaddr are missing" => (
            HostErrorKind::InvalidInput,
            "the connection string names no host (postgres://user@host:5432/db, or a socket \
             directory: postgres://user@%2Frun%2Fpostgresql/db)"
                .into(),
        ),
        _ => (HostErrorKind::Io, reason(e)),
    }
}

/// "Connection refused (os error 111)" reads as "connection refused (os error 111)" after a colon.
fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `url` with any password in it replaced by `***` (the userinfo of a URL, `password=` in a
/// query or a key=value string), so a message may echo what the person typed.
pub fn redact(url: &str) -> String {
    let mut out = url.to_owned();
    if let Some(scheme_end) = out.find("://") {
        let start = scheme_end + 3;
        let authority_end = out[start..]
            .find(['/', '?'])
            .map_or(out.len(), |i| start + i);
        if let Some(at) = out[start..authority_end].rfind('@')
            && let Some(colon) = out[start..start + at].find(':')
        {
            out.replace_range(start + colon + 1..start + at, "***");
        }
    }
    let mut from = 0;
    while let Some(i) = out[from..].to_ascii_lowercase().find("password=") {
        let value = from + i + "password=".len();
        let end = match out[value..].chars().next() {
            Some('\'') => out[value + 1..]
                .find('\'')
                .map_or(out.len(), |j| value + j + 2),
            _ => out[value..]
                .find(|c: char| c.is_whitespace() || c == '&')
                .map_or(out.len(), |j| value + j),
        };
        out.replace_range(value..end, "***");
        from = value + 3;
    }
    out
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

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_redacted_in_every_form() {
        let cases = [
            (
                "postgres://me:s3cret@host:5432/db",
                "postgres://me:***@host:5432/db",
            ),
            ("postgres://me@host/db", "postgres://me@host/db"),
            ("postgres://me:p@ss@host/db", "postgres://me:***@host/db"),
            (
                "postgres://me@host/db?password=s3cret&x=1",
                "postgres://me@host/db?password=***&x=1",
            ),
            (
                "host=/run user=me password=s3cret dbname=x",
                "host=/run user=me password=*** dbname=x",
            ),
            (
                "host=h PASSWORD='s3 cret' dbname=x",
                "host=h PASSWORD=*** dbname=x",
            ),
        ];
        for (given, shown) in cases {
            assert_eq!(redact(given), shown, "{given}");
        }
    }
}
