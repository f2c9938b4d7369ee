//! The ports a verb runs against, bundled so verb signatures stay short.

use crate::id;
use crate::model::Millis;
use crate::ports::{Clock, IdSource, StoreWrite, TurnControl, Workspace};

/// Settings that bound what the engine records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Files larger than this are recorded as failed captures (`too_large`), never stored.
    pub max_file_bytes: u64,
    /// Content bytes one session may reference; an edit that would go past it is recorded as a
    /// failed capture (`quota_exceeded`). `None`: no quota.
    pub session_quota_bytes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 10 * 1024 * 1024,
            session_quota_bytes: None,
        }
    }
}

/// Everything a verb may touch.
pub struct Ports<'a> {
    /// Records.
    pub store: &'a mut dyn StoreWrite,
    /// Files.
    pub workspace: &'a mut dyn Workspace,
    /// Time.
    pub clock: &'a dyn Clock,
    /// Fresh ids.
    pub ids: &'a mut dyn IdSource,
    /// Stops background work of removed turns, when the host has any.
    pub turn_control: Option<&'a mut dyn TurnControl>,
    /// Recording limits.
    pub limits: Limits,
}

impl std::fmt::Debug for Ports<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ports")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Ports<'_> {
    /// The host's current time.
    pub fn now(&self) -> Millis {
        self.clock.now_ms()
    }

    /// A fresh id of the requested kind.
    pub fn mint<T: id::Mint>(&mut self) -> T {
        T::mint(&self.ids.next_suffix())
    }
}
