//! Facts about the store itself (`store_info`: which workspace it acts on, who may act on it)
//! and ids by prefix, as the SQLite store has them (see `crate::store::IdTable`).

use super::{PgStore, error, prepared};
use crate::store::{IdTable, PrefixScan};
use rewind_core::HostError;
use rewind_core::id::SessionId;

impl PgStore {
    /// The value stored under `key`, if any.
    pub fn info(&self, key: &str) -> Result<Option<String>, HostError> {
        let what = format!("store fact {key}");
        self.with_conn(&what, |c, cache| {
            let s = prepared(c, cache, "SELECT value FROM store_info WHERE key = $1")?;
            c.query_opt(&s, &[&key])?.map(|r| r.try_get(0)).transpose()
        })
    }

    /// Store each value under its key (one small transaction of its own).
    pub fn set_info(&mut self, pairs: &[(&str, &str)]) -> Result<(), HostError> {
        let fail = |e| error::host("cannot record the store's own facts", e);
        let conn = self.conn.get_mut();
        let mut tx = conn.client.transaction().map_err(fail)?;
        for (key, value) in pairs {
            tx.execute(
                "INSERT INTO store_info (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[key, value],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    /// Up to `limit` ids of `table` starting with `prefix`, sorted; within `session` for the
    /// tables that belong to one. A range of the id index (ids are `COLLATE "C"`), as SQLite.
    pub fn ids_with_prefix(
        &self,
        table: IdTable,
        session: Option<&SessionId>,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, HostError> {
        if !prefix.is_ascii() {
            return Ok(Vec::new());
        }
        let (name, per_session, hi) = table.prefix_scan(prefix);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let scope = session.filter(|_| per_session).map(SessionId::as_str);
        let found = self.with_conn("ids by prefix", |c, _| match scope {
            Some(s) => c.query(
                &format!(
                    "SELECT id FROM {name} WHERE session_id = $4 AND id >= $1 AND id < $2
                     ORDER BY id LIMIT $3"
                ),
                &[&prefix, &hi, &limit, &s],
            ),
            None => c.query(
                &format!("SELECT id FROM {name} WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3"),
                &[&prefix, &hi, &limit],
            ),
        })?;
        found
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(|e| error::host("cannot look up ids by prefix", e))
    }
}
