//! The versioned schema. The version lives in `schema_version` (one row). Migrations run in
//! order inside one transaction that first takes a transaction-level advisory lock, and the
//! version is re-read under it, so several servers opening a fresh database at once apply each
//! migration exactly once (the others wait, then find nothing to do).
//!
//! It mirrors the SQLite schema table for table (see `crate::sqlite`), with PostgreSQL's types:
//! `BIGINT` numbers, `BYTEA` blob bytes, identity columns for insertion order. Key columns are
//! `COLLATE "C"`: ids sort and compare by byte, as in SQLite, which the prefix lookups rely on.

use super::error;
use postgres::Client;
use rewind_core::HostError;

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// Migration `i` takes a database from version `i` to `i + 1`. Append only; never edit one that
/// has shipped.
const MIGRATIONS: &[&str] = &[V1, V2, V3];

/// Advisory lock key of migrations ("rewind" in ASCII, then 1); the apply lock is 2. Advisory
/// locks are per database, so stores in different databases never meet.
const MIGRATE_KEY: i64 = 0x7265_7769_6e64_0001;

/// Version 1: everything SQLite's seven versions built.
///
/// * Child rows reference `sessions(id)` with `ON DELETE CASCADE`: a batch cannot write into a
///   session that does not exist, and `DeleteSession` is one statement.
/// * A seq is unique across the messages AND checkpoints of a session: each table's primary key
///   covers its own rows and a trigger checks the other table (it names the primary key of the
///   table written, so the error reads "seq taken" either way).
/// * `messages.ord`, `messages.boundary`, `checkpoints.bytes`, `sessions.bytes` serve range reads
///   as in SQLite's V5; `blobs.base/depth/step` are SQLite's V6 delta columns.
/// * `meta.version` counts commits; every commit updates that one row first, which is also what
///   orders commits (see `write`).
const V1: &str = r#"
CREATE TABLE sessions (
    ord        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         TEXT COLLATE "C" NOT NULL CONSTRAINT sessions_id_unique UNIQUE,
    generation BIGINT NOT NULL DEFAULT 0,
    bytes      BIGINT NOT NULL DEFAULT 0,
    body       TEXT   NOT NULL
);
CREATE TABLE messages (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        BIGINT  NOT NULL,
    id         TEXT COLLATE "C" NOT NULL,
    ord        BIGINT  NOT NULL,
    boundary   BOOLEAN NOT NULL DEFAULT false,
    body       TEXT    NOT NULL,
    CONSTRAINT messages_seq PRIMARY KEY (session_id, seq),
    CONSTRAINT messages_id_unique UNIQUE (session_id, id)
);
CREATE INDEX messages_boundaries ON messages (session_id, seq) WHERE boundary;
CREATE TABLE checkpoints (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    id         TEXT COLLATE "C" NOT NULL,
    bytes      BIGINT NOT NULL DEFAULT 0,
    body       TEXT   NOT NULL,
    CONSTRAINT checkpoints_seq PRIMARY KEY (session_id, seq),
    CONSTRAINT checkpoints_id_unique UNIQUE (session_id, id)
);
CREATE FUNCTION rewind_seq_free() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_TABLE_NAME = 'messages' AND EXISTS (
            SELECT 1 FROM checkpoints WHERE session_id = NEW.session_id AND seq = NEW.seq))
       OR (TG_TABLE_NAME = 'checkpoints' AND EXISTS (
            SELECT 1 FROM messages WHERE session_id = NEW.session_id AND seq = NEW.seq)) THEN
        RAISE EXCEPTION 'seq % of session % is taken', NEW.seq, NEW.session_id
            USING ERRCODE = 'unique_violation', CONSTRAINT = TG_TABLE_NAME || '_seq';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER messages_seq_free BEFORE INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION rewind_seq_free();
