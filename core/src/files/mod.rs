//! File rewind: preview and apply. Every restore in the product (since a prompt, one turn, one
//! checkpoint, undo, `both`) goes through this one planner, so none skips the conflict check.

mod diff;
mod dirs;
mod execute;
mod gather;
pub mod history;
mod plan;
mod rollback;
mod verbs;
mod writes;

pub use diff::{DiffAction, DiffHunk, DiffLine, DiffStats, FileDiff, LineKind, RewindDiff, diff};
pub(crate) use dirs::plan;
pub(crate) use execute::{Finish, execute};
pub(crate) use gather::{Change, Gathered, gather, gather_after, log_for};
pub use history::{in_effect, undone_changes, undone_operations};
pub(crate) use plan::Plan;
pub(crate) use rollback::{put, state_of};
pub use verbs::{ApplyOptions, ApplyOutcome, PreviewOptions, TargetOptions, apply, preview};
pub(crate) use verbs::{execute_with_notice, outcome};
pub use writes::RestoredFile;

use crate::error::{ErrorKind, HostError};
use crate::id::{CheckpointId, MessageId, SessionId, TurnId};
use crate::load;
use crate::model::FileAction;
use crate::patch::LineStats;
use serde::{Deserialize, Serialize};

/// What to rewind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Target {
    /// That prompt's turn and everything recorded after it: "rewind to before this prompt".
    Since(MessageId),
    /// Only the turn of this message.
    TurnOf(MessageId),
    /// Only this turn.
    Turn(TurnId),
    /// Only this checkpoint.
    Checkpoint(CheckpointId),
}

/// Why a path cannot be restored safely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnsafeReason {
    /// The file no longer holds what the agent left (someone edited it since).
    ExternalModified,
    /// The stored content needed to restore it is missing or corrupt.
    CheckpointUnreadable,
    /// The file could not be read.
    FileReadFailed,
    /// The change cannot be undone: its before-state was never captured, or it is too large.
    UnsupportedCheckpoint,
    /// A directory the rewind would remove (or replace by a file or link) holds something the
    /// rewind does not remove: never overridden, not even by `force`.
    DirectoryNotEmpty,
}

/// A path the apply would write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SafeFile {
    /// The file.
    pub path: String,
    /// Restore content, or delete a file the session created.
    pub action: FileAction,
    /// How many recorded changes of this path are undone.
    pub operation_count: usize,
    /// The tools that made them.
    pub tool_names: Vec<String>,
    /// A change of this file was too large for a patch (over [`crate::patch::PATCH_LIMIT`]), so
    /// the preview's line counts leave it out. Serialised only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub large: bool,
    /// Lines the rewind writes in this file: `additions` it adds back, `deletions` it removes
    /// (disk now → restored; the diff's counts of the same file).
    #[serde(flatten)]
    pub lines: LineStats,
}

/// A path the apply would not write under the `block` policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsafeFile {
    /// The file (or `checkpoint:<id>` for an unreadable checkpoint row).
    pub path: String,
    /// Why.
    pub reason: UnsafeReason,
    /// Hash on disk now (`missing` when absent), when known.
    pub current_hash: Option<String>,
    /// Hash the agent left, when known.
    pub expected_hash: Option<String>,
    /// Readable explanation.
    pub message: String,
    /// How many recorded changes of this path are involved.
    pub operation_count: usize,
    /// The tools that made them.
    pub tool_names: Vec<String>,
    /// `merge` would keep the user's edits and still undo the agent's change.
    pub mergeable: bool,
    /// A change of this file was too large for a patch (over [`crate::patch::PATCH_LIMIT`]), so
    /// the preview's line counts leave it out. Serialised only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub large: bool,
    /// `force` would restore it: the content to restore is known (journaled, so undoable).
    pub forceable: bool,
    /// Lines a restore would write in this file (disk now → restored, as `force` would write
    /// it; the diff's counts of the same file; 0 where a side is unknown).
    #[serde(flatten)]
    pub lines: LineStats,
}

