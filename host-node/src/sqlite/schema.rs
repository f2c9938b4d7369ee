//! Connection settings and the versioned schema.
//!
//! The schema version lives in `PRAGMA user_version`. Migrations run in order inside one
//! `BEGIN IMMEDIATE` transaction, and the version is re-read after the write lock is taken, so
//! several processes opening a fresh file at once apply each migration exactly once.

use super::{BUSY_TIMEOUT, error};
use rewind_core::HostError;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, TransactionBehavior};
use std::time::{Duration, Instant};

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Migration `i` takes a database from version `i` to `i + 1`. Append only; never edit one that
/// has shipped.
pub(super) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7, V8];

/// Version 1, the initial schema.
///
/// * Tables are STRICT so a stray write of the wrong type fails instead of being coerced.
/// * `ord` columns are AUTOINCREMENT rowids: insertion order that is never reused.
/// * Child rows reference `sessions(id)`, so a batch cannot write into a session that does not
///   exist, and a session with records cannot be deleted.
/// * A seq is unique across the messages AND checkpoints of a session: each table's primary key
///   covers its own rows and a trigger checks the other table, so any writer keeps the rule.
/// * Every read path is an index: primary keys lead with `session_id`, plus `turns_by_seq`,
///   `operations_by_session` and `journals_by_session`.
const V1: &str = "
CREATE TABLE sessions (
    ord        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT    NOT NULL UNIQUE,
    generation INTEGER NOT NULL DEFAULT 0,
    body       TEXT    NOT NULL
) STRICT;

CREATE TABLE messages (
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    seq        INTEGER NOT NULL,
    id         TEXT    NOT NULL,
    body       TEXT    NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, id)
) STRICT;

CREATE TABLE checkpoints (
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    seq        INTEGER NOT NULL,
    id         TEXT    NOT NULL,
    body       TEXT    NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, id)
) STRICT;

CREATE TRIGGER messages_seq_free BEFORE INSERT ON messages
WHEN EXISTS (SELECT 1 FROM checkpoints WHERE session_id = NEW.session_id AND seq = NEW.seq)
BEGIN
    SELECT RAISE(ABORT, 'seq is taken by a checkpoint');
END;

CREATE TRIGGER checkpoints_seq_free BEFORE INSERT ON checkpoints
WHEN EXISTS (SELECT 1 FROM messages WHERE session_id = NEW.session_id AND seq = NEW.seq)
BEGIN
    SELECT RAISE(ABORT, 'seq is taken by a message');
END;

CREATE TABLE turns (
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    id         TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    body       TEXT    NOT NULL,
    PRIMARY KEY (session_id, id)
) STRICT;
CREATE INDEX turns_by_seq ON turns (session_id, seq, id);

CREATE TABLE operations (
    ord        INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    id         TEXT    NOT NULL UNIQUE,
    body       TEXT    NOT NULL
) STRICT;
CREATE INDEX operations_by_session ON operations (session_id, ord);

CREATE TABLE journals (
    ord        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT    NOT NULL UNIQUE,
    session_id TEXT    NOT NULL REFERENCES sessions (id),
    body       TEXT    NOT NULL
) STRICT;
CREATE INDEX journals_by_session ON journals (session_id);

CREATE TABLE blobs (
    hash  TEXT NOT NULL PRIMARY KEY,
    bytes BLOB NOT NULL
) STRICT;
";

/// Version 2: command facts, the idempotency keys of forks and side chats. One row per
/// (parent session, command id); the primary key is what makes a replayed command write nothing.
const V2: &str = "
CREATE TABLE command_facts (
    parent_id  TEXT NOT NULL REFERENCES sessions (id),
    command_id TEXT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (parent_id, command_id)
) STRICT;
";

/// Version 3: a commit counter (`meta.version`, bumped by every batch, so gc can commit only if
/// nobody else committed since it planned) and compressed blobs (`codec` is `raw` or `deflate`;
/// `size` is the uncompressed length).
const V3: &str = "
CREATE TABLE meta (
    key   TEXT    NOT NULL PRIMARY KEY,
    value INTEGER NOT NULL
) STRICT;
INSERT INTO meta (key, value) VALUES ('version', 0);
ALTER TABLE blobs ADD COLUMN codec TEXT NOT NULL DEFAULT 'raw';
ALTER TABLE blobs ADD COLUMN size INTEGER;
";

