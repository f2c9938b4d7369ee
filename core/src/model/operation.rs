use super::{Branch, Millis};
use crate::hash::ContentHash;
use crate::id::{CheckpointId, JournalId, MessageId, OperationId, SessionId, TurnId};
use crate::path::WorkPath;
use serde::{Deserialize, Serialize};

/// What an operation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    /// Restored workspace files.
    FileRewind,
    /// Moved the conversation's branch cursor.
    ConversationRewind,
    /// Both, as one unit.
    Both,
    /// Undid an earlier operation's file writes.
    Undo,
    /// A file apply that failed and was rolled back.
    ApplyFailed,
    /// A pending journal left by a crash was finished or rolled back.
    Recovery,
    /// A fork was made from this session (in restore mode it also put files back).
    Fork,
    /// A side chat was opened from this session.
    SideChat,
    /// Retention dropped old checkpoints of this session.
    Gc,
}

impl OperationKind {
    /// The wire word, e.g. `file_rewind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FileRewind => "file_rewind",
            Self::ConversationRewind => "conversation_rewind",
            Self::Both => "both",
            Self::Undo => "undo",
            Self::ApplyFailed => "apply_failed",
            Self::Recovery => "recovery",
            Self::Fork => "fork",
            Self::SideChat => "side_chat",
            Self::Gc => "gc",
        }
    }

    /// Whether this operation wrote files that `undo` can take back.
    pub fn writes_files(self) -> bool {
        matches!(
            self,
            Self::FileRewind | Self::Both | Self::Undo | Self::Fork
        )
    }
}

/// How an apply treats unsafe paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Any unsafe path: nothing is written.
    #[default]
    Block,
    /// Write the safe paths, report the rest.
    Skip,
    /// Reverse-apply the agent's change onto a modified text file, keeping the user's edits.
    Merge,
    /// Overwrite unsafe paths too (still journaled, so undoable).
    Force,
}

/// What an apply does to a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// Write content.
    Restore,
    /// Remove the file.
    Delete,
}

impl FileAction {
    /// The wire word (`restore`, `delete`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Restore => "restore",
            Self::Delete => "delete",
        }
    }
}

/// The target of a rewind, as recorded in the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OpTarget {
    /// That prompt's turn and everything after.
    Since {
        /// The prompt.
        message_id: MessageId,
    },
    /// Only that turn.
    Turn {
        /// The turn.
        turn_id: TurnId,
    },
    /// Only that checkpoint.
    Checkpoint {
        /// The checkpoint.
        checkpoint_id: CheckpointId,
    },
    /// Another operation (for undo).
    Operation {
        /// The operation.
        operation_id: OperationId,
    },
}

/// One path an operation wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpFile {
    /// The file.
    pub path: WorkPath,
    /// Restore or delete.
    pub action: FileAction,
    /// What was on disk before (`None` = absent); its bytes are a blob.
    pub before: Option<ContentHash>,
    /// What the operation left (`None` = absent).
    pub after: Option<ContentHash>,
    /// Permission bits on disk before, when the host has modes: an undo puts them back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_mode: Option<u32>,
    /// Permission bits the operation left, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_mode: Option<u32>,
    /// The checkpoints whose change to this path the operation undid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undid: Vec<CheckpointId>,
    /// The write kept the user's later edits (merge policy).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merged: bool,
    /// The write overwrote content the engine could not prove it made (force policy).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced: bool,
}

/// One entry of the operation log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    /// Its id.
    pub id: OperationId,
    /// Its session.
    pub session_id: SessionId,
    /// What it did.
    pub kind: OperationKind,
    /// When it was committed.
    pub created_at: Millis,
    /// What it targeted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<OpTarget>,
    /// The policy of a file apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
    /// The paths it wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<OpFile>,
    /// For an undo: the operation it took back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<OperationId>,
    /// The journal that protected its writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_id: Option<JournalId>,
    /// For a conversation rewind: the prompt the branch now ends before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_target: Option<MessageId>,
    /// For a conversation rewind: the generation it created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// For gc: the highest seq of the checkpoints it dropped. A rewind reaching back past it is
    /// refused as unreadable instead of silently restoring only part of the history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_through: Option<u64>,
    /// A readable note (failure cause, recovery outcome).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For an operation that moved the conversation cursor: where it stood before, so an undo
    /// can put it back. Absent on operations recorded before cursor moves could be undone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_before: Option<CursorBefore>,
}

/// The conversation cursor as an operation found it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CursorBefore {
    /// The active branch before the move.
    pub branch: Branch,
    /// The session's last seq then: putting the cursor back selects what `branch` selected up
    /// to here (later messages belong to the branch the move made), then what comes next.
    pub last_seq: u64,
    /// The session's `rewound_to` then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewound_to: Option<MessageId>,
}

impl CursorBefore {
    /// Where the cursor of `session` stands, for the operation that moves it, given the
    /// session's last seq at commit time.
    pub fn of(session: &super::Session, stored_last: u64) -> Self {
        Self {
            branch: session.branch.clone(),
            last_seq: session.last_seq(stored_last),
            rewound_to: session.rewound_to.clone(),
        }
    }

    /// The branch that puts the cursor back, when the session's last seq is now `last_seq`.
    pub fn restored(&self, last_seq: u64) -> Branch {
        self.branch.rewound(self.last_seq + 1, last_seq)
    }
}
