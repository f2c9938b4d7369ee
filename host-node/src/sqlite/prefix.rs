//! Ids by prefix, for people typing short ids (`rewind undo 3f2a`), and turns by position
//! (`#3`, `@`). Each lookup is one range scan of an index, so its cost does not grow with the
//! length of the session.

use super::{SqliteStore, error, read};
use crate::store::{IdTable, PrefixScan};
use rewind_core::HostError;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::ports::{Row, SeqRange, Store, WholeReads};
use rusqlite::OptionalExtension;

impl SqliteStore {
    /// Up to `limit` ids of `table` starting with `prefix`, sorted; within `session` for the
    /// tables that belong to one (every table but sessions and journals; operations also
    /// store-wide without one).
    pub fn ids_with_prefix(
        &self,
        table: IdTable,
        session: Option<&SessionId>,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, HostError> {
        let fail = |e| error::host("cannot look up ids by prefix", e);
        if !prefix.is_ascii() {
            return Ok(Vec::new());
        }
        let (name, per_session, hi) = table.prefix_scan(prefix);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // `id >= lo AND id < hi` rather than LIKE or GLOB: ids are ASCII and case matters, and a
        // range is what SQLite turns into a seek of the (session_id, id) or id index.
        let scope = match session {
            Some(s) if per_session => Some(s.as_str()),
            _ => None,
        };
        let sql = if scope.is_some() {
            format!(
                "SELECT id FROM {name} WHERE session_id = ?4 AND id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3"
            )
        } else {
            format!("SELECT id FROM {name} WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3")
        };
        let mut stmt = self.conn.prepare_cached(&sql).map_err(fail)?;
        let params: Vec<&dyn rusqlite::ToSql> = match &scope {
            Some(s) => vec![&prefix, &hi, &limit, s],
            None => vec![&prefix, &hi, &limit],
        };
        stmt.query_map(params.as_slice(), |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(fail)
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
        let (from, to) = read::bounds(range);
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let sql = if from_end {
            "SELECT id, seq, body FROM turns WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq DESC, id DESC LIMIT 1 OFFSET ?4"
        } else {
            "SELECT id, seq, body FROM turns WHERE session_id = ?1 AND seq >= ?2 AND seq < ?3
             ORDER BY seq, id LIMIT 1 OFFSET ?4"
        };
        let params = rusqlite::params![session.as_str(), from, to, n];
        let run = || {
            self.conn
                .prepare_cached(sql)?
                .query_row(params, read::to_row)
        };
        run()
            .optional()
            .map_err(|e| error::host(&format!("cannot read a turn of session {session}"), e))
    }
}

impl SqliteStore {
    /// The checkpoints recorded into `turn`, by seq: one range of `checkpoints_by_turn`. A
    /// read-only open of a store older than that index scans instead.
    pub fn turn_checkpoints(
        &self,
        session: &SessionId,
        turn: &TurnId,
    ) -> Result<Vec<Row>, HostError> {
        if self.schema < super::schema::TURN_VERSION {
            return WholeReads(self).turn_checkpoints(session, turn);
        }
        let run = || -> rusqlite::Result<Vec<Row>> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT id, seq, body FROM checkpoints WHERE session_id = ?1 AND turn_id = ?2
                 ORDER BY seq",
            )?;
            let rows = stmt.query_map([session.as_str(), turn.as_str()], read::to_row)?;
            rows.collect()
        };
        run().map_err(|e| {
            error::host(
                &format!("cannot read the checkpoints of turn {turn} of session {session}"),
                e,
            )
        })
    }
}
