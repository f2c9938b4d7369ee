use super::Millis;
use crate::hash::ContentHash;
use crate::id::{SessionId, TurnId};
use serde::{Deserialize, Serialize};

/// A session's latest workspace snapshot: where its manifest is and what the session had
/// recorded when it was taken, so the next snapshot counts only what changed since (and not
/// what a checkpoint or a file rewind recorded meanwhile).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceSnapshot {
    /// Its session.
    pub session_id: SessionId,
    /// The manifest blob (`shell::Manifest`): every tracked path's version and stat data.
    pub manifest: ContentHash,
    /// The session's last seq when it was taken (its checkpoint's seq when it recorded one).
    pub seq: u64,
    /// How many operations the session had then.
    pub operations: u64,
    /// The turn it was taken in: the next snapshot of the same turn attributes what changed to
    /// the agent; a later turn's first one attributes it to the person.
    #[serde(default)]
    pub turn_id: Option<TurnId>,
    /// When it was taken.
    pub taken_at: Millis,
    /// Tracked files.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}
