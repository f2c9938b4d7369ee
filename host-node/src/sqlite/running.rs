//! What a batch keeps count of while it is applied (see [`Running`]).

use super::exec;
use rewind_core::id::SessionId;
use rusqlite::{Connection, OptionalExtension, params};

/// What one batch keeps count of as it goes, so that a batch of tens of thousands of rows (a
/// fork) runs one statement per row and no more: a query per row, which SQLite re-plans on each
/// new bound value, once cost a fork most of its time.
///
/// * `ord`: how many messages of the session come before a new one. The core only appends, so
///   that is the previous row's ord + 1; the session's newest row is read once per batch. A row
///   slipped in below others (the core never does this) is counted and moves their ords up.
/// * `bytes`: the change of each session's byte total, written once at the end.
#[derive(Default)]
pub(super) struct Running {
    /// Per session: the seq and ord of its newest message, as this batch left it.
    last: std::collections::BTreeMap<String, (i64, i64)>,
    /// Per session: bytes added (or, negative, given back) by this batch.
    bytes: std::collections::BTreeMap<String, i64>,
}

impl Running {
    pub(super) fn add_bytes(&mut self, session: &SessionId, bytes: i64) {
        *self.bytes.entry(session.to_string()).or_default() += bytes;
    }

    pub(super) fn flush(&self, conn: &Connection) -> rusqlite::Result<()> {
        for (session, bytes) in self.bytes.iter().filter(|(_, b)| **b != 0) {
            exec(
                conn,
                "UPDATE sessions SET bytes = max(bytes + ?2, 0) WHERE id = ?1",
                params![session, bytes],
            )?;
        }
        Ok(())
    }

    pub(super) fn next_ord(
        &mut self,
        conn: &Connection,
        session: &SessionId,
        seq: i64,
    ) -> rusqlite::Result<i64> {
        let last = match self.last.get(session.as_str()) {
            Some(known) => Some(*known),
            None => conn
                .prepare_cached(
                    "SELECT seq, ord FROM messages WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1",
                )?
                .query_row([session.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?,
        };
        let ord = match last {
            None => 0,
            Some((last_seq, last_ord)) if last_seq < seq => last_ord + 1,
            Some(newest) => {
                exec(
                    conn,
                    "UPDATE messages SET ord = ord + 1 WHERE session_id = ?1 AND seq > ?2",
                    params![session.as_str(), seq],
                )?;
                let ord = conn
                    .prepare_cached(
                        "SELECT count(*) FROM messages WHERE session_id = ?1 AND seq < ?2",
                    )?
                    .query_row(params![session.as_str(), seq], |r| r.get(0))?;
                self.last
                    .insert(session.to_string(), (newest.0, newest.1 + 1));
                return Ok(ord);
            }
        };
        self.last.insert(session.to_string(), (seq, ord));
        Ok(ord)
    }
}
