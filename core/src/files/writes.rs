//! Which paths an apply writes under its policy, and the record of what it wrote: shared by the
//! forward pass (`execute`) and the way back (`rollback`).

use super::UnsafeReason;
use super::plan::{PathPlan, Plan};
use crate::hash::ContentHash;
use crate::id::OperationId;
use crate::model::{FileAction, Policy};
use crate::node::Node;
use serde::Serialize;

/// A path the apply wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoredFile {
    /// The file.
    pub path: String,
    /// Restored or deleted.
    pub action: FileAction,
    /// The user's later edits were kept (merge).
    pub merged: bool,
    /// Content the engine could not prove it made was overwritten (force; undoable).
    pub forced: bool,
}

/// The result of [`execute`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Executed {
    pub(crate) applied: bool,
    pub(crate) operation_id: Option<OperationId>,
    pub(crate) restored: Vec<RestoredFile>,
    pub(crate) skipped: Vec<String>,
    pub(crate) cause: Option<String>,
}

pub(super) struct PlannedWrite<'a> {
    pub(super) plan: &'a PathPlan,
    pub(super) bytes: Option<Vec<u8>>,
    /// The hash of `bytes`: the plan's for a restore, computed once here for a merge.
    pub(super) hash: Option<ContentHash>,
    pub(super) merged: bool,
    pub(super) forced: bool,
}

impl PlannedWrite<'_> {
    /// The mode to set after writing: the recorded one, when it differs from the file's now.
    pub(super) fn mode(&self) -> Option<u32> {
        let bytes = self.bytes.as_ref()?;
        if matches!(Node::decode(bytes.clone()), Node::Symlink(_)) {
            return None;
        }
        self.plan
            .target_mode
            .filter(|m| Some(*m) != self.plan.current_mode)
    }

    pub(super) fn prior(&self) -> &Option<Vec<u8>> {
        self.plan
            .current
            .as_ref()
            .expect("only paths that were read are written")
    }

    /// The hash of [`Self::prior`], computed when the plan read it.
    pub(super) fn prior_hash(&self) -> &Option<ContentHash> {
        self.plan
            .current_hash
            .as_ref()
            .expect("only paths that were read are written")
    }
}

/// Decide per path what the policy writes; the rest stays unsafe.
pub(super) fn choose(plan: &Plan, policy: Policy) -> (Vec<PlannedWrite<'_>>, Vec<String>) {
    let mut writes = Vec::new();
    let mut blocked: Vec<String> = plan
        .unreadable
        .iter()
        .map(|d| format!("checkpoint:{}", d.id))
        .collect();
    for p in plan.paths.iter().filter(|p| !p.unchanged) {
        let external = p
            .conflict
            .as_ref()
            .is_some_and(|c| c.reason == UnsafeReason::ExternalModified);
        let restore = |forced| {
            let bytes = p.target.clone()?;
            let hash = p.target_hash.clone()?;
            Some(PlannedWrite {
                plan: p,
                bytes,
                hash,
                merged: false,
                forced,
            })
        };
        let write = match (&p.conflict, policy) {
            (None, _) => restore(false),
            (Some(_), Policy::Merge) if external => p.merged.clone().map(|m| PlannedWrite {
                plan: p,
                hash: Some(ContentHash::of(&m)),
                bytes: Some(m),
                merged: true,
                forced: false,
            }),
            (Some(_), Policy::Force) if p.forceable() => restore(true),
            _ => None,
        };
        match write {
            Some(w) => writes.push(w),
            None => blocked.push(p.path.to_string()),
        }
    }
    keep_dirs_of_blocked(&mut writes, &mut blocked);
    writes.sort_by(|a, b| {
        order(a)
            .cmp(&order(b))
            .then(b.plan.newest_seq.cmp(&a.plan.newest_seq))
            .then(a.plan.path.cmp(&b.plan.path))
    });
    (writes, blocked)
}

/// The writes as reported (and recorded in the operation): newest change first, then by path,
/// whatever order directories need them written in (the journal keeps that one).
pub(super) fn reported<'w, 'p>(writes: &'w [PlannedWrite<'p>]) -> Vec<&'w PlannedWrite<'p>> {
    let mut out: Vec<&PlannedWrite<'_>> = writes.iter().collect();
    out.sort_by(|a, b| {
        (b.plan.newest_seq.cmp(&a.plan.newest_seq)).then(a.plan.path.cmp(&b.plan.path))
    });
    out
}

/// Whether the write takes a directory away (removes it, or puts a file or link in its place).
fn clears_dir(w: &PlannedWrite<'_>) -> bool {
    w.plan.is_dir_now() && !w.plan.restores_dir()
}

/// Where a write goes in the apply: first everything that removes or takes a directory away,
/// deepest first (a directory is emptied before it goes); then everything that creates,
/// deepest last (a directory exists, with its mode, before anything is put in it). Rolling
/// back in reverse order undoes it in the order that works the other way.
fn order(w: &PlannedWrite<'_>) -> (u8, i64) {
    let depth = w.plan.path.as_str().matches('/').count() as i64;
    match w.bytes.is_none() || clears_dir(w) {
        true => (0, -depth),
        false => (1, depth),
    }
}

/// A directory whose removal needs a path the policy leaves unwritten (skip, or a conflict
/// force does not override) stays, and so is not written either.
fn keep_dirs_of_blocked(writes: &mut Vec<PlannedWrite<'_>>, blocked: &mut Vec<String>) {
    loop {
        let before = writes.len();
        let (kept, rest): (Vec<_>, Vec<_>) = std::mem::take(writes).into_iter().partition(|w| {
            clears_dir(w)
                && blocked
                    .iter()
                    .any(|b| b.starts_with(&format!("{}/", w.plan.path)))
        });
        *writes = rest;
        blocked.extend(kept.iter().map(|w| w.plan.path.to_string()));
        if writes.len() == before {
            return;
        }
    }
}
