//! Reads: one statement each, outside any transaction, every one an index lookup or range
//! (the same indexes as SQLite's, see `schema`).

use super::stmt::stmt;
use super::{PgStore, error};
use postgres::types::ToSql;
use rewind_core::HostError;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use rewind_core::ports::{BlobInfo, IdTable, Row, SeqRange, Store, WholeReads};

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];
/// What the ordinal reads answer.
type OptRow = Result<Option<Row>, HostError>;
type Ids = Result<Vec<String>, HostError>;

/// The highest seq of the session over messages and checkpoints (0 when none); no row when the
/// session does not exist. Also read by preconditions inside the write transaction.
pub(super) const LAST_SEQ: &str = "
    SELECT greatest(coalesce((SELECT max(seq) FROM messages WHERE session_id = s.id), 0),
                    coalesce((SELECT max(seq) FROM checkpoints WHERE session_id = s.id), 0))
    FROM sessions AS s WHERE s.id = $1";

/// Seqs, orders and sizes are `u64` in the core and `BIGINT` here; the store never writes a
/// negative one, so finding one means the row was damaged.
pub(super) fn unsigned(n: i64, what: &str) -> Result<u64, HostError> {
    u64::try_from(n).map_err(|_| error::corrupt(what, n))
}

/// Every row query selects `id, seq-or-ord, body` in that order.
fn to_row(r: &postgres::Row, what: &str) -> Result<Row, HostError> {
    let cells = (|| Ok::<_, postgres::Error>((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))();
    let (id, seq, body): (String, i64, String) = cells.map_err(|e| {
        let e = error::host(&format!("cannot read {what}"), e);
        rewind_core::HostError::new(rewind_core::HostErrorKind::Corrupt, e.message().to_owned())
    })?;
    Ok(Row {
        id,
        seq: unsigned(seq, what)?,
        body,
    })
}

/// A range's bounds as `BIGINT`s (`u64::MAX`, open-ended, becomes `i64::MAX`).
fn bounds(range: SeqRange) -> (i64, i64) {
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    (clamp(range.from), clamp(range.to))
}

impl PgStore {
    fn rows(
        &self,
        sql: &'static str,
        params: Params<'_>,
        what: &str,
    ) -> Result<Vec<Row>, HostError> {
        let found = self.with_conn(what, |c, cache| stmt(c, cache, sql)?.query(c, params))?;
        found.iter().map(|r| to_row(r, what)).collect()
    }

    fn row(
        &self,
        sql: &'static str,
        params: Params<'_>,
        what: &str,
    ) -> Result<Option<Row>, HostError> {
        let found = self.with_conn(what, |c, cache| stmt(c, cache, sql)?.query_opt(c, params))?;
        found.as_ref().map(|r| to_row(r, what)).transpose()
    }

    /// One `BIGINT` (`None`: no row), as a count.
    fn number(
        &self,
        sql: &'static str,
        params: Params<'_>,
        what: &str,
    ) -> Result<Option<u64>, HostError> {
        let found = self.with_conn(what, |c, cache| {
            stmt(c, cache, sql)?
                .query_opt(c, params)?
                .map(|r| r.try_get::<_, i64>(0))
                .transpose()
        })?;
        found.map(|n| unsigned(n, what)).transpose()
    }

    /// How many turns start in a seq range (the picker numbers its rows with it).
    pub fn turn_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        let (from, to) = bounds(range);
        let sql = "SELECT count(*) FROM turns WHERE session_id = $1 AND seq >= $2 AND seq < $3";
        let what = format!("the turns of session {session}");
        Ok(self
            .number(sql, &[&session.as_str(), &from, &to], &what)?
            .unwrap_or(0))
    }

    /// The turn `n` places from the first (or, `from_end`, the last) whose prompt seq lies in
    /// `range`: one walk of the `turns_by_seq` index to the offset, one row read.
    pub fn turn_at_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        n: u64,
        from_end: bool,
    ) -> Result<Option<Row>, HostError> {
        let (from, to) = bounds(range);
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let sql = if from_end {
            "SELECT id, seq, body FROM turns WHERE session_id = $1 AND seq >= $2 AND seq < $3
             ORDER BY seq DESC, id DESC LIMIT 1 OFFSET $4"
        } else {
            "SELECT id, seq, body FROM turns WHERE session_id = $1 AND seq >= $2 AND seq < $3
             ORDER BY seq, id LIMIT 1 OFFSET $4"
        };
        let what = format!("a turn of session {session}");
        self.row(sql, &[&session.as_str(), &from, &to, &n], &what)
    }
}

