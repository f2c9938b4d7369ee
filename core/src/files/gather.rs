//! Resolve a target to the recorded changes it covers, oldest first, minus what an earlier
//! operation already undid.

use super::{Error, Target, history};
use crate::hash::ContentHash;
use crate::id::{CheckpointId, SessionId};
use crate::load::{self, Diagnostic, SessionLog};
use crate::model::{Capture, Checkpoint, CheckpointKind};
use crate::patch;
use crate::path::WorkPath;
use crate::ports::Store;
use crate::window;
use std::collections::BTreeSet;

/// One recorded change of one path, as the planner sees it: undoing it means "expect `after`
/// on disk, put `before` back".
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) path: WorkPath,
    pub(crate) before: Option<ContentHash>,
    pub(crate) after: Option<ContentHash>,
    /// Permission bits of `before` / `after`, when recorded.
    pub(crate) before_mode: Option<u32>,
    pub(crate) after_mode: Option<u32>,
    /// The checkpoint it comes from (none for an undo, whose changes come from an operation).
    pub(crate) checkpoint: Option<CheckpointId>,
    /// Creation order.
    pub(crate) seq: u64,
    pub(crate) tool_name: String,
    /// Set when the change cannot be undone (failed capture).
    pub(crate) unsupported: Option<String>,
    /// A side is over [`patch::PATCH_LIMIT`], so no patch was made.
    pub(crate) large: bool,
}

/// What a target covers.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// Oldest first.
    pub(crate) changes: Vec<Change>,
    /// Checkpoint rows in range that did not decode.
    pub(crate) unreadable: Vec<Diagnostic>,
    /// Paths whose every change in range was already undone.
    pub(crate) reverted: BTreeSet<WorkPath>,
    /// Checkpoints contributing changes.
    pub(crate) checkpoints: usize,
}

impl Change {
    /// A recorded change whose before equals its after changed nothing: there is nothing to undo.
    pub(crate) fn is_noop(&self) -> bool {
        self.unsupported.is_none()
            && self.before == self.after
            && (self.before_mode == self.after_mode
                || self.before_mode.is_none()
                || self.after_mode.is_none())
    }
}

fn changes_of(c: &Checkpoint) -> impl Iterator<Item = Change> + '_ {
    c.changes.iter().map(|fc| Change {
        path: fc.path.clone(),
        before: fc.before.as_ref().map(|v| v.hash.clone()),
        after: fc.after.as_ref().map(|v| v.hash.clone()),
        before_mode: fc.before.as_ref().and_then(|v| v.mode),
        after_mode: fc.after.as_ref().and_then(|v| v.mode),
        checkpoint: Some(c.id.clone()),
        seq: c.seq,
        tool_name: c.tool_name.clone(),
        unsupported: match &fc.capture {
            Capture::Failed { reason } => Some(reason.clone()),
            Capture::Captured => None,
        },
        large: fc.patch.is_none()
            && !fc.capture_failed()
            && [&fc.before, &fc.after]
                .into_iter()
                .flatten()
                .any(|v| v.size > patch::PATCH_LIMIT as u64),
    })
}

fn selected(path: &WorkPath, filter: &[WorkPath]) -> bool {
    filter.is_empty() || filter.iter().any(|f| path.starts_with(f))
}

/// The checkpoints a target covers and the undecodable checkpoint rows that may belong to it.
fn resolve<'a>(
    log: &'a SessionLog,
    target: &Target,
) -> Result<(Vec<&'a Checkpoint>, Vec<Diagnostic>), Error> {
    let corrupt = |keep: &dyn Fn(&Diagnostic) -> bool| -> Vec<Diagnostic> {
        log.diagnostics
            .iter()
            .filter(|d| d.kind == "checkpoint" && keep(d))
            .cloned()
            .collect()
    };
    match target {
        Target::Since(id) => {
            let m = log.message(id).ok_or_else(|| not_found("message", id))?;
            if !m.is_prompt() {
                return Err(Error::NotAPrompt(id.clone()));
            }
            Ok(after(log, m.seq))
        }
        Target::TurnOf(id) => {
            let m = log.message(id).ok_or_else(|| not_found("message", id))?;
            let turn = m.turn_id.clone().ok_or_else(|| Error::NoTurn(id.clone()))?;
            resolve(log, &Target::Turn(turn))
        }
        Target::Turn(id) => {
            let turn = log.turn(id).ok_or_else(|| not_found("turn", id))?;
            let next = log
                .turns
                .iter()
                .map(|t| t.prompt_seq)
                .filter(|s| *s > turn.prompt_seq)
                .min();
            let start = turn.prompt_seq;
            let in_turn = move |seq: u64| seq > start && next.is_none_or(|n| seq < n);
            Ok((
                log.checkpoints
                    .iter()
                    .filter(|c| &c.turn_id == id)
                    .collect(),
                corrupt(&|d| in_turn(d.seq)),
            ))
        }
        Target::Checkpoint(id) => match log.checkpoints.iter().find(|c| &c.id == id) {
            Some(c) => Ok((vec![c], Vec::new())),
            None => {
                let rows = corrupt(&|d| d.id == id.as_str());
                if rows.is_empty() {
                    return Err(
                        match log
                            .operations
                            .iter()
                            .filter_map(|o| o.dropped_through)
                            .max()
                        {
                            Some(seq) => Error::Dropped {
                                checkpoint: id.clone(),
                                through: seq,
                            },
                            None => not_found("checkpoint", id),
                        },
                    );
                }
                Ok((Vec::new(), rows))
            }
        },
    }
}

