use super::Millis;
use crate::hash::ContentHash;
use crate::id::{CheckpointId, MessageId, SessionId, TurnId};
use crate::patch::Hunk;
use crate::path::WorkPath;
use serde::{Deserialize, Serialize};

/// What kind of tool produced a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointKind {
    /// An edit of part of a file.
    Edit,
    /// A whole-file write.
    Write,
    /// A shell command's captured effects (the difference between two workspace snapshots).
    Shell,
    /// Changes the person made between turns, seen by a workspace snapshot: shown and used for
    /// conflict checks, never rewound unless asked (`includeExternal`).
    External,
    /// Recorded by hand.
    Manual,
}

/// What a recorded version of a path is. Rows written before directories and links were
/// recorded have no `kind`: they are files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A regular file: `hash` is its bytes'.
    #[default]
    File,
    /// A directory: no bytes; `hash` is the one every directory has ([`crate::node::dir_hash`]).
    Directory,
    /// A symbolic link: `hash` is that of its tagged target ([`crate::node::Node`]).
    Symlink,
}

impl NodeKind {
    /// Whether this is the default (a file): the field is then left out of the JSON.
    pub fn is_file(&self) -> bool {
        *self == Self::File
    }
}

/// A present path's identity: hash, size and (when the host knows it) its mode bits; a
/// directory or a symbolic link says so in `kind`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileVersion {
    /// SHA-256 of the bytes; the bytes are a blob in the store.
    pub hash: ContentHash,
    /// Length in bytes.
    pub size: u64,
    /// Permission bits (e.g. `0o755`), when the host has modes; `None` = unknown (old rows,
    /// browsers): a restore then leaves the mode to the host's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// File (default, left out), directory or symbolic link.
    #[serde(default, skip_serializing_if = "NodeKind::is_file")]
    pub kind: NodeKind,
}

/// Whether the before-state of a change was captured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Capture {
    /// Both states are known.
    Captured,
    /// The before-state is unknown; this change can never be restored silently.
    Failed {
        /// Why capture failed (e.g. `too_large`, `read_failed`).
        reason: String,
    },
}

/// One file's change within a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// The file.
    pub path: WorkPath,
    /// State before the tool ran; `None` = the file did not exist (or, when capture failed, unknown).
    pub before: Option<FileVersion>,
    /// State after the tool ran; `None` = the tool deleted it.
    pub after: Option<FileVersion>,
    /// jsdiff-compatible hunks from before to after, when both sides are text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Vec<Hunk>>,
    /// Whether the before-state is trustworthy.
    pub capture: Capture,
}

impl FileChange {
    /// True when this change cannot be undone because its before-state is unknown.
    pub fn capture_failed(&self) -> bool {
        matches!(self.capture, Capture::Failed { .. })
    }
}

/// One tool call's recorded file changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// Its id.
    pub id: CheckpointId,
    /// Its session.
    pub session_id: SessionId,
    /// Creation order: shares the session's sequence with messages.
    pub seq: u64,
    /// The turn whose tool made the change.
    pub turn_id: TurnId,
    /// That turn's prompt.
    pub prompt_id: MessageId,
    /// The assistant message that issued the tool call.
    #[serde(default)]
    pub tool_message_id: Option<MessageId>,
    /// The tool call's id.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The tool's name.
    pub tool_name: String,
    /// What the tool was asked to do, when recorded (a shell checkpoint's command line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<String>,
    /// Edit, write, shell, external or manual.
    pub kind: CheckpointKind,
    /// When it was recorded.
    pub created_at: Millis,
    /// The files it changed (at least one).
    pub changes: Vec<FileChange>,
    /// Bytes of content it brought into the store when it was recorded (content the store
    /// already held costs nothing): its share of the session's quota.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub added_bytes: u64,
}

impl Checkpoint {
    /// The write that stores it, its bytes and its turn beside the body for the stores' indexes
    /// (the session quota, `Store::turn_checkpoints`).
    pub(crate) fn put(&self) -> crate::batch::Write {
        crate::batch::Write::PutCheckpoint {
            session: self.session_id.clone(),
            seq: self.seq,
            checkpoint: self.id.clone(),
            body: crate::load::encode(self),
            bytes: self.added_bytes,
            turn: Some(self.turn_id.clone()),
        }
    }
}

// serde's `skip_serializing_if` passes a reference.
fn is_zero(n: &u64) -> bool {
    *n == 0
}
