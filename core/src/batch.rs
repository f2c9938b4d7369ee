//! What a verb asks the store to commit: typed writes with pre-encoded JSON bodies, plus the
//! preconditions the store checks inside the same transaction.
//!
//! A batch also has a byte form ([`Batch::to_bytes`] / [`Batch::from_bytes`]: JSON, blob bytes in
//! base64). Hosts whose storage is asynchronous (a browser) persist the committed batches in
//! order and replay them on load; replaying them onto an empty store rebuilds the same state.

use crate::hash::ContentHash;
use crate::id::{CheckpointId, CommandId, JournalId, MessageId, OperationId, SessionId, TurnId};
use serde::{Deserialize, Serialize};

/// One row-level write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "write",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Write {
    /// Insert a new session (the `SessionAbsent` precondition guards it).
    CreateSession {
        /// Key.
        session: SessionId,
        /// JSON body.
        body: String,
    },
    /// Replace a session row (branch cursor moves); `generation` is stored as its own column.
    UpdateSession {
        /// Key.
        session: SessionId,
        /// The session's new generation.
        generation: u64,
        /// JSON body.
        body: String,
    },
    /// Append a transcript message at `seq`.
    AppendMessage {
        /// Owner.
        session: SessionId,
        /// Position.
        seq: u64,
        /// Key.
        message: MessageId,
        /// JSON body.
        body: String,
        /// It is a compaction summary (stores index it for `Store::boundaries`).
        #[serde(default, skip_serializing_if = "is_false")]
        boundary: bool,
    },
    /// Insert or replace a turn.
    PutTurn {
        /// Owner.
        session: SessionId,
        /// Key.
        turn: TurnId,
        /// The turn's prompt seq (ordering).
        seq: u64,
        /// JSON body.
        body: String,
    },
    /// Append a checkpoint at `seq`.
    PutCheckpoint {
        /// Owner.
        session: SessionId,
        /// Position (shared with messages).
        seq: u64,
        /// Key.
        checkpoint: CheckpointId,
        /// JSON body.
        body: String,
        /// Bytes of content this checkpoint brought into the store: added to the session's
        /// running total (`Store::session_bytes`), taken off again when the row is deleted.
        #[serde(default)]
        bytes: u64,
        /// The turn the checkpoint was recorded into (its body's `turnId`): stores index it for
        /// `Store::turn_checkpoints`. A checkpoint may be recorded into an older turn after
        /// later prompts, so no seq range stands in for it. `None` in batches persisted before
        /// writes carried it (a store then reads it from the body).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn: Option<TurnId>,
    },
    /// Store content once by hash; writing an existing hash is a no-op (a store checks for the
    /// key before doing any work on the bytes).
    PutBlob {
        /// Key: SHA-256 of `bytes`.
        hash: ContentHash,
        /// Content.
        #[serde(with = "base64_bytes")]
        bytes: Vec<u8>,
        /// An earlier version of the same file, which a store may keep this one as a delta
        /// against. Only a hint: the blob is always readable whole, by its own hash.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<ContentHash>,
    },
    /// Append an operation-log entry.
    PutOperation {
        /// Owner.
        session: SessionId,
        /// Key.
        operation: OperationId,
        /// JSON body.
        body: String,
    },
    /// Record a pending apply journal.
    PutJournal {
        /// Key.
        journal: JournalId,
        /// Owner.
        session: SessionId,
        /// JSON body.
        body: String,
    },
    /// Clear a journal once its apply is settled.
    RemoveJournal {
        /// Key.
        journal: JournalId,
    },
    /// Delete a blob (gc: only once nothing references it).
    DeleteBlob {
        /// Key.
        hash: ContentHash,
    },
    /// Delete a checkpoint row (retention).
    DeleteCheckpoint {
        /// Owner.
        session: SessionId,
        /// Key.
        checkpoint: CheckpointId,
    },
    /// Replace the session's latest workspace snapshot (shell capture): one row per session.
    PutWorkspaceSnapshot {
        /// Owner.
        session: SessionId,
        /// JSON body (`model::WorkspaceSnapshot`).
        body: String,
    },
    /// Delete a session and every row it owns: messages, turns, checkpoints, operations,
    /// journals, its workspace snapshot and the command facts recorded under it (retention).
    DeleteSession {
        /// Key.
        session: SessionId,
    },
    /// Record that a command (a fork, a side chat) ran, under its parent session, so a replay
    /// of the same command id returns the same result and writes nothing.
    PutCommandFact {
        /// The session the command was issued in.
        parent: SessionId,
        /// The caller's command id.
        command: CommandId,
        /// JSON body.
        body: String,
    },
}