/// Retention (gc) dropped checkpoints this target reaches back to: a rewind that went ahead
/// would restore only part of the history, so it is reported as unreadable instead.
fn retention_gap(log: &SessionLog, target: &Target) -> Option<Diagnostic> {
    let dropped = log
        .operations
        .iter()
        .filter_map(|o| o.dropped_through)
        .max()?;
    let from = match target {
        Target::Since(m) => log.message(m)?.seq,
        Target::Turn(t) => log.turn(t)?.prompt_seq,
        Target::TurnOf(m) => log.turn(log.message(m)?.turn_id.as_ref()?)?.prompt_seq,
        Target::Checkpoint(_) => return None,
    };
    (dropped > from).then(|| Diagnostic {
        kind: "checkpoint".into(),
        id: "dropped-by-retention".into(),
        seq: dropped,
        reason: format!(
            "checkpoints up to seq {dropped} were dropped by retention (gc), so files cannot be \
             restored to before them"
        ),
    })
}

/// Every checkpoint recorded after `seq` (on any branch: the workspace is linear in time), and
/// the undecodable checkpoint rows after it.
fn after(log: &SessionLog, seq: u64) -> (Vec<&Checkpoint>, Vec<Diagnostic>) {
    let corrupt = log
        .diagnostics
        .iter()
        .filter(|d| d.kind == "checkpoint" && d.seq > seq)
        .cloned()
        .collect();
    (
        log.checkpoints.iter().filter(|c| c.seq > seq).collect(),
        corrupt,
    )
}

/// The part of the session's log a target can reach: everything from the target's first seq on
/// (a prompt, a turn's prompt, a checkpoint), so a rewind of a recent turn reads that turn and
/// what came after it, never the whole session. `gather` on this log sees exactly what it
/// would on the whole log.
pub(crate) fn log_for(
    store: &dyn Store,
    session: &SessionId,
    target: &Target,
) -> Result<SessionLog, Error> {
    let from = match target {
        Target::Since(id) => window::message(store, session, id)?.seq,
        Target::Turn(id) => load::turn(store, session, id)?.prompt_seq,
        Target::TurnOf(id) => {
            let m = window::message(store, session, id)?;
            match &m.turn_id {
                Some(turn) => load::turn(store, session, turn)?.prompt_seq.min(m.seq),
                None => m.seq,
            }
        }
        // A missing checkpoint leaves an empty window: `resolve` then tells "dropped by
        // retention" from "never existed" through the operation log, which is always whole.
        Target::Checkpoint(id) => match store.checkpoint(session, id).map_err(load::Error::Host)? {
            Some(row) => row.seq,
            None => u64::MAX,
        },
    };
    Ok(SessionLog::tail(store, session, from)?)
}

fn not_found(what: &'static str, id: &impl std::fmt::Display) -> Error {
    Error::Load(load::Error::NotFound {
        what,
        id: id.to_string(),
    })
}

/// Gather the changes of a target, oldest first, filtered by path and minus undone changes.
/// The person's own changes (`external` checkpoints) are left out unless `external` is set or
/// the target is that very checkpoint: a rewind of the agent's work keeps them, and the plan
/// then reports the paths they touched as changed since.
pub(crate) fn gather(
    log: &SessionLog,
    target: &Target,
    filter: &[WorkPath],
    external: bool,
) -> Result<Gathered, Error> {
    let (mut checkpoints, mut unreadable) = resolve(log, target)?;
    if !external && !matches!(target, Target::Checkpoint(_)) {
        checkpoints.retain(|c| c.kind != CheckpointKind::External);
    }
    if let Some(gap) = retention_gap(log, target) {
        unreadable.push(gap);
    }
    Ok(collect(log, checkpoints, unreadable, filter))
}

/// Gather every change recorded after `seq`: what a fork in restore mode undoes (the person's
/// own changes stay).
pub(crate) fn gather_after(log: &SessionLog, seq: u64) -> Gathered {
    let (mut checkpoints, unreadable) = after(log, seq);
    checkpoints.retain(|c| c.kind != CheckpointKind::External);
    collect(log, checkpoints, unreadable, &[])
}

fn collect(
    log: &SessionLog,
    checkpoints: Vec<&Checkpoint>,
    unreadable: Vec<Diagnostic>,
    filter: &[WorkPath],
) -> Gathered {
    let undone = history::undone_changes(&log.operations);
    let mut out = Gathered {
        unreadable,
        ..Gathered::default()
    };
    let mut live_paths = BTreeSet::new();
    let mut contributing = BTreeSet::new();
    for change in checkpoints
        .iter()
        .flat_map(|c| changes_of(c))
        .filter(|c| selected(&c.path, filter))
        .filter(|c| !c.is_noop())
    {
        let ckp = change
            .checkpoint
            .clone()
            .expect("checkpoint changes carry their checkpoint");
        if undone.contains(&(ckp.clone(), change.path.clone())) {
            out.reverted.insert(change.path);
            continue;
        }
        live_paths.insert(change.path.clone());
        contributing.insert(ckp);
        out.changes.push(change);
    }
    out.reverted.retain(|p| !live_paths.contains(p));
    out.checkpoints = contributing.len();
    out.changes.sort_by_key(|c| c.seq);
    out
}
