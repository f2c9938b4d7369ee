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
//! `blobs(hash, bytes, codec, size, base, depth, step)` (`codec` `raw`, `zstd`, `deflate` (older rows) or `zstd-delta`: a
//! delta against the blob `base`, see `blobs`), and `store_info(key, value)`
//! (which workspace and user the store belongs to). Beside the file, `<db>.lock` is the apply
//! lock (see `lock`). The schema is versioned by
//! `PRAGMA user_version` ([`SCHEMA_VERSION`]).

mod apply;
mod blobs;
mod error;
mod info;
mod prefix;
mod read;
mod running;
mod schema;
#[cfg(test)]
mod tests;
mod write;

pub use crate::store::lock::LOCK_TIMEOUT;

pub use schema::SCHEMA_VERSION;
pub use write::Durability;

use rewind_core::HostError;
use rusqlite::{Connection, OpenFlags, Params};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// One statement through the connection's statement cache: every writer and the running
/// totals use it, so a batch of thousands of rows prepares each statement once.
fn exec<P: Params>(conn: &Connection, sql: &str, params: P) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

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
    /// The apply lock beside the file; none for in-memory and read-only stores.
    lock: Option<crate::store::lock::ApplyLock<crate::store::lock::FileLock>>,
    /// No blob inflates past this when its row does not record its size.
    blob_limit: u64,
    /// The schema version of the file (the latest, unless opened read-only).
    schema: usize,
    /// The `synchronous` setting last applied to the connection (see `write::sync_for`).
    synchronous: Option<write::Durability>,
    /// What batches without a journal commit with.
    record_durability: write::Durability,
    /// Contents lately written, the likely bases of the next versions (see `crate::store::blobs::Recent`).
    recent: crate::store::blobs::Recent,
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
        let mut store = Self::prepare(conn, location, &what, true)?;
        store.lock = Some(crate::store::lock::ApplyLock::new(
            crate::store::lock::FileLock::beside(path),
        ));
        Ok(store)
    }

    /// Open an existing database file for reading only: nothing is created, migrated or written,
    /// so a store that came from elsewhere, or that this user may not write, still reads.
    pub fn open_read_only(path: &Path) -> Result<Self, HostError> {
        let location = path.display().to_string();
        let what = format!("cannot open database {location}");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // A WAL database read the ordinary way gets `-wal` and `-shm` files made beside it, and
        // the first connection to one rebuilds the `-shm` (writing it). So: with no WAL (a store
        // that came from elsewhere, or whose WAL was checkpointed away), it is read as immutable;
        // with a WAL and its `-shm` (a writer left them: the last connection does not
        // checkpoint, or one is open now), the `-shm` is opened read-only, and when no other
        // connection is open SQLite reads the WAL into memory instead of rebuilding the `-shm`
        // (SQLite's `readonly_shm`). Either way reading writes nothing.
        let uri = flags | OpenFlags::SQLITE_OPEN_URI;
        let conn = if !wal_sibling(path, "-wal").exists() {
            Connection::open_with_flags(file_uri(path, "immutable=1"), uri)
        } else if wal_sibling(path, "-shm").exists() {
            Connection::open_with_flags(file_uri(path, "readonly_shm=1"), uri)
        } else {
            // A WAL without its `-shm` (copied without it): only the ordinary way reads it.
            Connection::open_with_flags(path, flags)
        }
        .map_err(|e| error::host(&what, e))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        schema::configure_read_only(&conn, &what)?;
        let schema = schema::applied(&conn, &what)?;
        Ok(Self::with(conn, location, schema))
    }

    fn with(conn: Connection, location: String, schema: usize) -> Self {
        Self {
            conn,
            location,
            lock: None,
            blob_limit: rewind_core::ctx::Limits::default().max_file_bytes,
            schema,
            synchronous: None,
            record_durability: write::Durability::Normal,
            recent: crate::store::blobs::Recent::default(),
        }
    }

    /// Bound for inflating a blob whose row does not record its size (the configured maximum
    /// file size): a damaged or planted row must not inflate without bound.
    pub fn set_blob_limit(&mut self, bytes: u64) {
        self.blob_limit = bytes;
    }

    /// Hold the apply lock until [`SqliteStore::release_apply_lock`] (or drop), waiting up to
    /// `timeout` for another process's apply. Everything planned and applied meanwhile sees no
    /// other process's apply in between. A no-op for in-memory and read-only stores.
    pub fn hold_apply_lock(&mut self, timeout: std::time::Duration) -> Result<(), HostError> {
        match &mut self.lock {
            Some(lock) => lock.pin(timeout),
            None => Ok(()),
        }
    }

    /// Let go of a lock taken by [`SqliteStore::hold_apply_lock`] (kept while a journal of this
    /// store is still pending).
    pub fn release_apply_lock(&mut self) {
        if let Some(lock) = &mut self.lock {
            lock.unpin();
        }
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
        Ok(Self::with(conn, location, SCHEMA_VERSION as usize))
    }

    /// Where the database lives: the file path, or `:memory:`.
    pub fn location(&self) -> &str {
        &self.location
    }
}

fn wal_sibling(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// `file:<path>?<query>`, with the characters a URI gives meaning to escaped.
fn file_uri(path: &Path, query: &str) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'%' | b'?' | b'#' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(char::from(b)),
        }
    }
    uri.push('?');
    uri.push_str(query);
    uri
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}
