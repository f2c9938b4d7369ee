//! Reads. Each is one statement, so under WAL it sees one consistent snapshot and never waits
//! for a writer.

use super::{SqliteStore, error};
use rewind_core::HostError;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use rewind_core::ports::{BlobInfo, IdTable, Row, SeqRange, Store, WholeReads};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Params};

/// The highest seq of the session over messages and checkpoints (0 when none), or `None` when
/// the session does not exist. `max(seq)` alone per table lets SQLite seek the end of the
/// primary-key index instead of scanning.
const LAST_SEQ: &str = "
    SELECT max(coalesce((SELECT max(seq) FROM messages WHERE session_id = s.id), 0),
               coalesce((SELECT max(seq) FROM checkpoints WHERE session_id = s.id), 0))
    FROM sessions AS s WHERE s.id = ?1";

/// What the ordinal reads answer.
type OptRow = Result<Option<Row>, HostError>;
type Ids = Result<Vec<String>, HostError>;

/// See [`LAST_SEQ`]; also used by preconditions inside the write transaction.
pub(super) fn last_seq_of(conn: &Connection, session: &SessionId) -> rusqlite::Result<Option<u64>> {
    conn.prepare_cached(LAST_SEQ)?
        .query_row([session.as_str()], |r| unsigned(r, 0))
        .optional()
}

/// How many batches were committed.
pub(super) fn version_of(conn: &Connection) -> rusqlite::Result<u64> {
    conn.prepare_cached("SELECT value FROM meta WHERE key = 'version'")?
        .query_row([], |r| unsigned(r, 0))
}

/// The session's generation column, or `None` when it does not exist.
pub(super) fn generation_of(
    conn: &Connection,
    session: &SessionId,
) -> rusqlite::Result<Option<u64>> {
    conn.prepare_cached("SELECT generation FROM sessions WHERE id = ?1")?
        .query_row([session.as_str()], |r| unsigned(r, 0))
        .optional()
}

/// Every query selects `id, seq-or-ord, body` in that order.
pub(super) fn to_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        id: r.get(0)?,
        seq: unsigned(r, 1)?,
        body: body(r, 2)?,
    })
}

/// Seqs, orders and generations are `u64` in the core and `INTEGER` (i64) in SQLite; the store
/// never writes a negative one, so finding one means the row was damaged.
fn unsigned(r: &rusqlite::Row<'_>, idx: usize) -> rusqlite::Result<u64> {
    let n: i64 = r.get(idx)?;
    u64::try_from(n).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(idx, n))
}

/// A body as text. Bytes that are not UTF-8 are replaced rather than failing the whole read:
/// the core then judges that one row and keeps the rest. A non-text body (impossible in the
/// STRICT tables) is `InvalidColumnType`, which maps to corrupt.
fn body(r: &rusqlite::Row<'_>, idx: usize) -> rusqlite::Result<String> {
    match r.get_ref(idx)? {
        // The strict check first: it is several times faster than the lossy walk, and every
        // body the store wrote passes it.
        ValueRef::Text(bytes) => Ok(match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        }),
        other => Err(rusqlite::Error::InvalidColumnType(
            idx,
            "body".to_owned(),
            other.data_type(),
        )),
    }
}

/// A range's bounds as SQLite integers (`u64::MAX`, open-ended, becomes `i64::MAX`).
pub(super) fn bounds(range: SeqRange) -> (i64, i64) {
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    (clamp(range.from), clamp(range.to))
}

impl SqliteStore {
    /// How many turns start in a seq range (a turn's seq is its prompt's). The picker numbers
    /// its rows with it: one count over the `turns_by_seq` index, no row read or decoded.
    pub fn turn_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        let (from, to) = bounds(range);
        let run = || -> rusqlite::Result<u64> {
            self.conn
                .prepare_cached(
                    "SELECT count(*) FROM turns WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3",
                )?
                .query_row(rusqlite::params![session.as_str(), from, to], |r| {
                    unsigned(r, 0)
                })
        };
        run().map_err(|e| error::host(&format!("cannot count turns of session {session}"), e))
    }

    /// Whether the file has the delta columns (a read-only open of an older store does not).
    fn has_delta_columns(&self) -> bool {
        self.schema >= super::schema::DELTA_VERSION
    }

    /// Whether the file has the range-read columns (a read-only open of an older store does not).
    fn has_range_columns(&self) -> bool {
        self.schema >= super::schema::RANGE_VERSION
    }

    fn rows<P: Params>(&self, sql: &str, params: P, what: &str) -> Result<Vec<Row>, HostError> {
        let run = || -> rusqlite::Result<Vec<Row>> {
            let mut stmt = self.conn.prepare_cached(sql)?;
            let rows = stmt.query_map(params, to_row)?;
            rows.collect()
        };
        run().map_err(|e| error::host(&format!("cannot read {what}"), e))
    }

    fn row<P: Params>(&self, sql: &str, params: P, what: &str) -> Result<Option<Row>, HostError> {
        let run = || -> rusqlite::Result<Option<Row>> {
            self.conn
                .prepare_cached(sql)?
                .query_row(params, to_row)
                .optional()
        };
        run().map_err(|e| error::host(&format!("cannot read {what}"), e))
    }
}

