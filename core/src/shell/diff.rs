//! What changed between the snapshot a session took last and the one just taken, seen through
//! what the session recorded in between: a checkpoint's after-state or a file rewind's write is
//! what the file is expected to hold, so neither is counted twice.

use super::manifest::{Manifest, State, Untracked};
use crate::hash::ContentHash;
use crate::model::{Checkpoint, FileVersion, Operation};
use crate::path::WorkPath;
use std::collections::BTreeMap;

/// What a path is expected to hold, as far as the session knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Known {
    Absent,
    /// Content (and mode, when known).
    Version(ContentHash, Option<u32>),
    /// Present, content not stored.
    Untracked(Untracked),
    /// A record left it unknown (a failed capture).
    Unknown,
}

impl Known {
    fn of(state: Option<&State>) -> Self {
        match state {
            None => Self::Absent,
            Some(State::Tracked(v)) => Self::Version(v.hash.clone(), v.mode),
            Some(State::Untracked(u)) => Self::Untracked(*u),
        }
    }

    fn of_version(v: Option<&FileVersion>) -> Self {
        v.map_or(Self::Absent, |v| Self::Version(v.hash.clone(), v.mode))
    }

    /// Equal for a snapshot: modes compare only where both sides know them; two untracked
    /// states are equal whatever they hold, since neither is known.
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Version(a, am), Self::Version(b, bm)) => {
                a == b && (am.is_none() || bm.is_none() || am == bm)
            }
            (Self::Untracked(_), Self::Untracked(_)) => true,
            (a, b) => a == b,
        }
    }
}

/// One path that changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Diff {
    pub(crate) path: WorkPath,
    pub(crate) before: Known,
    pub(crate) after: Known,
}

/// What the session recorded since its last snapshot, newest last: each path's expected state.
pub(crate) fn expected(
    checkpoints: &[Checkpoint],
    operations: &[Operation],
) -> BTreeMap<WorkPath, Known> {
    // Checkpoints and operations interleave by time; both only move a path to what it holds
    // now, so the later record wins and operations (rewinds of those checkpoints) come last
    // unless a checkpoint was made after them.
    let mut out: BTreeMap<WorkPath, (i64, Known)> = BTreeMap::new();
    let mut set = |path: &WorkPath, at: i64, known: Known| {
        let slot = out
            .entry(path.clone())
            .or_insert((i64::MIN, Known::Unknown));
        if at >= slot.0 {
            *slot = (at, known);
        }
    };
    for c in checkpoints {
        for ch in &c.changes {
            let known = match ch.capture_failed() && ch.after.is_none() {
                true => Known::Unknown,
                false => Known::of_version(ch.after.as_ref()),
            };
            set(&ch.path, c.created_at, known);
        }
    }
    for op in operations.iter().filter(|o| o.kind.writes_files()) {
        for f in &op.files {
            let known = f
                .after
                .as_ref()
                .map_or(Known::Absent, |h| Known::Version(h.clone(), f.after_mode));
            set(&f.path, op.created_at, known);
        }
    }
    out.into_iter().map(|(p, (_, k))| (p, k)).collect()
}

/// Every path whose state differs between `before` (with `expected` on top) and `after`. One
/// merge of the two sorted manifests: a snapshot of a big tree compares every path each time.
pub(crate) fn diff(
    before: &Manifest,
    expected: &BTreeMap<WorkPath, Known>,
    after: &Manifest,
) -> Vec<Diff> {
    let mut out = Vec::new();
    let mut check = |path: &WorkPath, was: Option<&State>, now: Option<&State>| {
        let was = expected
            .get(path)
            .cloned()
            .unwrap_or_else(|| Known::of(was));
        let now = Known::of(now);
        if !was.same(&now) {
            out.push(Diff {
                path: path.clone(),
                before: was,
                after: now,
            });
        }
    };
    let (mut b, mut a) = (
        before.entries.iter().peekable(),
        after.entries.iter().peekable(),
    );
    loop {
        match (b.peek(), a.peek()) {
            (Some((bp, be)), Some((ap, ae))) => match bp.cmp(ap) {
                std::cmp::Ordering::Less => {
                    check(bp, Some(&be.state), None);
                    b.next();
                }
                std::cmp::Ordering::Greater => {
                    check(ap, None, Some(&ae.state));
                    a.next();
                }
                std::cmp::Ordering::Equal => {
                    check(bp, Some(&be.state), Some(&ae.state));
                    b.next();
                    a.next();
                }
            },
            (Some((bp, be)), None) => {
                check(bp, Some(&be.state), None);
                b.next();
            }
            (None, Some((ap, ae))) => {
                check(ap, None, Some(&ae.state));
                a.next();
            }
            (None, None) => break,
        }
    }
    // Recorded paths neither snapshot saw (created and deleted again since).
    for path in expected.keys() {
        if !before.entries.contains_key(path) && !after.entries.contains_key(path) {
            check(path, None, None);
        }
    }
    out.sort_by(|x, y| x.path.cmp(&y.path));
    out
}
