//! Facts about the store itself (`store_info`: which workspace it acts on, who may act on it)
//! and ids by prefix, as the SQLite store has them (see `crate::store::IdTable`).

use super::stmt::once;
use super::{PgStore, error};
use crate::store::{IdTable, PrefixScan};
use rewind_core::HostError;
use rewind_core::id::SessionId;
use std::collections::HashMap;

/// Every fact of a store, by key: a handful of short rows.
pub(super) type Facts = HashMap<String, String>;

impl PgStore {
    /// The value stored under `key`, if any. The facts are read once per store, all together
    /// (with the schema check when the open made a new connection, see `schema::look`): they
    /// are what an open checks the store against (`native::trust`), several keys each time,
    /// and they change only through [`PgStore::set_info`] (which keeps this store's copy
    /// current) or another process's claim of the store, which an open made before it could
    /// not have seen either.
    pub fn info(&self, key: &str) -> Result<Option<String>, HostError> {
        let mut facts = self.facts.borrow_mut();
        if facts.is_none() {
            let rows = self.with_conn("the store's facts", |c, _| {
                once("SELECT key, value FROM store_info").query(c, &[])
            })?;
            let read = rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<Facts, postgres::Error>>()
                .map_err(|e| error::host("cannot read the store's facts", e))?;
            *facts = Some(read);
        }
        Ok(facts.as_ref().and_then(|f| f.get(key).cloned()))
    }

    /// Store each value under its key (one small transaction of its own).
    pub fn set_info(&mut self, pairs: &[(&str, &str)]) -> Result<(), HostError> {
        let fail = |e| error::host("cannot record the store's own facts", e);
        let conn = self.conn.get_mut();
        let mut tx = conn.client.transaction().map_err(fail)?;
        for (key, value) in pairs {
            once(
                "INSERT INTO store_info (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )
            .execute(&mut tx, &[key, value])
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
        if let Some(facts) = self.facts.get_mut() {
            facts.extend(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            );
        }
        Ok(())
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
            Some(s) => once(&format!(
                "SELECT id FROM {name} WHERE session_id = $4 AND id >= $1 AND id < $2
                 ORDER BY id LIMIT $3"
            ))
            .query(c, &[&prefix, &hi, &limit, &s]),
            None => once(&format!(
                "SELECT id FROM {name} WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3"
            ))
            .query(c, &[&prefix, &hi, &limit]),
        })?;
        found
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()
            .map_err(|e| error::host("cannot look up ids by prefix", e))
    }
}
