//! The simulation: per path, walk its changes newest to oldest against the current workspace.
//! Each change expects its `after` on disk (or the state the newer simulated change left); a
//! mismatch makes the path unsafe. Nothing is written here.

use super::gather::Change;
use super::{Error, Preview, PreviewStats, SafeFile, UnsafeFile, UnsafeReason};
use crate::hash::{ContentHash, display_opt};
use crate::id::{CheckpointId, SessionId};
use crate::load::{self, BlobError, Diagnostic};
use crate::model::FileAction;
use crate::node::Node;
use crate::patch::{self, LineStats};
use crate::path::WorkPath;
use crate::ports::{Store, Workspace};
use std::collections::BTreeSet;

/// Why a path is unsafe, with the hashes that show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub(crate) reason: UnsafeReason,
    pub(crate) current: Option<Option<ContentHash>>,
    pub(crate) expected: Option<Option<ContentHash>>,
    pub(crate) message: String,
}

/// The plan for one path.
#[derive(Clone, Debug)]
pub(crate) struct PathPlan {
    pub(crate) path: WorkPath,
    pub(crate) operation_count: usize,
    pub(crate) tool_names: BTreeSet<String>,
    /// Newest change first: the apply writes paths in this order.
    pub(crate) newest_seq: u64,
    /// Every checkpoint whose change of this path a write undoes.
    pub(crate) undid: Vec<CheckpointId>,
    /// A change of this path is too large for a patch.
    pub(crate) large: bool,
    /// Disk content at plan time (`Some(None)` = absent); `None` when it could not be read.
    pub(crate) current: Option<Option<Vec<u8>>>,
    /// The hash of `current`, computed once when it was read: the apply journals and
    /// re-checks against it without hashing the content again.
    pub(crate) current_hash: Option<Option<ContentHash>>,
    /// What a restore writes (`Some(None)` = remove); `None` when unknown.
    pub(crate) target: Option<Option<Vec<u8>>>,
    /// The hash of `target` (the recorded before-hash it was read and verified by).
    pub(crate) target_hash: Option<Option<ContentHash>>,
    /// The permission bits on disk at plan time, when the host has modes.
    pub(crate) current_mode: Option<u32>,
    /// The permission bits a restore sets (the oldest change's before mode), when recorded.
    pub(crate) target_mode: Option<u32>,
    /// The user's edits kept and the agent's change reverse-applied, when that applies cleanly.
    pub(crate) merged: Option<Vec<u8>>,
    pub(crate) conflict: Option<Conflict>,
    /// The path already holds its target: it is neither written nor counted.
    pub(crate) unchanged: bool,
}

impl PathPlan {
    /// `force` would write this unsafe path: its target is known and its conflict is one a
    /// person may override (edited since, or a failed capture inside the span).
    pub(crate) fn forceable(&self) -> bool {
        self.target.is_some()
            && self.current.is_some()
            && self.conflict.as_ref().is_some_and(|c| {
                matches!(
                    c.reason,
                    UnsafeReason::ExternalModified | UnsafeReason::UnsupportedCheckpoint
                )
            })
    }
    /// The lines a restore writes: disk now → the content to restore (for an unsafe path, what
    /// `force` would write), by the diff's rules (`diff::build::hunks`: no count for a side
    /// over the patch limit or not text). The preview's count, equal to the diff's for the
    /// same path; `None` where lines are not counted or a side is unknown.
    pub(crate) fn written(&self) -> Option<LineStats> {
        let (Some(current), Some(target)) = (&self.current, &self.target) else {
            return None;
        };
        let sides = [current.as_deref(), target.as_deref()];
        if sides.iter().flatten().any(|b| b.len() > patch::PATCH_LIMIT) {
            return None;
        }
        fn text(b: Option<&[u8]>) -> Option<&str> {
            match b {
                None => Some(""),
                Some(b) if b.contains(&0) => None,
                Some(b) => std::str::from_utf8(b).ok(),
            }
        }
        let (Some(old), Some(new)) = (text(sides[0]), text(sides[1])) else {
            return None;
        };
        Some(patch::stats(&patch::create(old, new, 3)))
    }
    pub(crate) fn action_of(target: &Option<Vec<u8>>) -> FileAction {
        if target.is_some() {
            FileAction::Restore
        } else {
            FileAction::Delete
        }
    }
}

/// A complete plan.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) session: SessionId,
    pub(crate) paths: Vec<PathPlan>,
    pub(crate) unreadable: Vec<Diagnostic>,
    pub(crate) reverted: BTreeSet<WorkPath>,
    pub(crate) checkpoints: usize,
}

pub(crate) fn bytes_of(
    store: &dyn Store,
    hash: &Option<ContentHash>,
) -> Result<Result<Option<Vec<u8>>, String>, Error> {
    match hash {
        None => Ok(Ok(None)),
        Some(h) => match load::blob(store, h) {
            Ok(b) => Ok(Ok(Some(b))),
            Err(BlobError::Host(e)) => Err(Error::Store(e)),
            Err(e) => Ok(Err(e.to_string())),
        },
    }
}

