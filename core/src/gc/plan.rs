//! The gc plan: retention first (which sessions and checkpoints go), then reachability (which
//! blobs nothing still needs).

use super::retain::{self, has_running_turn, idle_limit};
use super::{Dropped, Error, Options, Plan, Protected, Tally, Totals};
use crate::ctx::Ports;
use crate::hash::ContentHash;
use crate::id::SessionId;
use crate::load::{self, SessionLog};
use crate::model::{Checkpoint, Journal, Millis};
use crate::ports::BlobInfo;
use std::collections::BTreeSet;

fn last_activity(log: &SessionLog) -> Millis {
    let m = log.messages.iter().map(|m| m.created_at);
    let c = log.checkpoints.iter().map(|c| c.created_at);
    let o = log.operations.iter().map(|o| o.created_at);
    m.chain(c)
        .chain(o)
        .fold(log.session.created_at, Millis::max)
}

fn hashes_of(c: &Checkpoint) -> impl Iterator<Item = &ContentHash> {
    c.changes
        .iter()
        .flat_map(|ch| [&ch.before, &ch.after])
        .flatten()
        .map(|v| &v.hash)
}

/// Plan a gc. Reads only.
pub fn plan(p: &Ports<'_>, opts: Options) -> Result<Plan, Error> {
    let idle = idle_limit(&opts)?;
    // Read the version first: anything committed after it invalidates this plan's batches.
    let version = p.store.version().map_err(Error::Store)?;
    let sessions = load::sessions(p.store)?;
    let journals = load::journals(p.store)?;
    let mut logs = Vec::with_capacity(sessions.items.len());
    for s in &sessions.items {
        logs.push(SessionLog::load(p.store, &s.id)?);
    }
    let mut undecodable = sessions.diagnostics.len() + journals.diagnostics.len();
    undecodable += logs
        .iter()
        .map(|l| {
            l.diagnostics
                .iter()
                .filter(|d| d.kind != "message" && d.kind != "turn")
                .count()
        })
        .sum::<usize>();

    // Retention of whole sessions: old, no pending journal, and every child dropped too.
    let journaled: BTreeSet<&SessionId> = journals.items.iter().map(|j| &j.session_id).collect();
    let now = p.now();
    let (dropped, protected) = match idle {
        Some(idle) => sessions_to_drop(&logs, &journaled, now.saturating_sub(idle)),
        None => (BTreeSet::new(), Vec::new()),
    };

    // A session's latest workspace snapshot is the before-state of its next shell checkpoint:
    // its manifests and every content they list live. One that cannot be read might list
    // anything: then no blob goes.
    let mut snapshot_hashes = Vec::new();
    for log in logs.iter().filter(|l| !dropped.contains(&l.session.id)) {
        match crate::shell::live_hashes(p.store, &log.session.id) {
            Ok(hashes) => snapshot_hashes.extend(hashes),
            Err(_) => undecodable += 1,
        }
    }
    // Retention of checkpoints and undo data in the sessions that stay; what they reference lives.
    let mut live: BTreeSet<&ContentHash> = snapshot_hashes.iter().collect();
    let mut checkpoints = Vec::new();
    let mut marks = Vec::new();
    for log in logs.iter().filter(|l| !dropped.contains(&l.session.id)) {
        retain_in(log, opts.keep, &mut live, &mut checkpoints, &mut marks);
    }
    for j in &journals.items {
        live.extend(journal_hashes(j));
    }

    // Reachability. A row that does not decode might reference anything: then no blob goes.
    let (blobs, blob_tally) = if undecodable == 0 {
        blobs_to_drop(p, live)?
    } else {
        (Vec::new(), Tally::default())
    };
    let sessions: Vec<SessionId> = dropped.into_iter().collect();
    Ok(Plan {
        totals: Totals {
            sessions: Tally {
                count: sessions.len(),
                bytes: 0,
            },
            checkpoints: Tally {
                count: checkpoints.len(),
                bytes: 0,
            },
            blobs: blob_tally,
        },
        sessions,
        checkpoints,
        blobs,
        protected,
        older_than_ms: idle,
        undecodable_rows: undecodable,
        marks,
        version,
    })
}