/// Totals of a preview.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewStats {
    /// Paths involved.
    pub files: usize,
    /// Checkpoints involved.
    pub checkpoints: usize,
    /// Lines the rewind writes in the workspace, summed over every file listed: `additions`
    /// it adds back and `deletions` it removes, disk now → restored (for a conflict, what
    /// `force` would write). The same count as the diff's; binary and large files not counted.
    #[serde(flatten)]
    pub lines: LineStats,
}

/// What a file rewind would do. `can_apply` means: something to restore and nothing unsafe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// The session.
    pub session_id: SessionId,
    /// Nothing unsafe and at least one file to restore.
    pub can_apply: bool,
    /// Paths that would be written, by path.
    pub safe_files: Vec<SafeFile>,
    /// Paths that block a `block` apply, by path.
    pub unsafe_files: Vec<UnsafeFile>,
    /// Paths that already hold what the rewind would restore: not written, not counted.
    pub unchanged_files: Vec<String>,
    /// Paths whose changes an earlier operation already undid (excluded).
    pub reverted_paths: Vec<String>,
    /// Totals.
    pub stats: PreviewStats,
}

/// Failures of preview and apply (conflicts are not failures: they are in the preview).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The options are malformed (e.g. no target or two targets).
    #[error("{0}")]
    InvalidInput(String),
    /// A path filter entry is not a workspace path.
    #[error(transparent)]
    InvalidPath(#[from] crate::path::PathError),
    /// The checkpoint is gone: retention dropped the session's older checkpoints.
    #[error(
        "checkpoint {checkpoint} is not available: retention (gc) dropped this session's checkpoints up to seq {through}"
    )]
    Dropped {
        /// The checkpoint asked for.
        checkpoint: CheckpointId,
        /// The highest dropped seq.
        through: u64,
    },
    /// The target message is not a user prompt.
    #[error("message {0} is not a rewindable user prompt")]
    NotAPrompt(MessageId),
    /// The target message has no turn.
    #[error("message {0} belongs to no turn")]
    NoTurn(MessageId),
    /// The store failed.
    #[error("the store failed: {0}")]
    Store(HostError),
    /// A write failed and rolling back the written files failed too. The journal stays and
    /// `recover` finishes the rollback.
    #[error("the apply failed ({cause}) and rolling back failed too ({rollback}); run recover")]
    Unrecoverable {
        /// What failed first.
        cause: String,
        /// What failed while rolling back.
        rollback: String,
    },
    /// Someone else rewound the conversation first.
    #[error("session {0} was changed by another rewind; nothing was changed, try again")]
    Raced(SessionId),
    /// The final commit's outcome is unknown (the store lost its connection at that moment and
    /// could not be asked afterwards). Rolling back could undo an apply the log records, so the
    /// files stay as written and the journal stays pending: `recover` settles it from what the
    /// store holds (journal gone: the commit happened; journal there: it did not).
    #[error(
        "the store cannot say whether the apply was recorded ({cause}); the files were left as \
         written and journal {journal} kept: run recover (`rewind recover`) once the store is \
         reachable, and the log and the files will agree"
    )]
    InDoubt {
        /// The journal left pending.
        journal: crate::id::JournalId,
        /// The store's account of what happened.
        cause: String,
    },
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::InvalidPath(_) => ErrorKind::InvalidPath,
            Self::InvalidInput(_) | Self::NotAPrompt(_) | Self::NoTurn(_) => {
                ErrorKind::InvalidInput
            }
            Self::Store(e) => e.error_kind(),
            Self::Unrecoverable { .. } | Self::InDoubt { .. } => ErrorKind::Unrecoverable,
            Self::Dropped { .. } => ErrorKind::Unavailable,
            Self::Raced(_) => ErrorKind::Conflict,
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}
