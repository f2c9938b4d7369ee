//! Idle connections kept for the next open of the same PostgreSQL store in this process, once
//! [`keep_idle_connections`] turned it on: for a process that opens the store again and again
//! (`rewind serve`). A new connection costs a server process, its authentication and its first
//! catalog lookups, several milliseconds, where a call's own work is a few statements. A
//! one-shot CLI command opens once and keeps nothing.
//!
//! The schema is checked (and migrated) once per connection: a kept connection has been
//! through an open of its store already, so the next open on it skips the check. A database
//! made again (dropped, restored) has lost its connections, and the next open checks anew.
//!
//! A connection comes back only open, with no transaction under way (every transaction of a
//! store has ended by the time the store is dropped) and holding no advisory lock (the apply
//! lock's connection unlocks everything first, see `lock`): locks belong to an operation,
//! never to the life of a kept connection. Kept per connection string and kind (reading only,
//! or also writing: the two differ in their session settings), with the statements they have
//! prepared, which are what the reuse is for. One taken from the pool is checked with an empty
//! query first, so one the server has closed meanwhile (a restart, an idle timeout) is replaced
//! instead of failing the call.

use super::Conn;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Which connections one kept connection may stand in for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    /// The connection string as the caller gave it.
    pub(super) url: String,
    /// A connection whose transactions are all read-only.
    pub(super) read_only: bool,
}

#[derive(Default)]
struct Kept {
    /// Idle connections kept per key at most; 0: none (the default).
    per_key: usize,
    idle: HashMap<Key, Vec<Conn>>,
}

static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

fn kept() -> MutexGuard<'static, Option<Kept>> {
    // A poisoned lock only guards connections and names; what it holds is still sound.
    KEPT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How long the check of a kept connection may take before a new one is made instead.
const CHECK_WAIT: Duration = Duration::from_secs(2);

/// Keep up to `per_store` idle connections per store (and kind) for later opens in this
/// process: for a server that opens a store per request. 0 turns keeping off again and closes
/// what was kept.
pub fn keep_idle_connections(per_store: usize) {
    let mut k = kept();
    let k = k.get_or_insert_with(Kept::default);
    k.per_key = per_store;
    if per_store == 0 {
        k.idle.clear();
    }
}

/// Whether connections are kept at all.
pub(super) fn enabled() -> bool {
    kept().as_ref().is_some_and(|k| k.per_key > 0)
}

/// A kept connection for `key` that still answers, if there is one.
pub(super) fn take(key: &Key) -> Option<Conn> {
    loop {
        let mut conn = kept().as_mut()?.idle.get_mut(key)?.pop()?;
        // Checked outside the lock: other opens need not wait for this round trip.
        if !conn.client.is_closed() && conn.client.is_valid(CHECK_WAIT).is_ok() {
            return Some(conn);
        }
    }
}

/// Keep `conn` for the next open of `key`, or let it close when keeping is off or full.
pub(super) fn give_back(key: Key, conn: Conn) {
    if conn.client.is_closed() {
        return;
    }
    let mut k = kept();
    let Some(k) = k.as_mut().filter(|k| k.per_key > 0) else {
        return;
    };
    let per_key = k.per_key;
    let idle = k.idle.entry(key).or_default();
    if idle.len() < per_key {
        idle.push(conn);
    }
}