/// Retention of whole sessions idle since before `cutoff`: each goes unless a journal is pending
/// in it, a turn is running in it, or a child that stays needs it.
fn sessions_to_drop(
    logs: &[SessionLog],
    journaled: &BTreeSet<&SessionId>,
    cutoff: Millis,
) -> (BTreeSet<SessionId>, Vec<Protected>) {
    let mut protected = Vec::new();
    let mut dropped: BTreeSet<SessionId> = BTreeSet::new();
    for log in logs.iter().filter(|l| last_activity(l) < cutoff) {
        if journaled.contains(&log.session.id) {
            protected.push(Protected {
                session_id: log.session.id.clone(),
                reason: "pending_journal",
            });
        } else if has_running_turn(log) {
            protected.push(Protected {
                session_id: log.session.id.clone(),
                reason: "running_turn",
            });
        } else {
            dropped.insert(log.session.id.clone());
        }
    }
    // A live child keeps its parent (its inherited checkpoints and provenance point there).
    loop {
        let keep: Vec<SessionId> = dropped
            .iter()
            .filter(|id| {
                logs.iter().any(|l| {
                    l.session.parent_id.as_ref() == Some(id) && !dropped.contains(&l.session.id)
                })
            })
            .cloned()
            .collect();
        if keep.is_empty() {
            break;
        }
        for id in keep {
            dropped.remove(&id);
            protected.push(Protected {
                session_id: id,
                reason: "live_child",
            });
        }
    }
    (dropped, protected)
}

/// Retention inside a session that stays: its last `keep` checkpoints and file-writing
/// operations stay live with what they reference; older checkpoints go, and the session marks
/// its high-water seq so their seqs are never reused.
fn retain_in<'a>(
    log: &'a SessionLog,
    keep: usize,
    live: &mut BTreeSet<&'a ContentHash>,
    checkpoints: &mut Vec<Dropped>,
    marks: &mut Vec<crate::model::Session>,
) {
    let (kept, gone) = retain::split(log, keep);
    for c in kept {
        live.extend(hashes_of(c));
    }
    for (c, in_effect) in &gone {
        checkpoints.push(Dropped {
            session_id: log.session.id.clone(),
            checkpoint_id: c.id.clone(),
            seq: c.seq,
            in_effect: *in_effect,
        });
    }
    if !gone.is_empty() {
        let stored = log.messages.iter().map(|m| m.seq);
        let stored = stored.chain(log.checkpoints.iter().map(|c| c.seq)).max();
        let mut s = log.session.clone();
        s.seq_high_water = s.last_seq(stored.unwrap_or(0));
        marks.push(s);
    }
    let undoable = log
        .operations
        .iter()
        .rev()
        .filter(|o| o.kind.writes_files())
        .take(keep);
    live.extend(
        undoable
            .flat_map(|o| o.files.iter().flat_map(|f| [&f.before, &f.after]))
            .flatten(),
    );
}

/// Every content a pending journal names: its entries' priors and targets and its operation's
/// files; `recover` needs them all.
fn journal_hashes(j: &Journal) -> impl Iterator<Item = &ContentHash> {
    let entries = j.entries.iter().flat_map(|e| [&e.prior, &e.target]);
    let files = j.operation.files.iter().flat_map(|f| [&f.before, &f.after]);
    entries.chain(files).flatten()
}

/// Every stored blob nothing live reaches (through delta bases too), dependents first.
fn blobs_to_drop(
    p: &Ports<'_>,
    live: BTreeSet<&ContentHash>,
) -> Result<(Vec<ContentHash>, Tally), Error> {
    let mut blobs = Vec::new();
    let mut blob_tally = Tally::default();
    let stored = p.store.blobs().map_err(Error::Store)?;
    let live = super::bases::close_over_bases(live, &stored);
    let mut gone: Vec<&BlobInfo> = stored.iter().filter(|b| !live.contains(&b.hash)).collect();
    super::bases::dependents_first(&mut gone);
    for b in gone {
        blob_tally.count += 1;
        blob_tally.bytes += b.stored;
        blobs.push(b.hash.clone());
    }
    Ok((blobs, blob_tally))
}
