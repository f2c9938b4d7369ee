//! From a plan to a [`RewindDiff`]: the plan already holds each path's content on disk and the
//! content to restore; only a conflict's two sides need more blobs.

use super::{DiffAction, DiffHunk, DiffLine, DiffStats, FileDiff, LineKind, RewindDiff};
use crate::files::gather::Change;
use crate::files::plan::{PathPlan, Plan, bytes_of};
use crate::files::{Error, UnsafeReason};
use crate::hash::ContentHash;
use crate::load::Diagnostic;
use crate::patch::{self, LineStats, PATCH_LIMIT};
use crate::path::WorkPath;
use crate::ports::Store;
use std::collections::BTreeMap;

/// Lines of context around each change, as agents' own patches and `git diff` use.
const CONTEXT: u32 = 3;

/// Per path, the agent's whole change being undone: the oldest before-hash and the newest
/// after-hash of the changes gathered.
pub(super) type Spans = BTreeMap<WorkPath, (Option<ContentHash>, Option<ContentHash>)>;

/// The spans of `changes` (oldest first, as gathered).
pub(super) fn spans(changes: &[Change]) -> Spans {
    let mut spans = Spans::new();
    for c in changes {
        spans
            .entry(c.path.clone())
            .and_modify(|(_, after)| after.clone_from(&c.after))
            .or_insert_with(|| (c.before.clone(), c.after.clone()));
    }
    spans
}

/// Why a pair of contents has no hunks.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Skip {
    Binary,
    Large,
}

/// Text, or `None` for bytes a line diff would mangle: NUL bytes or not UTF-8 (git's rule of
/// thumb for binary, plus the UTF-8 the line diff needs).
fn text_of(bytes: Option<&[u8]>) -> Option<&str> {
    match bytes {
        None => Some(""),
        Some(b) if b.contains(&0) => None,
        Some(b) => std::str::from_utf8(b).ok(),
    }
}

/// The hunks from `old` to `new` (`None` = absent, read as empty).
pub(super) fn hunks(old: Option<&[u8]>, new: Option<&[u8]>) -> Result<Vec<DiffHunk>, Skip> {
    // Size first: no point scanning megabytes for NUL bytes only to skip them anyway.
    if [old, new]
        .into_iter()
        .flatten()
        .any(|b| b.len() > PATCH_LIMIT)
    {
        return Err(Skip::Large);
    }
    let (Some(old), Some(new)) = (text_of(old), text_of(new)) else {
        return Err(Skip::Binary);
    };
    Ok(patch::create(old, new, CONTEXT)
        .into_iter()
        .map(DiffHunk::from)
        .collect())
}

/// A jsdiff hunk with its prefixed lines turned into tagged ones (the no-newline marker becomes
/// a flag on the line it follows). `rewind show` builds a turn's forward diff with it too.
impl From<patch::Hunk> for DiffHunk {
    fn from(h: patch::Hunk) -> Self {
        let mut lines: Vec<DiffLine> = Vec::with_capacity(h.lines.len());
        for line in h.lines {
            let kind = match line.as_bytes().first() {
                Some(b'+') => LineKind::Added,
                Some(b'-') => LineKind::Removed,
                Some(b'\\') => {
                    if let Some(last) = lines.last_mut() {
                        last.no_newline = true;
                    }
                    continue;
                }
                _ => LineKind::Context,
            };
            lines.push(DiffLine {
                kind,
                text: line.get(1..).unwrap_or_default().to_owned(),
                no_newline: false,
            });
        }
        Self {
            old_start: h.old_start,
            old_lines: h.old_lines,
            new_start: h.new_start,
            new_lines: h.new_lines,
            lines,
        }
    }
}

/// Added and removed lines of `hunks`.
pub(super) fn count(hunks: &[DiffHunk]) -> LineStats {
    let mut s = LineStats::default();
    for l in hunks.iter().flat_map(|h| &h.lines) {
        match l.kind {
            LineKind::Added => s.additions = s.additions.saturating_add(1),
            LineKind::Removed => s.deletions = s.deletions.saturating_add(1),
            LineKind::Context => {}
        }
    }
    s
}

/// The content behind a recorded hash (`Some(None)` = absent), or `None` when the store no
/// longer has it intact: the side is then not shown rather than the whole diff failing.
fn content(
    store: &dyn Store,
    hash: &Option<ContentHash>,
) -> Result<Option<Option<Vec<u8>>>, Error> {
    Ok(bytes_of(store, hash)?.ok())
}