/// Version 4: facts about the store itself (`store_info`): which workspace it belongs to (a
/// random workspace id and the canonical root), who made it, who else was trusted with it.
const V4: &str = "
CREATE TABLE store_info (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
";

/// Version 5: what range reads need without decoding bodies. `messages.boundary` flags
/// compaction summaries (partial index `messages_boundaries`), `messages.ord` is how many
/// messages of the session come before the row (so counting a seq range is two lookups, not a
/// scan), `checkpoints.bytes` is the content a checkpoint brought into the store and
/// `sessions.bytes` their running total (a quota check reads one row). Existing rows are
/// backfilled; a body that is not JSON counts as no boundary and no bytes.
const V5: &str = "
ALTER TABLE messages ADD COLUMN ord INTEGER NOT NULL DEFAULT 0;
WITH numbered AS (
    SELECT rowid AS r, row_number() OVER (PARTITION BY session_id ORDER BY seq) - 1 AS n
    FROM messages
)
UPDATE messages SET ord = numbered.n FROM numbered WHERE numbered.r = messages.rowid;
ALTER TABLE messages ADD COLUMN boundary INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET boundary = CASE WHEN json_valid(body)
    THEN json_type(body, '$.compaction') IS NOT NULL AND json_type(body, '$.compaction') != 'null'
    ELSE 0 END;
CREATE INDEX messages_boundaries ON messages (session_id, seq) WHERE boundary = 1;
ALTER TABLE checkpoints ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE checkpoints SET bytes = CASE WHEN json_valid(body)
    AND json_type(body, '$.addedBytes') = 'integer' THEN max(json_extract(body, '$.addedBytes'), 0)
    ELSE 0 END;
ALTER TABLE sessions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET bytes = (SELECT coalesce(sum(bytes), 0) FROM checkpoints WHERE session_id = sessions.id);
";

/// Version 6: blobs stored as deltas. `base` is the blob a `zstd-delta` row applies to (NULL for
/// a whole copy), `depth` how many deltas a read applies to reach the content (0 for a whole
/// copy), `step` the row's position since the last whole copy along the versions it was
/// written after (see `blobs`). Existing rows are whole copies, which the defaults say.
/// `blobs_by_base` answers "does anything still need this base" for deletes.
const V6: &str = "
ALTER TABLE blobs ADD COLUMN base TEXT;
ALTER TABLE blobs ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blobs ADD COLUMN step INTEGER NOT NULL DEFAULT 0;
CREATE INDEX blobs_by_base ON blobs (base) WHERE base IS NOT NULL;
";

/// Version 7: each session's latest workspace snapshot (shell capture), one row per session.
const V7: &str = "
CREATE TABLE workspace_snapshots (
    session_id TEXT NOT NULL PRIMARY KEY REFERENCES sessions (id),
    body       TEXT NOT NULL
) STRICT;
";

/// Version 8: `checkpoints.turn_id`, the turn a checkpoint was recorded into, and the index
/// `checkpoints_by_turn` over it, so one turn's checkpoints (`rewind show`) are one index range
/// however long the session. Not a seq range: a checkpoint can be recorded into an older turn
/// still on the branch after later prompts. Existing rows are backfilled from the body's
/// `turnId`; a body that is not JSON or names no turn gets NULL (it belongs to no turn).
const V8: &str = "
ALTER TABLE checkpoints ADD COLUMN turn_id TEXT;
UPDATE checkpoints SET turn_id = CASE WHEN json_valid(body)
    AND json_type(body, '$.turnId') = 'text' THEN json_extract(body, '$.turnId') END;
CREATE INDEX checkpoints_by_turn ON checkpoints (session_id, turn_id, seq);
";

/// The first schema with the turn column of [`V8`]; a read-only open of an older store answers
/// a turn's checkpoints by scanning instead.
pub(super) const TURN_VERSION: usize = 8;

/// The first schema with the snapshot table of [`V7`]; older files (read-only opens) have none.
pub(super) const SNAPSHOT_VERSION: usize = 7;

/// The first schema with the delta columns of [`V6`]; older files (read-only opens) hold only
/// whole copies.
pub(super) const DELTA_VERSION: usize = 6;

/// The first schema with the range-read columns of [`V5`]; a read-only open of an older store
/// answers range reads by scanning instead.
pub(super) const RANGE_VERSION: usize = 5;

/// The oldest schema a read-only open understands: reads need the V3 blob columns; anything
/// later is optional for them.
pub(super) const MIN_READ_VERSION: usize = 3;

/// Per-connection settings for a read-only connection: it waits like any other and can never
/// write, not even the WAL switch.
pub(super) fn configure_read_only(conn: &Connection, what: &str) -> Result<(), HostError> {
    let fail = |e| error::host(what, e);
    conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
    conn.pragma_update(None, "query_only", "ON").map_err(fail)?;
    // It could not checkpoint anyway (the file is open read-only); never try.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map_err(fail)?;
    let done = applied(conn, what)?;
    if done < MIN_READ_VERSION {
        return Err(HostError::io(format!(
            "{what}: the store has schema version {done}, older than this rewind reads without \
             upgrading it ({MIN_READ_VERSION}); run a writing command (e.g. `rewind recover`) once"
        )));
    }
    Ok(())
}

/// Per-connection settings. `file` is false for in-memory databases, which have no WAL.
pub(super) fn configure(conn: &Connection, what: &str, file: bool) -> Result<(), HostError> {
    let fail = |e| error::host(what, e);
    // First, so that every later statement (the WAL switch included) waits for other writers.
    conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
    if file {
        enable_wal(conn, what)?;
        // A big batch (a first workspace snapshot, a fork) grows the WAL; once checkpointed it
        // is cut back to this instead of keeping its high-water size on disk.
        conn.pragma_update(None, "journal_size_limit", 4 << 20)
            .map_err(fail)?;
        // No checkpoint when this is the last connection to close. Every hook process is the
        // last, and that checkpoint (then deleting the WAL) cost each recording call four
        // fsyncs. The WAL stays beside the file with the committed data (durable as each
        // commit's `synchronous` made it); a commit checkpoints it once it passes
        // `wal_autocheckpoint` pages (SQLite's default, 1000), so it stays small. Reading
        // around a WAL that is left like this writes nothing (see `SqliteStore::open_read_only`).
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(fail)?;
    }
    // FULL until a commit picks its own durability (`write::sync_for`): migrations and anything
    // before the first batch are on disk when they return.
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(fail)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(fail)?;
    // Big batches (a fork copies every message) must not spill pages mid-transaction, and
    // statement journals (for constraint and trigger rollback) stay in memory, not in temp files.
    conn.pragma_update(None, "cache_size", -32768)
        .map_err(fail)?;
    conn.pragma_update(None, "temp_store", "MEMORY")
        .map_err(fail)?;
    Ok(())
}

/// Switch to WAL (persistent in the file). SQLite answers with the old mode instead of an error
/// when another connection holds a lock at that moment, so retry until it sticks.
fn enable_wal(conn: &Connection, what: &str) -> Result<(), HostError> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        let mode = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0));
        match mode {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) if Instant::now() >= deadline => {
                return Err(HostError::io(format!(
                    "{what}: cannot switch to WAL journal mode (still {mode})"
                )));
            }
            Err(e) if e.sqlite_error_code() != Some(ErrorCode::DatabaseBusy) => {
                return Err(error::host(what, e));
            }
            Err(e) if Instant::now() >= deadline => return Err(error::host(what, e)),
            Ok(_) | Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Bring the schema up to [`SCHEMA_VERSION`], or refuse a database from a newer rewind.
pub(super) fn migrate(conn: &mut Connection, what: &str) -> Result<(), HostError> {
    let fail = |e| error::host(what, e);
    // Fast path: an up-to-date database needs no write lock, so opening never queues behind a
    // long commit of another process.
    if applied(conn, what)? == MIGRATIONS.len() {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(fail)?;
    // Re-read under the lock: another process may have migrated while we waited.
    let done = applied(&tx, what)?;
    if done == MIGRATIONS.len() {
        return Ok(());
    }
    for sql in &MIGRATIONS[done..] {
        tx.execute_batch(sql).map_err(fail)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(fail)?;
    tx.commit().map_err(fail)
}

/// How many migrations the database has had, checked against what this build knows.
pub(super) fn applied(conn: &Connection, what: &str) -> Result<usize, HostError> {
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(|e| error::host(what, e))?;
    match usize::try_from(version) {
        Ok(done) if done <= MIGRATIONS.len() => Ok(done),
        Ok(_) => Err(HostError::io(format!(
            "{what}: database schema version {version} is newer than this rewind understands \
             ({SCHEMA_VERSION})"
        ))),
        Err(_) => Err(HostError::io(format!(
            "{what}: database schema version {version} is not a rewind schema version"
        ))),
    }
}
