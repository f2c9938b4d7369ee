//! Forks and side chats. A fork is a pure [`Bundle`] built from the parent's derived state,
//! validated, and committed with its command fact in one transaction; replaying the same command
//! id returns the same child and writes nothing at all.

mod build;
mod bundle;
mod commit;
mod select;
#[cfg(test)]
mod tests;

pub use bundle::{Bundle, BundleError, validate};
pub use commit::{fork, side_chat};

use crate::error::{ErrorKind, HostError};
use crate::files::{self, RestoredFile};
use crate::id::{CheckpointId, CommandId, MessageId, OperationId, SessionId, TurnId};
use crate::load;
use crate::model::SessionKind;
use serde::{Deserialize, Serialize};

/// Where a fork starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ForkPoint {
    /// Through the turn of this message (its whole turn).
    Message(MessageId),
    /// Through this checkpoint: the conversation and files as they were right after it.
    Checkpoint(CheckpointId),
    /// Through this completed turn's stable boundary (conversation only; the parent may be
    /// running a newer turn).
    Turn(TurnId),
}

/// What a fork does to the workspace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceMode {
    /// Touch no file: parent and child share the directory as it is.
    #[default]
    Shared,
    /// Undo the changes recorded after the fork point, through the conflict-checked planner;
    /// any conflict refuses the whole fork.
    Restore,
}

/// Options of [`fork`]: exactly one of `at`, `checkpoint`, `turn`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// Fork through the turn of this message.
    #[serde(default)]
    pub at: Option<MessageId>,
    /// Fork right after this checkpoint.
    #[serde(default)]
    pub checkpoint: Option<CheckpointId>,
    /// Fork at this completed turn's stable boundary (conversation only).
    #[serde(default)]
    pub turn: Option<TurnId>,
    /// Makes the fork idempotent: the same id returns the same child (default: a fresh id).
    #[serde(default)]
    pub command_id: Option<CommandId>,
    /// Shared (default) or restore.
    #[serde(default)]
    pub workspace_mode: WorkspaceMode,
}

impl Options {
    /// The one fork point given.
    pub fn point(&self) -> Result<ForkPoint, Error> {
        let given = [
            self.at.clone().map(ForkPoint::Message),
            self.checkpoint.clone().map(ForkPoint::Checkpoint),
            self.turn.clone().map(ForkPoint::Turn),
        ];
        let mut given = given.into_iter().flatten();
        match (given.next(), given.next()) {
            (Some(point), None) => Ok(point),
            _ => Err(Error::InvalidInput(
                "give exactly one fork point: at, checkpoint or turn".into(),
            )),
        }
    }
}

/// Options of [`side_chat`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SideChatOptions {
    /// Makes the side chat idempotent.
    #[serde(default)]
    pub command_id: Option<CommandId>,
}

/// What a fork or side chat produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The child session.
    pub child_id: SessionId,
    /// `fork` or `side_chat`.
    pub kind: SessionKind,
    /// Messages copied from the parent.
    pub copied_messages: usize,
    /// Checkpoints the child inherited.
    pub copied_checkpoints: usize,
    /// Files put back to the fork point (restore mode).
    pub restored_files: Vec<RestoredFile>,
    /// The command id (pass it again to replay).
    pub command_id: CommandId,
    /// The parent's operation-log entry.
    pub operation_id: Option<OperationId>,
    /// True when this call found the command already done and wrote nothing.
    #[serde(default)]
    pub replayed: bool,
    /// How to resume the agent's own conversation at the same point, for a session an agent's
    /// hooks recorded ([`crate::agent_resume`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_resume: Option<Box<crate::agent_resume::AgentResume>>,
}

/// Failures of fork and side chat. Nothing is written in any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The options are malformed.
    #[error("{0}")]
    InvalidInput(String),
    /// The fork point is not on the parent's active branch.
    #[error("{0} is not on the active branch of the parent")]
    NotOnBranch(String),
    /// The turn has no stable boundary (it has not completed with a reply).
    #[error(
        "turn {0} has no stable boundary: it has not completed with a successful assistant reply"
    )]
    NotStable(TurnId),
    /// The boundary is empty or does not end at its boundary message.
    #[error("turn {0} has an invalid boundary")]
    InvalidBoundary(TurnId),
    /// The boundary lists a message twice.
    #[error("the boundary of turn {0} contains duplicate message ids")]
    DuplicateBoundaryIds(TurnId),
    /// The boundary's first message is not on the active branch.
    #[error("the boundary of turn {0} is not an active transcript segment")]
    NotActiveSegment(TurnId),
    /// The boundary is not a contiguous run of the active branch.
    #[error("the boundary of turn {0} is not a contiguous active transcript segment")]
    NotContiguous(TurnId),
    /// The boundary message is not a completed assistant message.
    #[error("the boundary of turn {0} is not a completed assistant message")]
    BoundaryNotCompleted(TurnId),
    /// Restoring the workspace to the fork point would overwrite later edits or cannot be done.
    #[error("the workspace cannot be restored to the fork point: {0}")]
    WorkspaceConflict(String),
    /// The bundle references something outside the child (a bug, caught before writing).
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// A stored command fact does not decode.
    #[error("the command fact of {0} is corrupt")]
    CorruptFact(CommandId),
    /// The file part failed.
    #[error(transparent)]
    Files(#[from] files::Error),
    /// The store failed.
    #[error("committing the fork failed: {0}")]
    Store(HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::InvalidInput(_) => ErrorKind::InvalidInput,
            Self::NotOnBranch(_) => ErrorKind::NotFound,
            Self::NotStable(_)
            | Self::InvalidBoundary(_)
            | Self::DuplicateBoundaryIds(_)
            | Self::NotActiveSegment(_)
            | Self::NotContiguous(_)
            | Self::BoundaryNotCompleted(_) => ErrorKind::Unavailable,
            Self::WorkspaceConflict(_) => ErrorKind::Conflict,
            Self::Bundle(_) | Self::CorruptFact(_) => ErrorKind::Corrupt,
            Self::Files(e) => e.kind(),
            Self::Store(e) => e.error_kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}