fn both_sides(old: Option<Option<Vec<u8>>>, new: Option<Option<Vec<u8>>>) -> Option<Vec<DiffHunk>> {
    let (old, new) = (old?, new?);
    hunks(old.as_deref(), new.as_deref()).ok()
}

fn action(p: &PathPlan) -> Option<DiffAction> {
    match (&p.current, &p.target) {
        (_, None) => None,
        (_, Some(None)) => Some(DiffAction::Delete),
        (Some(None), Some(Some(_))) => Some(DiffAction::Create),
        (_, Some(Some(_))) => Some(DiffAction::Restore),
    }
}

fn file(store: &dyn Store, p: &PathPlan, spans: &Spans) -> Result<FileDiff, Error> {
    let conflict = p.conflict.as_ref();
    let restores_content = matches!(p.target, Some(Some(_)));
    let mode_changes =
        restores_content && matches!((p.current_mode, p.target_mode), (Some(a), Some(b)) if a != b);
    let mut f = FileDiff {
        path: p.path.to_string(),
        action: action(p),
        safe: conflict.is_none() && p.target.is_some(),
        reason: conflict.map(|c| c.reason),
        message: conflict.map(|c| c.message.clone()),
        mergeable: p.merged.is_some(),
        forceable: p.forceable(),
        binary: false,
        large: false,
        old_mode: p.current_mode.filter(|_| mode_changes),
        new_mode: p.target_mode.filter(|_| mode_changes),
        lines: LineStats::default(),
        hunks: Vec::new(),
        person_change: None,
        agent_change: None,
        merge_hunks: None,
    };
    if let (Some(current), Some(target)) = (&p.current, &p.target) {
        match hunks(current.as_deref(), target.as_deref()) {
            Ok(h) => f.hunks = h,
            Err(Skip::Binary) => f.binary = true,
            Err(Skip::Large) => f.large = true,
        }
    }
    f.lines = count(&f.hunks);
    if let (Some(current), Some(merged)) = (&p.current, &p.merged) {
        f.merge_hunks = hunks(current.as_deref(), Some(merged)).ok();
    }
    let Some(c) = conflict.filter(|c| c.reason == UnsafeReason::ExternalModified) else {
        return Ok(f);
    };
    // Where the simulation found the mismatch: the agent left `expected`, `current` was found
    // (the disk itself when the mismatch is at the newest change, whose bytes the plan holds).
    let left = match &c.expected {
        Some(h) => content(store, h)?,
        None => None,
    };
    let right = match &c.current {
        Some(h) if Some(h) == p.current_hash.as_ref() => p.current.clone(),
        Some(h) => content(store, h)?,
        None => None,
    };
    f.person_change = both_sides(left, right);
    if let Some((before, after)) = spans.get(&p.path) {
        f.agent_change = both_sides(content(store, before)?, content(store, after)?);
    }
    Ok(f)
}

/// A checkpoint row that did not decode: named, with nothing to show.
fn unreadable(d: &Diagnostic) -> FileDiff {
    FileDiff {
        path: format!("checkpoint:{}", d.id),
        action: None,
        safe: false,
        reason: Some(UnsafeReason::CheckpointUnreadable),
        message: Some(format!("checkpoint {} cannot be read: {}", d.id, d.reason)),
        mergeable: false,
        forceable: false,
        binary: false,
        large: false,
        old_mode: None,
        new_mode: None,
        lines: LineStats::default(),
        hunks: Vec::new(),
        person_change: None,
        agent_change: None,
        merge_hunks: None,
    }
}

/// The diff of a whole plan.
pub(super) fn of_plan(store: &dyn Store, plan: &Plan, spans: &Spans) -> Result<RewindDiff, Error> {
    let mut files: Vec<FileDiff> = plan.unreadable.iter().map(unreadable).collect();
    let mut unchanged_files = Vec::new();
    for p in &plan.paths {
        if p.unchanged {
            unchanged_files.push(p.path.to_string());
        } else {
            files.push(file(store, p, spans)?);
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let lines = files.iter().fold(LineStats::default(), |acc, f| LineStats {
        additions: acc.additions.saturating_add(f.lines.additions),
        deletions: acc.deletions.saturating_add(f.lines.deletions),
    });
    Ok(RewindDiff {
        session_id: plan.session.clone(),
        stats: DiffStats {
            files: files.len(),
            lines,
        },
        files,
        unchanged_files,
        reverted_paths: plan.reverted.iter().map(ToString::to_string).collect(),
    })
}
