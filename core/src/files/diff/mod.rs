//! `diff`: the line changes a file rewind would make, from the same plan `preview` and `apply`
//! use, so what a person reads is what the apply would write. For a conflict it also gives the
//! person's change since the agent and the agent's change being undone, so a UI can show the
//! two side by side. Writes nothing.

mod build;
#[cfg(test)]
mod tests;

use super::dirs::plan;
use super::gather::{gather, log_for};
use super::{Error, TargetOptions, UnsafeReason};
use crate::ctx::Ports;
use crate::id::SessionId;
use crate::patch::LineStats;
use serde::Serialize;

/// What the rewind does to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffAction {
    /// The file exists and gets its earlier content back.
    Restore,
    /// The file is absent and is written again (the agent deleted it).
    Create,
    /// The file is removed (the agent created it).
    Delete,
}

/// The role of a line in a hunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// On both sides.
    Context,
    /// Only on the new side.
    Added,
    /// Only on the old side.
    Removed,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    /// Context, added or removed.
    pub kind: LineKind,
    /// The text without its `\n` (a CRLF line keeps its `\r`).
    pub text: String,
    /// The line is the last of its side and has no final newline. Serialised only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_newline: bool,
}

/// A hunk of a unified diff with 3 lines of context. Starts are 1-based and follow jsdiff's
/// structured patches (the patches stored with checkpoints): an empty range starts at the line
/// after the one it follows, where `git diff` would print one less.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffHunk {
    /// First old line.
    pub old_start: u32,
    /// Old lines covered (context plus removed).
    pub old_lines: u32,
    /// First new line.
    pub new_start: u32,
    /// New lines covered (context plus added).
    pub new_lines: u32,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

/// The diff of one file the rewind would touch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    /// The file (or `checkpoint:<id>` for a checkpoint row that cannot be read, as in the
    /// preview).
    pub path: String,
    /// What a restore does; `None` when the content to restore is unknown.
    pub action: Option<DiffAction>,
    /// A `block` apply writes it (the preview lists it under `safeFiles`).
    pub safe: bool,
    /// Why it is unsafe.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<UnsafeReason>,
    /// The preview's explanation of an unsafe file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `merge` would keep the person's edits and still undo the agent's change.
    pub mergeable: bool,
    /// `force` would restore it.
    pub forceable: bool,
    /// A side is not text (not UTF-8, or has NUL bytes): no hunks.
    pub binary: bool,
    /// A side is over [`crate::patch::PATCH_LIMIT`] (the limit behind the preview's `large`):
    /// no hunks.
    pub large: bool,
    /// Permission bits on disk now, when a restore changes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_mode: Option<u32>,
    /// Permission bits a restore sets, when it changes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_mode: Option<u32>,
    /// Added and removed lines of `hunks`.
    #[serde(flatten)]
    pub lines: LineStats,
    /// Disk now → what a restore writes (for an unsafe file: what `force` would write).
    pub hunks: Vec<DiffHunk>,
    /// For a file changed after the agent: what the agent left → what was found instead (the
    /// person's change; what is on disk now, unless the edit came between two of the agent's
    /// changes). `None` otherwise, or when a side is binary, large or unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person_change: Option<Vec<DiffHunk>>,
    /// For a file changed after the agent: the agent's change being undone (its first
    /// before-state → its last after-state). `None` as for `person_change`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_change: Option<Vec<DiffHunk>>,
    /// For a mergeable file: disk now → what `merge` would write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge_hunks: Option<Vec<DiffHunk>>,
}

/// Totals of a diff.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffStats {
    /// Files listed.
    pub files: usize,
    /// Lines of every file's `hunks` (binary and large files not counted).
    #[serde(flatten)]
    pub lines: LineStats,
}

/// What a file rewind would write, line by line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindDiff {
    /// The session.
    pub session_id: SessionId,
    /// Every file the rewind would touch, safe or not, by path.
    pub files: Vec<FileDiff>,
    /// Paths that already hold what the rewind would restore (as in the preview).
    pub unchanged_files: Vec<String>,
    /// Paths whose changes an earlier operation already undid (as in the preview).
    pub reverted_paths: Vec<String>,
    /// Totals.
    pub stats: DiffStats,
}

/// The diff of a file rewind: for every path the preview lists, disk now → what the rewind
/// would write. Writes nothing.
pub fn diff(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: TargetOptions,
) -> Result<RewindDiff, Error> {
    let target = opts.target()?;
    let filter = opts.filter()?;
    let log = log_for(p.store, session, &target)?;
    let gathered = gather(&log, &target, &filter, opts.include_external)?;
    // The agent's change per path, kept before the plan consumes what was gathered.
    let spans = build::spans(&gathered.changes);
    let plan = plan(p.store, p.workspace, session.clone(), gathered)?;
    build::of_plan(p.store, &plan, &spans)
}
