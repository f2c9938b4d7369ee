//! The SQLite store: every record of every session in one database file.
//!
//! Bodies are stored as the JSON text the core hands over and handed back untouched; the store
//! never parses them, so a damaged row costs the core one row, not the whole read. Each
//! [`SqliteStore`] owns one connection. Several stores (threads or processes) may share a file:
//! WAL lets readers run beside the single writer, every commit takes the write lock up front
//! (`BEGIN IMMEDIATE`) and waits up to [`BUSY_TIMEOUT`] for it, so contention shows up as a short
//! wait instead of "database is locked".
//!
//! The tables, for tools and tests that look inside (`session_id` is the `ses_…` wire id):
//! `sessions(ord, id, generation, body)`, `messages(session_id, seq, id, body)`,
//! `checkpoints(session_id, seq, id, body)`, `turns(session_id, id, seq, body)`,
//! `operations(ord, session_id, id, body)`, `journals(ord, id, session_id, body)`,
//! `command_facts(parent_id, command_id, body)`, `meta(key, value)` (the commit counter) and
//! `blobs(hash, bytes, codec, size)` (`codec` `raw` or `deflate`). The schema is versioned by
//! `PRAGMA user_version` ([`SCHEMA_VERSION`]).

mod codec;
mod error;
mod read;
mod schema;
mod write;

pub use schema::SCHEMA_VERSION;

use rewind_core::HostError;
use rusqlite::{Connection, OpenFlags};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// How long a commit (or the open of a busy file) waits for another writer before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Prepared statements kept per connection; comfortably more than the store ever prepares, so
/// `prepare_cached` never evicts.
const STATEMENT_CACHE: usize = 64;

/// Records kept in SQLite. Implements [`rewind_core::ports::Store`] and
/// [`rewind_core::ports::StoreWrite`].
pub struct SqliteStore {
    conn: Connection,
    location: String,
}

impl SqliteStore {
    /// Open (creating if needed) the database file at `path` and bring its schema up to date.
    ///
    /// Fails when the file cannot be opened or created, is not a SQLite database, or was written
    /// by a newer rewind whose schema this one does not understand. The message names the path.
    pub fn open(path: &Path) -> Result<Self, HostError> {
        let location = path.display().to_string();
        let what = format!("cannot open database {location}");
        // No SQLITE_OPEN_URI: a file literally named `file:…` is a file, not a URI.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| error::host(&what, e))?;
        Self::prepare(conn, location, &what, true)
    }

    /// A private, empty database that lives as long as the store (tests, demos).
    pub fn open_in_memory() -> Result<Self, HostError> {
        let what = "cannot open in-memory database";
        let conn = Connection::open_in_memory().map_err(|e| error::host(what, e))?;
        Self::prepare(conn, ":memory:".to_owned(), what, false)
    }

    fn prepare(
        mut conn: Connection,
        location: String,
        what: &str,
        file: bool,
    ) -> Result<Self, HostError> {
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        schema::configure(&conn, what, file)?;
        schema::migrate(&mut conn, what)?;
        Ok(Self { conn, location })
    }

    /// Where the database lives: the file path, or `:memory:`.
    pub fn location(&self) -> &str {
        &self.location
    }
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}
