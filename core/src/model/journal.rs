use super::{Millis, Operation, Session};
use crate::hash::ContentHash;
use crate::id::{JournalId, SessionId};
use crate::path::WorkPath;
use serde::{Deserialize, Serialize};

/// One path an apply is about to write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    /// The file.
    pub path: WorkPath,
    /// The exact bytes on disk before the apply (a blob), or `None` when absent.
    pub prior: Option<ContentHash>,
    /// What the apply writes (a blob), or `None` to remove the file.
    pub target: Option<ContentHash>,
}

/// A durable record, committed before any file is touched, of every path an apply will write and
/// what was there. Cleared in the same transaction that records the finished operation; a journal
/// still present after a crash is finished or rolled back by `recover`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Journal {
    /// Its id.
    pub id: JournalId,
    /// The session the apply belongs to.
    pub session_id: SessionId,
    /// When it was written.
    pub created_at: Millis,
    /// Paths in write order.
    pub entries: Vec<JournalEntry>,
    /// The operation to record once every write succeeded.
    pub operation: Operation,
    /// For `both`: the session row (new branch) to commit with the operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_update: Option<Session>,
}