fn text(bytes: &Option<Vec<u8>>) -> Option<&str> {
    bytes
        .as_deref()
        .map_or(Some(""), |b| std::str::from_utf8(b).ok())
}

/// Reverse-apply the agent's whole change of this path (oldest before → newest after) onto the
/// current content with zero fuzz. `None` when any side is not text or the patch does not apply.
fn merge(
    store: &dyn Store,
    chain: &[&Change],
    current: &Option<Vec<u8>>,
) -> Result<Option<Vec<u8>>, Error> {
    let consistent = chain.windows(2).all(|w| w[0].after == w[1].before);
    let (Some(oldest), Some(newest)) = (chain.first(), chain.last()) else {
        return Ok(None);
    };
    if !consistent || current.is_none() {
        return Ok(None);
    }
    let (Ok(before), Ok(after)) = (
        bytes_of(store, &oldest.before)?,
        bytes_of(store, &newest.after)?,
    ) else {
        return Ok(None);
    };
    let (Some(b), Some(a), Some(c)) = (text(&before), text(&after), text(current)) else {
        return Ok(None);
    };
    let undo = patch::reverse(&patch::create(b, a, 3));
    Ok(patch::apply(c, &undo).ok().map(String::into_bytes))
}

/// The conflict of a path whose history holds a failed capture: before that tool ran its state
/// is unknown. When it is the oldest change of the span, the content to restore is unknown;
/// otherwise it is the older change's known before-state, which `force` may restore
/// (journaled, so undoable).
fn failed_capture(path: &WorkPath, bad: &Change, unknown_target: bool) -> Conflict {
    let why = bad.unsupported.as_deref().unwrap_or_default();
    let at = bad.checkpoint.as_ref().map_or_else(String::new, |c| {
        format!(" (failed capture in checkpoint {c})")
    });
    let then = match unknown_target {
        true => "it cannot be restored",
        false => "it is restored only with the force policy",
    };
    Conflict {
        reason: UnsafeReason::UnsupportedCheckpoint,
        current: None,
        expected: None,
        message: format!(
            "the state of {path} before {} ran was not captured ({why}){at}; {then}",
            bad.tool_name
        ),
    }
}

/// Undo `chain` newest to oldest in simulation from the path's current hash: every change must
/// find what it wrote. The first one that does not marks the path externally modified; returns
/// whether that was the newest change (then a merge is tried).
fn walk_back(plan: &mut PathPlan, chain: &[&Change], mut simulated: Option<ContentHash>) -> bool {
    let mut mismatch_at_newest = false;
    for (i, change) in chain.iter().rev().enumerate() {
        if simulated != change.after {
            mismatch_at_newest = i == 0;
            plan.conflict = Some(Conflict {
                reason: UnsafeReason::ExternalModified,
                current: Some(simulated.clone()),
                expected: Some(change.after.clone()),
                message: format!(
                    "{} was changed after {} wrote it (now {}, expected {})",
                    plan.path,
                    change.tool_name,
                    short(simulated.as_ref()),
                    short(change.after.as_ref())
                ),
            });
            break;
        }
        simulated.clone_from(&change.before);
    }
    mismatch_at_newest
}

