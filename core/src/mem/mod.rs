//! The in-memory store (feature `mem`): all-or-nothing commits with preconditions, like a SQLite
//! transaction, and an index for every read the port has, so a write or a keyed read costs
//! O(log n) however long the session is. The wasm package's `Engine.inMemory` is built on it;
//! [`snapshot`] is its compact byte form, for a fast reload.
//!
//! With feature `testkit` it also takes commit faults and has corruption helpers for tests.

mod reads;
pub mod snapshot;
pub mod stage;
mod write;

use crate::batch::Batch;
use crate::hash::ContentHash;
use crate::id::{CommandId, JournalId, SessionId};
use std::collections::{BTreeMap, BTreeSet};

/// One session's rows and the indexes over them.
#[derive(Clone, Debug, Default)]
struct SessionRows {
    order: u64,
    generation: u64,
    body: String,
    /// seq → (id, body).
    messages: BTreeMap<u64, (String, String)>,
    /// Message id → seq.
    message_ids: BTreeMap<String, u64>,
    /// Seqs of the compaction summaries.
    boundaries: BTreeSet<u64>,
    /// Turn id → (prompt seq, body).
    turns: BTreeMap<String, (u64, String)>,
    /// (prompt seq, turn id), for reads by seq.
    turn_seqs: BTreeSet<(u64, String)>,
    /// seq → checkpoint.
    checkpoints: BTreeMap<u64, CheckpointRow>,
    /// Checkpoint id → seq.
    checkpoint_ids: BTreeMap<String, u64>,
    /// (turn id, seq) of every checkpoint recorded into a turn, for `turn_checkpoints`.
    turn_checkpoints: BTreeSet<(String, u64)>,
    /// (commit order, id, body).
    operations: Vec<(u64, String, String)>,
    /// The `bytes` of every stored checkpoint, summed.
    bytes: u64,
    /// The latest workspace snapshot's body.
    workspace_snapshot: Option<String>,
}

#[derive(Clone, Debug, Default)]
struct CheckpointRow {
    id: String,
    body: String,
    bytes: u64,
    /// The turn it was recorded into (`None`: a body that names none).
    turn: Option<String>,
}

impl SessionRows {
    fn last_seq(&self) -> u64 {
        let m = self.messages.keys().next_back().copied().unwrap_or(0);
        let c = self.checkpoints.keys().next_back().copied().unwrap_or(0);
        m.max(c)
    }

    /// Whether a message or checkpoint of this session has this id.
    fn has_id(&self, id: &str) -> bool {
        self.message_ids.contains_key(id) || self.checkpoint_ids.contains_key(id)
    }

    fn insert_message(&mut self, seq: u64, id: String, body: String, boundary: bool) {
        if boundary {
            self.boundaries.insert(seq);
        }
        self.message_ids.insert(id.clone(), seq);
        self.messages.insert(seq, (id, body));
    }

    fn insert_turn(&mut self, id: String, seq: u64, body: String) {
        if let Some((old, _)) = self.turns.get(&id) {
            self.turn_seqs.remove(&(*old, id.clone()));
        }
        self.turn_seqs.insert((seq, id.clone()));
        self.turns.insert(id, (seq, body));
    }

    fn insert_checkpoint(&mut self, seq: u64, row: CheckpointRow) {
        self.bytes += row.bytes;
        self.checkpoint_ids.insert(row.id.clone(), seq);
        if let Some(turn) = &row.turn {
            self.turn_checkpoints.insert((turn.clone(), seq));
        }
        self.checkpoints.insert(seq, row);
    }

    fn remove_checkpoint(&mut self, id: &str) {
        if let Some(seq) = self.checkpoint_ids.remove(id)
            && let Some(row) = self.checkpoints.remove(&seq)
        {
            self.bytes = self.bytes.saturating_sub(row.bytes);
            if let Some(turn) = row.turn {
                self.turn_checkpoints.remove(&(turn, seq));
            }
        }
    }
}

/// Records in memory.
#[derive(Clone, Debug, Default)]
pub struct MemStore {
    sessions: BTreeMap<SessionId, SessionRows>,
    journals: BTreeMap<JournalId, (u64, SessionId, String)>,
    blobs: BTreeMap<ContentHash, Vec<u8>>,
    commands: BTreeMap<(SessionId, CommandId), String>,
    /// Insertion order of sessions, operations and journals.
    order: u64,
    /// Batches committed so far (what `Precondition::Version` compares with).
    version: u64,
    /// The committed batches themselves, only when asked for ([`MemStore::with_log`]): a store
    /// that keeps its rows needs no second copy of everything.
    log: Option<Vec<Batch>>,
    /// Skip hashing the bytes of new blobs at commit (see [`MemStore::trust_blob_hashes`]).
    trust_blob_hashes: bool,
    #[cfg(feature = "testkit")]
    faults: crate::testkit::Faults,
}

impl MemStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that also keeps every committed batch ([`MemStore::committed`]).
    pub fn with_log() -> Self {
        Self {
            log: Some(Vec::new()),
            ..Self::default()
        }
    }

    /// Every batch committed so far, in order (what a browser host would persist). Empty unless
    /// the store was made by [`MemStore::with_log`].
    pub fn committed(&self) -> &[Batch] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Keep every batch committed from now on (a store loaded from a snapshot then has the
    /// batches after it).
    pub fn keep_log(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    /// While on, a new blob's bytes are not hashed at commit: for replaying a log whose blobs
    /// were hashed when they were first committed. Hashing is most of a long log's replay, and
    /// reads verify every blob's hash anyway, so a blob damaged in the log still reads as
    /// `corrupt` (and only the checkpoints that need it are unreadable).
    pub fn trust_blob_hashes(&mut self, on: bool) {
        self.trust_blob_hashes = on;
    }

    /// Whether it keeps its committed batches.
    pub fn keeps_log(&self) -> bool {
        self.log.is_some()
    }

    /// Number of stored blobs.
    pub fn blob_count(&self) -> usize {
        self.blobs.len()
    }
}

#[cfg(feature = "testkit")]
impl MemStore {
    /// Arm a commit fault.
    pub fn arm(&mut self, fault: crate::testkit::Fault) {
        self.faults.arm(fault);
    }

    /// Disarm all faults.
    pub fn clear_faults(&mut self) {
        self.faults.clear();
    }

    /// Replace a stored message body (to simulate a corrupt row).
    pub fn corrupt_message(&mut self, session: &SessionId, seq: u64, body: &str) {
        let rows = self.sessions.get_mut(session).expect("session exists");
        rows.messages.get_mut(&seq).expect("message exists").1 = body.to_owned();
    }

    /// Replace a stored checkpoint body (to simulate a corrupt row).
    pub fn corrupt_checkpoint(&mut self, session: &SessionId, seq: u64, body: &str) {
        let rows = self.sessions.get_mut(session).expect("session exists");
        body.clone_into(
            &mut rows
                .checkpoints
                .get_mut(&seq)
                .expect("checkpoint exists")
                .body,
        );
    }

    /// Overwrite a blob's bytes without changing its key (bit rot).
    pub fn corrupt_blob(&mut self, hash: &ContentHash, bytes: &[u8]) {
        self.blobs.insert(hash.clone(), bytes.to_vec());
    }

    /// Drop a blob (as if retention removed it).
    pub fn drop_blob(&mut self, hash: &ContentHash) {
        self.blobs.remove(hash);
    }
}
