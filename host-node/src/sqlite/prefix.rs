//! Ids by prefix, for people typing short ids (`rewind undo 3f2a`). Each lookup is one range
//! scan of the id's unique index, so its cost does not grow with the session.

use super::{SqliteStore, error};
use crate::store::IdTable;
use rewind_core::HostError;
use rewind_core::id::SessionId;

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
}
