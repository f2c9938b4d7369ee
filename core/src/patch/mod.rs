//! Structured patches compatible with jsdiff (npm `diff` 8.0.4).
//!
//! Coding agents put jsdiff `structuredPatch` hunks into their Write/Edit tool results, so the
//! engine must create, apply, reverse and count them exactly as jsdiff does:
//!
//! * [`create()`] is `structuredPatch(..).hunks`;
//! * [`apply()`] is `applyPatch(text, patch, { fuzzFactor: 0 })`;
//! * [`reverse()`] is `reversePatch`;
//! * [`stats()`] counts added and removed lines;
//! * [`validate()`] checks hunks that come from outside before the engine trusts them.

mod align;
mod apply;
mod create;
mod line_endings;
mod reverse;
mod validate;

#[cfg(test)]
mod tests;

use std::fmt;

pub use apply::apply;
pub use create::create;
pub use reverse::reverse;
pub use validate::validate;

/// Text files up to this size get a structured patch computed at record time; a larger side
/// means no patch and so no line counts (previews mark such files `large`).
pub const PATCH_LIMIT: usize = 1024 * 1024;

/// The line jsdiff puts after a hunk line whose text has no final newline.
pub const NO_NEWLINE_MARKER: &str = "\\ No newline at end of file";

/// One hunk, exactly jsdiff's shape.
///
/// `lines` hold the line text without its `\n` (a CRLF line keeps its `\r`), prefixed by `' '`
/// (context), `'-'` (removed), `'+'` (added), or the [`NO_NEWLINE_MARKER`] line.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// 1-based first line of the hunk in the old text.
    pub old_start: u32,
    /// Context plus removed lines.
    pub old_lines: u32,
    /// 1-based first line of the hunk in the new text.
    pub new_start: u32,
    /// Context plus added lines.
    pub new_lines: u32,
    /// Prefixed line texts, in order.
    pub lines: Vec<String>,
}

/// Added and removed line counts of a patch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineStats {
    /// Lines starting with `'+'`.
    pub additions: u32,
    /// Lines starting with `'-'`.
    pub deletions: u32,
}

/// Counts the `'+'` and `'-'` lines of `hunks`.
#[must_use]
pub fn stats(hunks: &[Hunk]) -> LineStats {
    hunks
        .iter()
        .flat_map(|hunk| &hunk.lines)
        .fold(LineStats::default(), |mut stats, line| {
            match LineKind::of(line) {
                Some(LineKind::Added) => stats.additions = stats.additions.saturating_add(1),
                Some(LineKind::Removed) => stats.deletions = stats.deletions.saturating_add(1),
                _ => {}
            }
            stats
        })
}

/// Why [`apply()`] refused a patch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The hunks are structurally invalid, so they are refused before looking at the text.
    #[error("malformed patch: {0}")]
    Malformed(#[from] PatchError),
    /// A marker says the old text lacks a final newline, but the text has one.
    #[error("the text ends with a newline but the patch expects none")]
    UnexpectedFinalNewline,
    /// The patch removes the old text's final newline, but the text has none.
    #[error("the text lacks the final newline the patch removes")]
    MissingFinalNewline,
    /// No position matches the hunk's context and removed lines exactly.
    #[error("hunk {hunk} (old line {old_start}) matches nowhere in the text")]
    NoMatch {
        /// Index of the hunk in the patch.
        hunk: usize,
        /// The hunk's `old_start`.
        old_start: u32,
    },
}

/// Why [`validate()`] rejected hunks. Hunk and line indices are 0-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The hunk has no lines at all.
    #[error("hunk {hunk} has no lines")]
    EmptyHunk {
        /// Index of the hunk.
        hunk: usize,
    },
    /// A line is empty, so it lacks the prefix saying what it does.
    #[error("hunk {hunk} line {line} is empty")]
    EmptyLine {
        /// Index of the hunk.
        hunk: usize,
        /// Index of the line in the hunk.
        line: usize,
    },
    /// A line does not start with `'+'`, `'-'`, `' '` or `'\\'`.
    #[error("hunk {hunk} line {line} starts with {found:?}, not '+', '-', ' ' or '\\'")]
    UnknownPrefix {
        /// Index of the hunk.
        hunk: usize,
        /// Index of the line in the hunk.
        line: usize,
        /// The offending first character.
        found: char,
    },
    /// A no-newline marker that does not close the last line of a side of the last hunk.
    #[error("hunk {hunk} line {line} is a misplaced no-newline marker")]
    MisplacedMarker {
        /// Index of the hunk.
        hunk: usize,
        /// Index of the marker in the hunk.
        line: usize,
    },
    /// A line follows the no-newline marker that ended its side of the text.
    #[error("hunk {hunk} line {line} follows the end of the {side} text")]
    LineAfterEnd {
        /// Index of the hunk.
        hunk: usize,
        /// Index of the line in the hunk.
        line: usize,
        /// The side the marker ended.
        side: Side,
    },
    /// The header's line count disagrees with the hunk's lines.
    #[error("hunk {hunk} declares {declared} {side} lines but has {actual}")]
    CountMismatch {
        /// Index of the hunk.
        hunk: usize,
        /// Which count.
        side: Side,
        /// `old_lines` or `new_lines`.
        declared: u32,
        /// Lines actually counted.
        actual: usize,
    },
    /// A start is 0; jsdiff's structured hunks are 1-based even for empty ranges.
    #[error("hunk {hunk} has {side} start 0")]
    ZeroStart {
        /// Index of the hunk.
        hunk: usize,
        /// Which start.
        side: Side,
    },
    /// The hunk starts before the previous hunk ends in the old text.
    #[error(
        "hunk {hunk} starts at old line {start}, before the previous hunk ends at {previous_end}"
    )]
    Overlap {
        /// Index of the hunk.
        hunk: usize,
        /// The hunk's `old_start`.
        start: u32,
        /// First old line after the previous hunk.
        previous_end: u64,
    },
    /// `new_start` disagrees with `old_start` shifted by the earlier hunks' net line changes.
    #[error("hunk {hunk} has new start {found}, but its old start puts it at {expected}")]
    InconsistentStart {
        /// Index of the hunk.
        hunk: usize,
        /// `new_start` implied by `old_start` and the earlier hunks.
        expected: i64,
        /// The hunk's `new_start`.
        found: u32,
    },
}

/// A side of a patch: the text before it or after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The text the patch applies to.
    Old,
    /// The text the patch produces.
    New,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Old => "old",
            Self::New => "new",
        })
    }
}

/// The role of a hunk line, read from its first character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineKind {
    Context,
    Removed,
    Added,
    NoNewlineMarker,
}

impl LineKind {
    fn of(line: &str) -> Option<Self> {
        match line.as_bytes().first()? {
            b' ' => Some(Self::Context),
            b'-' => Some(Self::Removed),
            b'+' => Some(Self::Added),
            b'\\' => Some(Self::NoNewlineMarker),
            _ => None,
        }
    }
}

/// The line text after its one-byte prefix.
fn content(line: &str) -> &str {
    line.get(1..).unwrap_or_default()
}