CREATE TRIGGER checkpoints_seq_free BEFORE INSERT ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION rewind_seq_free();
CREATE TABLE turns (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    id         TEXT COLLATE "C" NOT NULL,
    seq        BIGINT NOT NULL,
    body       TEXT   NOT NULL,
    PRIMARY KEY (session_id, id)
);
CREATE INDEX turns_by_seq ON turns (session_id, seq, id);
CREATE TABLE operations (
    ord        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    id         TEXT COLLATE "C" NOT NULL CONSTRAINT operations_id_unique UNIQUE,
    body       TEXT NOT NULL
);
CREATE INDEX operations_by_session ON operations (session_id, ord);
CREATE TABLE journals (
    ord        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         TEXT COLLATE "C" NOT NULL CONSTRAINT journals_id_unique UNIQUE,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    body       TEXT NOT NULL
);
CREATE INDEX journals_by_session ON journals (session_id);
CREATE TABLE blobs (
    hash  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    bytes BYTEA  NOT NULL,
    codec TEXT   NOT NULL DEFAULT 'raw',
    size  BIGINT,
    base  TEXT COLLATE "C",
    depth BIGINT NOT NULL DEFAULT 0,
    step  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX blobs_by_base ON blobs (base) WHERE base IS NOT NULL;
CREATE TABLE command_facts (
    parent_id  TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    command_id TEXT COLLATE "C" NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (parent_id, command_id)
);
CREATE TABLE workspace_snapshots (
    session_id TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    body       TEXT NOT NULL
);
CREATE TABLE meta (
    key   TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('version', 0);
CREATE TABLE store_info (
    key   TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);
"#;

/// Version 2: the ids of the latest commits, so a commit whose reply was lost can be looked up
/// afterwards ("did batch X commit?", see `doubt`). Keyed by the commit counter's value, which
/// the commit took under the counter's row lock: a batch that rolled back left its number to
/// the next committer, so the row at that number names who really committed it. Each commit
/// prunes the rows [`super::write::KEPT_COMMIT_IDS`] behind it, so the table stays small.
const V2: &str = r#"
CREATE TABLE commit_ids (
    version BIGINT NOT NULL PRIMARY KEY,
    id      TEXT COLLATE "C" NOT NULL
);
"#;

/// Version 3: `checkpoints.turn_id` and `checkpoints_by_turn`, as SQLite's V8 (one turn's
/// checkpoints in one index range). The backfill reads each body's `turnId`; a body that is not
/// JSON gets NULL rather than failing the migration, hence the function that catches the error.
const V3: &str = r#"
ALTER TABLE checkpoints ADD COLUMN turn_id TEXT COLLATE "C";
CREATE FUNCTION pg_temp.rewind_turn_of(body TEXT) RETURNS TEXT LANGUAGE plpgsql AS $$
BEGIN
    RETURN CASE WHEN jsonb_typeof(body::jsonb -> 'turnId') = 'string'
                THEN body::jsonb ->> 'turnId' END;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;
UPDATE checkpoints SET turn_id = pg_temp.rewind_turn_of(body);
DROP FUNCTION pg_temp.rewind_turn_of(TEXT);
CREATE INDEX checkpoints_by_turn ON checkpoints (session_id, turn_id, seq);
"#;

/// The first schema with the turn column of [`V3`]; a read-only open of an older database
/// answers a turn's checkpoints by scanning instead.
pub(super) const TURN_VERSION: i32 = 3;

/// The version table itself, made under the migration lock.
const VERSION_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_version (
    one     BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    version INTEGER NOT NULL
)";

/// How many migrations the database has had (`None`: it holds no rewind schema), checked
/// against what this build knows.
pub(super) fn applied(client: &mut impl postgres::GenericClient) -> Result<Option<i32>, HostError> {
    let fail = |e| error::host("cannot read the schema version", e);
    let table = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])
        .and_then(|r| r.try_get::<_, bool>(0))
        .map_err(fail)?;
    if !table {
        return Ok(None);
    }
    let version = client
        .query_opt("SELECT version FROM schema_version", &[])
        .and_then(|r| r.map(|r| r.try_get::<_, i32>(0)).transpose())
        .map_err(fail)?
        .unwrap_or(0);
    newer_refused(version)?;
    Ok(Some(version))
}

/// What one look at a new connection's database found.
pub(super) struct Found {
    /// How many migrations it has had (`None`: it holds no rewind schema).
    pub(super) version: Option<i32>,
    /// The store's facts (`store_info`), when the same round trip could read them.
    pub(super) facts: Option<super::info::Facts>,
}

/// The schema version and every store fact in one statement: what each open checks first.
const LOOK: &str = "SELECT (SELECT version FROM schema_version),
        (SELECT array_agg(key ORDER BY key) FROM store_info),
        (SELECT array_agg(value ORDER BY key) FROM store_info)";

/// The schema version (checked against what this build knows) and, when the tables are those
/// of a rewind schema, the store's facts: one round trip. Any failure of that one statement
/// (no such table: an empty database, a schema from elsewhere) falls back to [`applied`], which
/// tells those cases apart.
pub(super) fn look(client: &mut Client) -> Result<Found, HostError> {
    let read = |r: postgres::Row| -> Result<_, postgres::Error> {
        let version: Option<i32> = r.try_get(0)?;
        let keys: Option<Vec<String>> = r.try_get(1)?;
        let values: Option<Vec<String>> = r.try_get(2)?;
        Ok((version, keys, values))
    };
    let Ok((version, keys, values)) = client.query_typed_one(LOOK, &[]).and_then(read) else {
        return Ok(Found {
            version: applied(client)?,
            facts: None,
        });
    };
    let version = version.unwrap_or(0);
    newer_refused(version)?;
    let facts = keys
        .unwrap_or_default()
        .into_iter()
        .zip(values.unwrap_or_default())
        .collect();
    Ok(Found {
        version: Some(version),
        facts: Some(facts),
    })
}

fn newer_refused(version: i32) -> Result<(), HostError> {
    if !(0..=SCHEMA_VERSION).contains(&version) {
        return Err(HostError::io(format!(
            "the database's rewind schema version {version} is newer than this rewind \
             understands ({SCHEMA_VERSION})"
        )));
    }
    Ok(())
}

/// Bring the schema from `found` (what [`look`] saw) up to [`SCHEMA_VERSION`], or refuse a
/// database from a newer rewind.
pub(super) fn migrate(client: &mut Client, found: Option<i32>) -> Result<(), HostError> {
    // Fast path: an up-to-date database takes no lock.
    if found == Some(SCHEMA_VERSION) {
        return Ok(());
    }
    let fail = |e| error::host("cannot migrate the rewind schema", e);
    let mut tx = client.transaction().map_err(fail)?;
    tx.execute("SELECT pg_advisory_xact_lock($1::bigint)", &[&MIGRATE_KEY])
        .map_err(fail)?;
    tx.batch_execute(VERSION_TABLE).map_err(fail)?;
    // Re-read under the lock: another server may have migrated while we waited.
    let done = applied(&mut tx)?.unwrap_or(0);
    for sql in &MIGRATIONS[done as usize..] {
        tx.batch_execute(sql).map_err(fail)?;
    }
    tx.execute(
        "INSERT INTO schema_version (one, version) VALUES (true, $1)
         ON CONFLICT (one) DO UPDATE SET version = excluded.version",
        &[&SCHEMA_VERSION],
    )
    .map_err(fail)?;
    tx.commit().map_err(fail)
}
