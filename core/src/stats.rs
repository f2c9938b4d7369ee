//! Storage statistics: what was recorded versus what is stored, to show what content
//! addressing and compression save.

use crate::ctx::Ports;
use crate::load::{self, SessionLog};
use serde::Serialize;
use std::collections::BTreeSet;

/// Bytes recorded versus bytes stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Sessions.
    pub sessions: usize,
    /// Checkpoints.
    pub checkpoints: usize,
    /// Recorded file changes.
    pub file_changes: usize,
    /// What storing every before and after of every change in full would take.
    pub logical_bytes: u64,
    /// Distinct contents (what content addressing keeps).
    pub unique_bytes: u64,
    /// What the store actually holds for them (after compression, where the store compresses).
    pub stored_bytes: u64,
    /// Blobs in the store.
    pub blobs: usize,
}

/// Gather storage statistics over every session.
pub fn stats(p: &Ports<'_>) -> Result<Stats, load::Error> {
    let mut out = Stats::default();
    let sessions = load::sessions(p.store)?;
    out.sessions = sessions.items.len();
    let mut referenced = BTreeSet::new();
    for s in &sessions.items {
        let log = SessionLog::load(p.store, &s.id)?;
        out.checkpoints += log.checkpoints.len();
        for c in &log.checkpoints {
            out.file_changes += c.changes.len();
            for v in c
                .changes
                .iter()
                .flat_map(|ch| [&ch.before, &ch.after])
                .flatten()
            {
                out.logical_bytes += v.size;
                referenced.insert(v.hash.clone());
            }
        }
    }
    for b in p.store.blobs()? {
        out.blobs += 1;
        out.stored_bytes += b.stored;
        if referenced.contains(&b.hash) {
            out.unique_bytes += b.size;
        }
    }
    Ok(out)
}
