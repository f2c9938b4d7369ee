//! Facts about the store itself (`store_info`, schema version 4): which workspace it belongs to
//! and who may act on it. Read tolerantly: an older store (or a read-only open of one) has no
//! such table and simply knows nothing.

use super::{SqliteStore, error};
use rewind_core::HostError;
use rusqlite::OptionalExtension;

impl SqliteStore {
    /// The value stored under `key`, if any.
    pub fn info(&self, key: &str) -> Result<Option<String>, HostError> {
        let has_table: bool = self
            .conn
            .prepare_cached(
                "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'store_info'",
            )
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(|e| error::host("cannot read the store's own facts", e))?;
        if !has_table {
            return Ok(None);
        }
        self.conn
            .prepare_cached("SELECT value FROM store_info WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .map_err(|e| error::host(&format!("cannot read store fact {key}"), e))
    }

    /// Store `value` under `key` (one small transaction of its own).
    pub fn set_info(&mut self, pairs: &[(&str, &str)]) -> Result<(), HostError> {
        let fail = |e| error::host("cannot record the store's own facts", e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        for (key, value) in pairs {
            tx.execute(
                "INSERT INTO store_info (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }
}
