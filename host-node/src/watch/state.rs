//! The watcher's journal, shared by its inotify reader and its socket.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// The journal.
#[derive(Debug, Default)]
pub(super) struct Journal {
    /// This watcher's identity: tokens of another one never match.
    pub(super) epoch: u64,
    /// The number of the latest change.
    pub(super) seq: u64,
    /// Tokens older than this cannot be vouched for (an overflow, a lost watch, a moved
    /// directory, an ignore file changed, the journal full).
    pub(super) lost_at: u64,
    /// Every watch is in place.
    pub(super) ready: bool,
    /// Each changed path (relative to the root) and the number of its latest change.
    pub(super) changes: HashMap<String, u64>,
    /// The highest cookie the inotify queue delivered.
    pub(super) cookies_seen: u64,
    /// When the last question came.
    pub(super) asked: Option<Instant>,
    pub(super) max_paths: usize,
}

impl Journal {
    pub(super) fn record(&mut self, rel: String) {
        self.seq += 1;
        self.changes.insert(rel, self.seq);
        if self.changes.len() > self.max_paths {
            self.changes.clear();
            self.lose();
        }
    }

    /// Nothing numbered before now can be trusted.
    pub(super) fn lose(&mut self) {
        self.seq += 1;
        self.lost_at = self.seq;
    }
}

/// The journal shared by the inotify reader and the socket.
pub(super) struct Shared {
    pub(super) journal: Mutex<Journal>,
    /// Signalled when a cookie arrives.
    pub(super) cookie: Condvar,
}

pub(super) fn lock(s: &Shared) -> MutexGuard<'_, Journal> {
    s.journal.lock().unwrap_or_else(PoisonError::into_inner)
}