impl Store for PgStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        let sql = "SELECT id, ord, body FROM sessions WHERE id = $1";
        self.row(sql, &[&id.as_str()], &format!("session {id}"))
    }

    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, ord, body FROM sessions ORDER BY ord",
            &[],
            "sessions",
        )
    }

    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let sql = "SELECT id, seq, body FROM messages WHERE session_id = $1 ORDER BY seq";
        self.rows(
            sql,
            &[&session.as_str()],
            &format!("messages of session {session}"),
        )
    }

    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        let sql = "SELECT id, seq, body FROM turns WHERE session_id = $1 AND id = $2";
        let what = format!("turn {turn} of session {session}");
        self.row(sql, &[&session.as_str(), &turn.as_str()], &what)
    }

    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let sql = "SELECT id, seq, body FROM turns WHERE session_id = $1 ORDER BY seq, id";
        self.rows(
            sql,
            &[&session.as_str()],
            &format!("turns of session {session}"),
        )
    }

    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let sql = "SELECT id, seq, body FROM checkpoints WHERE session_id = $1 ORDER BY seq";
        self.rows(
            sql,
            &[&session.as_str()],
            &format!("checkpoints of session {session}"),
        )
    }

    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let sql = "SELECT id, ord, body FROM operations WHERE session_id = $1 ORDER BY ord";
        self.rows(
            sql,
            &[&session.as_str()],
            &format!("operations of session {session}"),
        )
    }

    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.rows(
            "SELECT id, ord, body FROM journals ORDER BY ord",
            &[],
            "journals",
        )
    }

    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        let mut conn = self.conn.try_borrow_mut().map_err(|_| {
            HostError::io(format!(
                "cannot read blob {}: the connection is in use",
                hash.short()
            ))
        })?;
        let super::Conn { client, cache, .. } = &mut **conn;
        let rows = super::blobs::Rows::new(client, cache);
        crate::store::blobs::read(&rows, hash, self.blob_limit)
    }

    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        let listed = self.with_conn("blobs", |c, cache| {
            let sql = "SELECT hash, coalesce(size, octet_length(bytes)::bigint),
                              octet_length(bytes)::bigint, base FROM blobs ORDER BY hash";
            let rows = stmt(c, cache, sql)?.query(c, &[])?;
            rows.iter()
                .map(|r| {
                    Ok((
                        r.try_get::<_, String>(0)?,
                        r.try_get::<_, i64>(1)?,
                        r.try_get::<_, i64>(2)?,
                        r.try_get::<_, Option<String>>(3)?,
                    ))
                })
                .collect::<Result<Vec<_>, postgres::Error>>()
        })?;
        Ok(listed
            .into_iter()
            .filter_map(crate::store::blobs::listed)
            .collect())
    }

    fn version(&self) -> Result<u64, HostError> {
        let sql = "SELECT value FROM meta WHERE key = 'version'";
        Ok(self.number(sql, &[], "the store version")?.unwrap_or(0))
    }

    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError> {
        let sql = "SELECT command_id, 0::bigint, body FROM command_facts
                   WHERE parent_id = $1 AND command_id = $2";
        self.row(sql, &[&parent.as_str(), &command.as_str()], "command facts")
    }

    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        let what = format!("the last seq of session {session}");
        Ok(self
            .number(LAST_SEQ, &[&session.as_str()], &what)?
            .unwrap_or(0))
    }

    fn message(&self, session: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        let sql = "SELECT id, seq, body FROM messages WHERE session_id = $1 AND id = $2";
        let what = format!("message {id} of session {session}");
        self.row(sql, &[&session.as_str(), &id.as_str()], &what)
    }

    fn messages_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        let sql = "SELECT id, seq, body FROM messages
                   WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq";
        let what = format!("messages of session {session}");
        self.rows(sql, &[&session.as_str(), &from, &to], &what)
    }

    fn last_messages_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        limit: usize,
    ) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = "SELECT id, seq, body FROM messages
                   WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq DESC LIMIT $4";
        let what = format!("messages of session {session}");
        let mut rows = self.rows(sql, &[&session.as_str(), &from, &to, &limit], &what)?;
        rows.reverse();
        Ok(rows)
    }

    fn message_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        let (from, to) = bounds(range);
        // The ord of the first message at or after each bound (or the count of all messages
        // past the end), subtracted: two index seeks, not a scan.
        let sql = "WITH total(n) AS (SELECT coalesce((SELECT ord + 1 FROM messages
                       WHERE session_id = $1 ORDER BY seq DESC LIMIT 1), 0))
             SELECT greatest(0::bigint,
                 coalesce((SELECT ord FROM messages WHERE session_id = $1 AND seq >= $3
                           ORDER BY seq LIMIT 1), (SELECT n FROM total))
               - coalesce((SELECT ord FROM messages WHERE session_id = $1 AND seq >= $2
                           ORDER BY seq LIMIT 1), (SELECT n FROM total)))";
        let what = format!("the messages of session {session}");
        Ok(self
            .number(sql, &[&session.as_str(), &from, &to], &what)?
            .unwrap_or(0))
    }

    fn boundaries(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let sql = "SELECT id, seq, body FROM messages WHERE session_id = $1 AND boundary
                   ORDER BY seq";
        let what = format!("compaction summaries of session {session}");
        self.rows(sql, &[&session.as_str()], &what)
    }

    fn turns_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        let sql = "SELECT id, seq, body FROM turns
                   WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq, id";
        let what = format!("turns of session {session}");
        self.rows(sql, &[&session.as_str(), &from, &to], &what)
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
        let sql = "SELECT id, seq, body FROM checkpoints WHERE session_id = $1 AND id = $2";
        let what = format!("checkpoint {id} of session {session}");
        self.row(sql, &[&session.as_str(), &id.as_str()], &what)
    }

    fn checkpoints_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let (from, to) = bounds(range);
        let sql = "SELECT id, seq, body FROM checkpoints
                   WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq";
        let what = format!("checkpoints of session {session}");
        self.rows(sql, &[&session.as_str(), &from, &to], &what)
    }

    fn turn_checkpoints(&self, session: &SessionId, turn: &TurnId) -> Result<Vec<Row>, HostError> {
        if self.conn.borrow().schema < super::schema::TURN_VERSION {
            return WholeReads(self).turn_checkpoints(session, turn);
        }
        let sql = "SELECT id, seq, body FROM checkpoints
                   WHERE session_id = $1 AND turn_id = $2 ORDER BY seq";
        let what = format!("the checkpoints of turn {turn} of session {session}");
        self.rows(sql, &[&session.as_str(), &turn.as_str()], &what)
    }

    fn session_bytes(&self, session: &SessionId) -> Result<u64, HostError> {
        let sql = "SELECT bytes FROM sessions WHERE id = $1";
        let what = format!("the size of session {session}");
        Ok(self.number(sql, &[&session.as_str()], &what)?.unwrap_or(0))
    }

    fn workspace_snapshot(&self, session: &SessionId) -> Result<Option<Row>, HostError> {
        let sql =
            "SELECT session_id, 0::bigint, body FROM workspace_snapshots WHERE session_id = $1";
        self.row(sql, &[&session.as_str()], "workspace snapshots")
    }

    fn has_blob(&self, hash: &ContentHash) -> Result<bool, HostError> {
        let what = format!("blob {}", hash.short());
        let sql = "SELECT 1::bigint FROM blobs WHERE hash = $1";
        Ok(self.number(sql, &[&hash.as_str()], &what)?.is_some())
    }
}
