//! The apply lock in PostgreSQL: a session-level advisory lock, taken with
//! `pg_try_advisory_lock` on a connection of its own. The server releases a session's advisory
//! locks when its connection ends, however it ends (the process exits, is killed, its machine
//! goes away once TCP notices), which is what the SQLite host's `flock` gives on one machine:
//! a free lock proves that no journal in the database has a live owner.
//!
//! Its own connection, because the lock must outlive statements and transactions of the store's
//! connection and must never be dropped with a failed one. Differences from the lock file: it
//! spans every machine that reaches the database (one lock per database, not per directory),
//! and a server restart drops it while its holder still runs; a holder notices on its next
//! statement (the connection is gone) and fails instead of committing (see `PgStore::commit`).
//!
//! The connection is made when the lock is first wanted, not with the store: recording and
//! reading never take it. In a process that keeps idle connections (`pool`) it comes from
//! there and goes back holding no advisory lock: `pg_advisory_unlock_all()` first, which is
//! what ending the connection would have done, so a lock never outlives its operation.

use super::{Conn, connect, pool};
use crate::store::lock::Exclusive;
use postgres::types::Type;
use postgres::{Client, Config};
use rewind_core::HostError;

/// Advisory lock key of the apply lock ("rewind" in ASCII, then 2; migrations use 1).
const APPLY_KEY: i64 = 0x7265_7769_6e64_0002;

pub(super) struct AdvisoryLock {
    /// Boxed: connection settings are large, and the lock only reads them to (re)connect.
    config: Box<Config>,
    location: String,
    /// Opened on first use; kept for the store's life (taking the lock again is one query).
    client: Option<Client>,
    /// Where the connection comes from and goes back to, in a process that keeps connections.
    kept: Option<pool::Key>,
}

impl AdvisoryLock {
    pub(super) fn new(config: Config, location: String, kept: Option<pool::Key>) -> Self {
        Self {
            config: Box::new(config),
            location,
            client: None,
            kept,
        }
    }

    fn connection(&mut self) -> Result<&mut Client, HostError> {
        let client = match self.client.take() {
            Some(c) if !c.is_closed() => c,
            _ => match self.kept.as_ref().and_then(pool::take) {
                Some(conn) => conn.client,
                None => connect(&self.config, &self.location, false)?,
            },
        };
        Ok(self.client.insert(client))
    }
}

impl Drop for AdvisoryLock {
    fn drop(&mut self) {
        if let (Some(key), Some(mut client)) = (self.kept.take(), self.client.take())
            && client
                .batch_execute("SELECT pg_advisory_unlock_all()")
                .is_ok()
        {
            let cache = std::collections::HashMap::new();
            let schema = super::schema::SCHEMA_VERSION;
            pool::give_back(
                key,
                Conn {
                    client,
                    cache,
                    schema,
                },
            );
        }
    }
}

impl Exclusive for AdvisoryLock {
    fn try_acquire(&mut self) -> Result<bool, HostError> {
        let what = format!("cannot take the apply lock of {}", self.location);
        self.connection()?
            .query_typed_one(
                "SELECT pg_try_advisory_lock($1)",
                &[(&APPLY_KEY, Type::INT8)],
            )
            .and_then(|r| r.try_get(0))
            .map_err(|e| super::error::host(&what, e))
    }

    fn release(&mut self) {
        let unlocked = self.client.as_mut().is_some_and(|c| {
            c.query_typed_one("SELECT pg_advisory_unlock($1)", &[(&APPLY_KEY, Type::INT8)])
                .and_then(|r| r.try_get::<_, bool>(0))
                .unwrap_or(false)
        });
        // Ending the session releases the lock as surely.
        if !unlocked {
            self.client = None;
        }
    }

    fn describe(&self) -> String {
        format!(
            "the apply lock of {}, a PostgreSQL advisory lock",
            self.location
        )
    }
}

impl std::fmt::Debug for AdvisoryLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdvisoryLock")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}