pub(super) fn plan_path(
    store: &dyn Store,
    ws: &mut dyn Workspace,
    path: WorkPath,
    chain: Vec<&Change>,
) -> Result<PathPlan, Error> {
    let mut plan = PathPlan {
        path,
        operation_count: chain.len(),
        tool_names: chain.iter().map(|c| c.tool_name.clone()).collect(),
        newest_seq: chain.last().map_or(0, |c| c.seq),
        undid: chain.iter().filter_map(|c| c.checkpoint.clone()).collect(),
        large: chain.iter().any(|c| c.large),
        current: None,
        current_hash: None,
        target: None,
        target_hash: None,
        current_mode: None,
        target_mode: chain.first().and_then(|c| c.before_mode),
        merged: None,
        conflict: None,
        unchanged: false,
    };
    // A failed capture blocks only a span that contains it. When it is the oldest change of
    // the span, the content to restore is unknown; otherwise it is the older change's known
    // before-state, which `force` may restore (journaled, so undoable).
    let failed = chain.iter().rposition(|c| c.unsupported.is_some());
    if let Some(i) = failed {
        plan.conflict = Some(failed_capture(&plan.path, chain[i], i == 0));
        // The oldest change's before-state is unknown: there is nothing to restore.
        if i == 0 {
            return Ok(plan);
        }
    }
    match ws.node(&plan.path) {
        Ok(node) => {
            // A link's own bits mean nothing (and asking would follow it).
            if node
                .as_ref()
                .is_some_and(|n| !matches!(n, Node::Symlink(_)))
            {
                plan.current_mode = ws.mode(&plan.path).unwrap_or(None);
            }
            plan.current_hash = Some(node.as_ref().map(Node::hash));
            plan.current = Some(node.map(|n| n.encode()));
        }
        Err(e) => {
            plan.conflict = Some(Conflict {
                reason: UnsafeReason::FileReadFailed,
                current: None,
                expected: None,
                message: format!("{} could not be read: {e}", plan.path),
            });
            return Ok(plan);
        }
    }
    let simulated = plan.current_hash.clone().expect("current was just read");
    // Newest to oldest, down to the newest failed capture: past it nothing is known.
    let known = failed.map_or(0, |i| i + 1);
    let mismatch_at_newest = walk_back(&mut plan, &chain[known..], simulated);
    let oldest_before = chain.first().and_then(|c| c.before.clone());
    match bytes_of(store, &oldest_before)? {
        Ok(target) => {
            plan.target = Some(target);
            plan.target_hash = Some(oldest_before);
        }
        Err(why) if plan.conflict.is_none() => {
            plan.conflict = Some(Conflict {
                reason: UnsafeReason::CheckpointUnreadable,
                current: None,
                expected: None,
                message: format!(
                    "the content to restore {} from is unavailable: {why}",
                    plan.path
                ),
            });
        }
        Err(_) => {}
    }
    // Already at its target (e.g. the person deleted a file the agent created): nothing to
    // write, nothing to lose, whatever the history in between says.
    let mode_holds = match (&plan.target, plan.target_mode) {
        (Some(Some(_)), Some(want)) => plan.current_mode.is_none_or(|m| m == want),
        _ => true,
    };
    if plan.target.is_some() && plan.target == plan.current && mode_holds {
        plan.unchanged = true;
        plan.conflict = None;
        return Ok(plan);
    }
    if mismatch_at_newest {
        let current = plan.current.clone().expect("read above");
        plan.merged = merge(store, &chain, &current)?;
    }
    Ok(plan)
}

/// A hash for a sentence: its first 12 hex digits, or `missing`.
fn short(hash: Option<&ContentHash>) -> &str {
    hash.map_or(crate::hash::MISSING, ContentHash::short)
}

fn hash_text(h: &Option<Option<ContentHash>>) -> Option<String> {
    h.as_ref().map(|h| display_opt(h.as_ref()).to_owned())
}

impl Plan {
    /// The serialisable preview of this plan.
    pub(crate) fn preview(&self) -> Preview {
        let mut safe_files = Vec::new();
        let mut unsafe_files: Vec<UnsafeFile> = self
            .unreadable
            .iter()
            .map(|d| UnsafeFile {
                path: format!("checkpoint:{}", d.id),
                reason: UnsafeReason::CheckpointUnreadable,
                current_hash: None,
                expected_hash: None,
                message: format!("checkpoint {} cannot be read: {}", d.id, d.reason),
                operation_count: 1,
                tool_names: Vec::new(),
                mergeable: false,
                large: false,
                forceable: false,
                lines: LineStats::default(),
            })
            .collect();
        let mut lines = LineStats::default();
        let mut unchanged_files = Vec::new();
        for p in &self.paths {
            if p.unchanged {
                unchanged_files.push(p.path.to_string());
                continue;
            }
            let written = p.written().unwrap_or_default();
            lines.additions = lines.additions.saturating_add(written.additions);
            lines.deletions = lines.deletions.saturating_add(written.deletions);
            let tool_names = p.tool_names.iter().cloned().collect();
            match (&p.conflict, &p.target) {
                (None, Some(target)) => safe_files.push(SafeFile {
                    path: p.path.to_string(),
                    action: PathPlan::action_of(target),
                    operation_count: p.operation_count,
                    tool_names,
                    large: p.large,
                    lines: written,
                }),
                (conflict, _) => {
                    let c = conflict
                        .clone()
                        .expect("a path without a target has a conflict");
                    unsafe_files.push(UnsafeFile {
                        path: p.path.to_string(),
                        reason: c.reason,
                        current_hash: hash_text(&c.current),
                        expected_hash: hash_text(&c.expected),
                        message: c.message,
                        operation_count: p.operation_count,
                        tool_names,
                        mergeable: p.merged.is_some(),
                        large: p.large,
                        forceable: p.forceable(),
                        lines: written,
                    });
                }
            }
        }
        unsafe_files.sort_by(|a, b| a.path.cmp(&b.path));
        Preview {
            session_id: self.session.clone(),
            can_apply: !safe_files.is_empty() && unsafe_files.is_empty(),
            stats: PreviewStats {
                files: safe_files.len() + unsafe_files.len(),
                checkpoints: self.checkpoints,
                lines,
            },
            safe_files,
            unsafe_files,
            unchanged_files,
            reverted_paths: self.reverted.iter().map(ToString::to_string).collect(),
        }
    }
}