impl Store for SqliteStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.row(
            "SELECT id, ord, body FROM sessions WHERE id = ?1",
            [id.as_str()],
            &format!("session {id}"),
        )
    }

    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, ord, body FROM sessions ORDER BY ord",
            [],
            "sessions",
        )
    }

    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, seq, body FROM messages WHERE session_id = ?1 ORDER BY seq",
            [session.as_str()],
            &format!("messages of session {session}"),
        )
    }

    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        self.row(
            "SELECT id, seq, body FROM turns WHERE session_id = ?1 AND id = ?2",
            [session.as_str(), turn.as_str()],
            &format!("turn {turn} of session {session}"),
        )
    }

    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, seq, body FROM turns WHERE session_id = ?1 ORDER BY seq, id",
            [session.as_str()],
            &format!("turns of session {session}"),
        )
    }

    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, seq, body FROM checkpoints WHERE session_id = ?1 ORDER BY seq",
            [session.as_str()],
            &format!("checkpoints of session {session}"),
        )
    }

    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, ord, body FROM operations WHERE session_id = ?1 ORDER BY ord",
            [session.as_str()],
            &format!("operations of session {session}"),
        )
    }

    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, ord, body FROM journals ORDER BY ord",
            [],
            "journals",
        )
    }

    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        let rows = super::blobs::Rows {
            conn: &self.conn,
            deltas: self.has_delta_columns(),
        };
        crate::store::blobs::read(&rows, hash, self.blob_limit)
    }

    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        let sql = match self.has_delta_columns() {
            true => {
                "SELECT hash, coalesce(size, length(bytes)), length(bytes), base FROM blobs
                 ORDER BY hash"
            }
            false => {
                "SELECT hash, coalesce(size, length(bytes)), length(bytes), NULL FROM blobs
                 ORDER BY hash"
            }
        };
        type Listed = (String, i64, i64, Option<String>);
        let run = || -> rusqlite::Result<Vec<Listed>> {
            let mut stmt = self.conn.prepare_cached(sql)?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect()
        };
        let rows = run().map_err(|e| error::host("cannot list blobs", e))?;
        Ok(rows
            .into_iter()
            .filter_map(crate::store::blobs::listed)
            .collect())
    }

    fn version(&self) -> Result<u64, HostError> {
        version_of(&self.conn).map_err(|e| error::host("cannot read the store version", e))
    }

    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError> {
        self.row(
            "SELECT command_id, 0, body FROM command_facts WHERE parent_id = ?1 AND command_id = ?2",
            [parent.as_str(), command.as_str()],
            "command facts",
        )
    }

    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        last_seq_of(&self.conn, session)
            .map(Option::unwrap_or_default)
            .map_err(|e| error::host(&format!("cannot read the last seq of session {session}"), e))
    }

    fn message(&self, session: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        self.row(
            "SELECT id, seq, body FROM messages WHERE session_id = ?1 AND id = ?2",
            [session.as_str(), id.as_str()],
            &format!("message {id} of session {session}"),
        )
    }

    fn messages_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        self.rows(
            "SELECT id, seq, body FROM messages WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq",
            rusqlite::params![session.as_str(), from, to],
            &format!("messages of session {session}"),
        )
    }

    fn last_messages_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        limit: usize,
    ) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut rows = self.rows(
            "SELECT id, seq, body FROM messages WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq DESC LIMIT ?4",
            rusqlite::params![session.as_str(), from, to, limit],
            &format!("messages of session {session}"),
        )?;
        rows.reverse();
        Ok(rows)
    }

    fn message_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        let (from, to) = bounds(range);
        // With `ord`: the ord of the first message at or after each bound (or the count of all
        // messages past the end), subtracted. Without it (a read-only older store): a scan.
        let sql = if self.has_range_columns() {
            "WITH total(n) AS (SELECT coalesce((SELECT ord + 1 FROM messages WHERE session_id = ?1
                                                ORDER BY seq DESC LIMIT 1), 0))
             SELECT max(0,
                 coalesce((SELECT ord FROM messages WHERE session_id = ?1 AND seq >= ?3
                           ORDER BY seq LIMIT 1), (SELECT n FROM total))
               - coalesce((SELECT ord FROM messages WHERE session_id = ?1 AND seq >= ?2
                           ORDER BY seq LIMIT 1), (SELECT n FROM total)))"
        } else {
            "SELECT count(*) FROM messages WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3"
        };
        let run = || -> rusqlite::Result<u64> {
            self.conn
                .prepare_cached(sql)?
                .query_row(rusqlite::params![session.as_str(), from, to], |r| {
                    unsigned(r, 0)
                })
        };
        run().map_err(|e| error::host(&format!("cannot count messages of session {session}"), e))
    }

    fn boundaries(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        if !self.has_range_columns() {
            return WholeReads(self).boundaries(session);
        }
        self.rows(
            "SELECT id, seq, body FROM messages WHERE session_id = ?1 AND boundary = 1 ORDER BY seq",
            [session.as_str()],
            &format!("compaction summaries of session {session}"),
        )
    }

    fn turns_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        self.rows(
            "SELECT id, seq, body FROM turns WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq, id",
            rusqlite::params![session.as_str(), from, to],
            &format!("turns of session {session}"),
        )
    }

    fn turn_count_in(&self, s: &SessionId, r: SeqRange) -> Result<u64, HostError> {
        Self::turn_count_in(self, s, r)
    }

    fn turn_at_in(&self, s: &SessionId, r: SeqRange, n: u64, back: bool) -> OptRow {
        Self::turn_at_in(self, s, r, n, back)
    }

    fn ids_with_prefix(&self, t: IdTable, s: Option<&SessionId>, p: &str, n: usize) -> Ids {
        Self::ids_with_prefix(self, t, s, p, n)
    }

    fn checkpoint(&self, session: &SessionId, id: &CheckpointId) -> Result<Option<Row>, HostError> {
        self.row(
            "SELECT id, seq, body FROM checkpoints WHERE session_id = ?1 AND id = ?2",
            [session.as_str(), id.as_str()],
            &format!("checkpoint {id} of session {session}"),
        )
    }

    fn checkpoints_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        self.rows(
            "SELECT id, seq, body FROM checkpoints WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq",
            rusqlite::params![session.as_str(), from, to],
            &format!("checkpoints of session {session}"),
        )
    }

    fn turn_checkpoints(&self, s: &SessionId, t: &TurnId) -> Result<Vec<Row>, HostError> {
        Self::turn_checkpoints(self, s, t)
    }
    fn session_bytes(&self, session: &SessionId) -> Result<u64, HostError> {
        if !self.has_range_columns() {
            return WholeReads(self).session_bytes(session);
        }
        let run = || -> rusqlite::Result<Option<u64>> {
            self.conn
                .prepare_cached("SELECT bytes FROM sessions WHERE id = ?1")?
                .query_row([session.as_str()], |r| unsigned(r, 0))
                .optional()
        };
        run()
            .map(Option::unwrap_or_default)
            .map_err(|e| error::host(&format!("cannot read the size of session {session}"), e))
    }

    fn workspace_snapshot(&self, session: &SessionId) -> Result<Option<Row>, HostError> {
        // A read-only open of an older file has no snapshots to read.
        if self.schema < super::schema::SNAPSHOT_VERSION {
            return Ok(None);
        }
        self.row(
            "SELECT session_id, 0, body FROM workspace_snapshots WHERE session_id = ?1",
            [session.as_str()],
            "workspace snapshots",
        )
    }

    fn has_blob(&self, hash: &ContentHash) -> Result<bool, HostError> {
        super::blobs::exists(&self.conn, hash)
            .map_err(|e| error::host(&format!("cannot look up blob {}", hash.short()), e))
    }
}
