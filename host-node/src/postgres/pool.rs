//! Idle connections kept for the next open in the same process, for a process that opens the
//! store again and again (`rewind serve`, see [`keep_idle_connections`]): a new PostgreSQL
//! connection costs a server process and its setup, several milliseconds, where a call's own
//! work is a few statements. Off by default: a one-shot CLI command opens once.
//!
//! A connection is given back only when it is open, and with no transaction under way (every
//! transaction of the store has ended by the time its store is dropped) and no advisory lock
//! held (the apply lock's connection unlocks everything first), so the next user finds it as a
//! new one, except for the statements it has prepared, which are what the reuse is for. Kept per
//! connection string and kind (reading only, or also writing).

use super::Conn;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

/// Which connections one kept connection may stand in for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    /// The connection string as the caller gave it.
    pub(super) url: String,
    /// A connection whose transactions are all read-only.
    pub(super) read_only: bool,
}

#[derive(Default)]
struct Pool {
    /// How many idle connections are kept per key; 0: none (the default).
    keep: usize,
    idle: HashMap<Key, Vec<Conn>>,
    /// Connection strings whose schema this process has found (or made) up to date.
    current: HashSet<String>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

fn pool() -> MutexGuard<'static, Option<Pool>> {
    // A poisoned pool only holds connections; what it held is still sound.
    POOL.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Keep up to `per_store` idle connections per store (and kind) for later opens in this
/// process, and check each store's schema once: for a server that opens a store per request.
/// 0 turns keeping off again and closes what was kept.
pub fn keep_idle_connections(per_store: usize) {
    let mut p = pool();
    if per_store == 0 {
        *p = None;
        return;
    }
    p.get_or_insert_with(Pool::default).keep = per_store;
}

/// Whether connections are kept at all.
pub(super) fn enabled() -> bool {
    pool().as_ref().is_some_and(|p| p.keep > 0)
}

/// A kept connection for `key`, if there is one.
pub(super) fn take(key: &Key) -> Option<Conn> {
    let mut p = pool();
    let idle = p.as_mut()?.idle.get_mut(key)?;
    while let Some(conn) = idle.pop() {
        if !conn.client.is_closed() {
            return Some(conn);
        }
    }
    None
}

/// Keep `conn` for the next open of `key`, or let it close when keeping is off or full.
pub(super) fn give_back(key: Key, conn: Conn) {
    if conn.client.is_closed() {
        return;
    }
    let mut p = pool();
    let Some(pool) = p.as_mut() else { return };
    let keep = pool.keep;
    let idle = pool.idle.entry(key).or_default();
    if idle.len() < keep {
        idle.push(conn);
    }
}

/// Whether this process already found the schema at `url` up to date (only while keeping).
pub(super) fn schema_current(url: &str) -> bool {
    pool().as_ref().is_some_and(|p| p.current.contains(url))
}

/// Remember that the schema at `url` is up to date (only while keeping).
pub(super) fn mark_schema_current(url: &str) {
    if let Some(p) = pool().as_mut() {
        p.current.insert(url.to_owned());
    }
}
