//! Snapshots a host's change journal vouches for (`Scan::changed_since`): when nothing changed
//! since the previous snapshot and nothing was recorded since, the previous manifest *is* the
//! new one and is not even loaded; when only some paths changed, only they are walked and
//! every other entry of the previous manifest is kept as it was.

use super::manifest::Manifest;
use super::take::Taken;
use super::{Error, Outcome, scanner};
use crate::ctx::Ports;
use crate::id::{SessionId, TurnId};
use crate::model::WorkspaceSnapshot;
use crate::path::WorkPath;
use crate::ports::SeqRange;

/// More changed paths than this and the whole tree is walked.
pub(super) const MAX_SCOPE: usize = 512;

/// What the journal said before a walk.
pub(super) enum Asked {
    /// Nothing changed and nothing was recorded: this is the snapshot.
    Unchanged(Outcome),
    /// Walk only these paths (`None`: everything).
    Scope(Option<Vec<WorkPath>>),
}

/// Ask the host's journal what changed since `head`. Asked before any walk: the journal's
/// token must precede it. Past `MAX_SCOPE` paths a whole walk is as cheap as looking each up.
pub(super) fn ask(
    p: &mut Ports<'_>,
    session: &SessionId,
    head: Option<&WorkspaceSnapshot>,
    turn: &TurnId,
) -> Result<Asked, Error> {
    let scope = scanner(p)
        .changed_since(head.map(|h| &h.manifest))
        .filter(|paths| paths.len() <= MAX_SCOPE);
    if let Some(h) = head
        && proven_unchanged(p, session, h, scope.as_deref(), turn)?
    {
        scanner(p).vouch(&h.manifest);
        return Ok(Asked::Unchanged(super::outcome::unchanged(h)));
    }
    Ok(Asked::Scope(scope))
}

/// Whether the journal named no path since `head`, `head` marks `turn` already and the session
/// recorded nothing (no checkpoint, no operation) since it: `head` is the new snapshot.
fn proven_unchanged(
    p: &Ports<'_>,
    session: &SessionId,
    head: &WorkspaceSnapshot,
    scope: Option<&[WorkPath]>,
    turn: &TurnId,
) -> Result<bool, Error> {
    if scope.is_none_or(|s| !s.is_empty()) || head.turn_id.as_ref() != Some(turn) {
        return Ok(false);
    }
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