impl Write {
    /// The session that owns the written row, when there is one.
    pub fn session(&self) -> Option<&SessionId> {
        match self {
            Self::CreateSession { session, .. }
            | Self::UpdateSession { session, .. }
            | Self::AppendMessage { session, .. }
            | Self::PutTurn { session, .. }
            | Self::PutCheckpoint { session, .. }
            | Self::PutOperation { session, .. }
            | Self::PutJournal { session, .. }
            | Self::PutCommandFact {
                parent: session, ..
            }
            | Self::DeleteCheckpoint { session, .. }
            | Self::PutWorkspaceSnapshot { session, .. }
            | Self::DeleteSession { session } => Some(session),
            Self::PutBlob { .. } | Self::RemoveJournal { .. } | Self::DeleteBlob { .. } => None,
        }
    }
}

/// A condition checked atomically with the writes; if any fails, nothing is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Precondition {
    /// No session with this id exists yet.
    SessionAbsent(SessionId),
    /// The session exists and its generation is exactly this.
    Generation(SessionId, u64),
    /// The session's highest seq is exactly this (nobody appended meanwhile).
    LastSeq(SessionId, u64),
    /// The journal is still pending (nobody settled it meanwhile).
    JournalPresent(JournalId),
    /// No command fact exists yet for this (parent session, command id).
    CommandUnused(SessionId, CommandId),
    /// The store has committed exactly this many batches (nobody else committed meanwhile).
    Version(u64),
}

/// Everything one commit does.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[must_use = "a batch does nothing until it is committed"]
pub struct Batch {
    /// Checked first, inside the transaction.
    pub preconditions: Vec<Precondition>,
    /// Applied in order.
    pub writes: Vec<Write>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }
    /// Add a precondition.
    pub fn require(&mut self, p: Precondition) -> &mut Self {
        self.preconditions.push(p);
        self
    }
    /// Add a write.
    pub fn push(&mut self, w: Write) -> &mut Self {
        self.writes.push(w);
        self
    }
    /// Whether nothing would be written.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// The byte form a host persists (JSON; blob bytes in base64).
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("batches serialise to JSON without failure")
    }

    /// Read a batch back from its byte form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

// serde's `skip_serializing_if` passes a reference.
fn is_false(b: &bool) -> bool {
    !*b
}

mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_byte_form_round_trips_every_write() {
        let s = SessionId::parse("ses_1").expect("valid");
        let bytes = vec![0u8, 0xff, b'\r', b'\n'];
        let mut b = Batch::new();
        b.require(Precondition::SessionAbsent(s.clone()));
        b.require(Precondition::LastSeq(s.clone(), 7));
        b.require(Precondition::CommandUnused(
            s.clone(),
            CommandId::parse("cmd_1").expect("valid"),
        ));
        b.push(Write::CreateSession {
            session: s,
            body: "{\"a\":1}".into(),
        });
        b.push(Write::PutBlob {
            hash: ContentHash::of(&bytes),
            bytes,
            base: None,
        });
        b.push(Write::RemoveJournal {
            journal: JournalId::parse("jnl_1").expect("valid"),
        });
        let text = String::from_utf8(b.to_bytes()).expect("json is utf-8");
        assert!(
            text.contains("\"AP8NCg==\""),
            "blob bytes travel as base64: {text}"
        );
        assert_eq!(Batch::from_bytes(text.as_bytes()).expect("decode"), b);
        assert!(Batch::from_bytes(b"{\"writes\": 3}").is_err());
    }
}
