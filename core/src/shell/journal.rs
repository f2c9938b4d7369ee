//! Snapshots a host's change journal vouches for (`Scan::changed_since`): when nothing changed
//! since the previous snapshot and nothing was recorded since, the previous manifest *is* the
//! new one and is not even loaded; when only some paths changed, only they are walked and
//! every other entry of the previous manifest is kept as it was.

use super::Error;
use super::manifest::Manifest;
use super::take::Taken;
use crate::ctx::Ports;
use crate::id::SessionId;
use crate::model::WorkspaceSnapshot;
use crate::path::WorkPath;
use crate::ports::SeqRange;

/// More changed paths than this and the whole tree is walked.
pub(super) const MAX_SCOPE: usize = 512;

/// Whether the session recorded nothing (no checkpoint, no operation) since `head`.
pub(super) fn nothing_recorded(
    p: &Ports<'_>,
    session: &SessionId,
    head: &WorkspaceSnapshot,
) -> Result<bool, Error> {
    let rows = p
        .store
        .checkpoints_in(session, SeqRange::from(head.seq + 1))
        .map_err(Error::Store)?;
    if !rows.is_empty() {
        return Ok(false);
    }
    let ops = p.store.operations(session).map_err(Error::Store)?;
    Ok(ops.len() as u64 == head.operations)
}

/// Whether `path` is one a walk of `scope` lists: a scope path, under one, or a directory on
/// the way to one.
pub(super) fn in_scope(path: &WorkPath, scope: &[WorkPath]) -> bool {
    let p = path.as_str();
    scope.iter().any(|s| {
        let s = s.as_str();
        let below = |a: &str, b: &str| {
            a.len() > b.len() && a.starts_with(b) && a.as_bytes()[b.len()] == b'/'
        };
        p == s || below(p, s) || below(s, p)
    })
}

/// Keep every entry of `prev` outside `scope` as it was: the journal vouches it unchanged.
pub(super) fn keep_unchanged(taken: &mut Taken, prev: &Manifest, scope: &[WorkPath]) {
    for (path, entry) in &prev.entries {
        if !in_scope(path, scope) && !taken.manifest.entries.contains_key(path) {
            taken.manifest.entries.insert(path.clone(), entry.clone());
            taken.skipped += 1;
        }
    }
}
