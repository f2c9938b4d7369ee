//! Test hosts (feature `testkit`, which includes `mem`): the in-memory store with commit faults,
//! an in-memory workspace with fault injection, deterministic time and ids, and the
//! contract-test macros every adapter runs.
//!
//! The memory hosts are first-class hosts: the wasm package's `Engine.inMemory` is built on
//! [`MemStore`] (from [`crate::mem`], which the package uses without this kit), and every JSON
//! scenario runs against them.

pub mod batches;
mod contract;
mod contract_in_doubt;
mod contract_lifecycle;
mod contract_range;
mod contract_snapshot;
mod contract_turn;
mod contract_workspace;
mod faults;
mod faulty;
mod mem_workspace;

pub use crate::mem::MemStore;
pub(crate) use faults::in_doubt;
pub use faults::{Fault, FaultOp, Faults};
pub use faulty::Faulty;
pub use mem_workspace::MemWorkspace;

use crate::model::Millis;
use crate::ports::{Clock, IdSource};
use std::cell::Cell;

/// A clock that starts at a fixed instant and moves one millisecond per reading, so every
/// recorded time differs and tests stay deterministic.
#[derive(Debug)]
pub struct TickClock {
    next: Cell<Millis>,
}

impl TickClock {
    /// Start at `start` milliseconds since the epoch.
    pub fn new(start: Millis) -> Self {
        Self {
            next: Cell::new(start),
        }
    }
}

impl Default for TickClock {
    fn default() -> Self {
        // 2026-01-01T00:00:00Z: a fixed, readable instant.
        Self::new(1_767_225_600_000)
    }
}

impl Clock for TickClock {
    fn now_ms(&self) -> Millis {
        let now = self.next.get();
        self.next.set(now + 1);
        now
    }
}

/// Ids `…_0001`, `…_0002`, … in order of minting.
#[derive(Debug, Default)]
pub struct SeqIds {
    next: u64,
}

impl SeqIds {
    /// Start after `n` (use distinct starts for stores shared by several engines).
    pub fn starting_after(n: u64) -> Self {
        Self { next: n }
    }
}

impl IdSource for SeqIds {
    fn next_suffix(&mut self) -> String {
        self.next += 1;
        format!("{:04}", self.next)
    }
}
