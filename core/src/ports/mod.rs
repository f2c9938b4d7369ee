//! The only doors to the world: small sync traits the hosts implement. The store returns rows as
//! stored JSON text so decoding (and reporting undecodable rows) happens once, here in the core,
//! the same way for every host.

use crate::batch::Batch;
use crate::error::HostError;
use crate::hash::ContentHash;
use crate::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use crate::model::Millis;
use crate::node::Node;
use crate::path::WorkPath;

mod forward;
mod ids;
mod scan;
pub use forward::{WholeReads, probe_added_bytes, probe_boundary, probe_turn};
pub use ids::{IdTable, upper_bound};
pub use scan::{EntryKind, Listing, Scan, ScanEntry, Stat, Unlisted};

/// One stored record: its key, its sequence number where the table has one, and its JSON body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The record's id.
    pub id: String,
    /// The record's seq (messages, checkpoints) or insertion order (operations).
    pub seq: u64,
    /// The record as JSON text.
    pub body: String,
}

/// A stored blob's key and sizes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobInfo {
    /// Its hash.
    pub hash: ContentHash,
    /// Its length in bytes.
    pub size: u64,
    /// Bytes it takes in the store (less than `size` when the store compresses it).
    pub stored: u64,
    /// The blob it is stored as a delta against, when it is: that one must be kept as long as
    /// this one is (gc keeps bases alive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<ContentHash>,
}

/// A half-open range of seqs, `from..to`. Range reads take one so everyday verbs read only the
/// tail of a session they need, not the whole session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqRange {
    /// The first seq in the range.
    pub from: u64,
    /// The first seq after it (`u64::MAX`: open-ended).
    pub to: u64,
}

impl SeqRange {
    /// Every seq.
    pub const ALL: Self = Self {
        from: 0,
        to: u64::MAX,
    };

    /// `from..to`.
    pub fn new(from: u64, to: u64) -> Self {
        Self { from, to }
    }

    /// Every seq from `from` on.
    pub fn from(from: u64) -> Self {
        Self { from, to: u64::MAX }
    }

    /// Whether `seq` lies in the range.
    pub fn contains(&self, seq: u64) -> bool {
        self.from <= seq && seq < self.to
    }

    /// Whether the range holds no seq.
    pub fn is_empty(&self) -> bool {
        self.from >= self.to
    }
}

/// Reads. Absence is `Ok(None)` / an empty list, never an error.
pub trait Store {
    /// One session.
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError>;
    /// Every session, in creation order.
    fn sessions(&self) -> Result<Vec<Row>, HostError>;
    /// A session's messages, by seq.
    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError>;
    /// One turn.
    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError>;
    /// A session's turns, by prompt seq.
    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError>;
    /// A session's checkpoints, by seq.
    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError>;
    /// A session's operations, in commit order.
    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError>;
    /// Every pending journal, oldest first.
    fn journals(&self) -> Result<Vec<Row>, HostError>;
    /// A blob's bytes. The engine verifies the hash itself.
    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError>;
    /// The highest seq used in the session (messages and checkpoints), 0 when none.
    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError>;
    /// The fact recorded for a command issued in `parent`, if that command ran.
    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError>;
    /// Every stored blob, by hash.
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError>;
    /// How many batches were committed so far: any commit changes it, so a planner that must not
    /// race anyone (gc) commits with a `Precondition::Version`.
    fn version(&self) -> Result<u64, HostError>;

    // Range reads. Everyday verbs (record, turn end, preview/apply of recent turns, conversation
    // rewind, undo, edit/retry) use only these and the keyed reads above, so their cost follows
    // the turn, not the session. The defaults answer from the whole-session reads, so a store
    // that has only those stays correct; every shipped store answers them from an index.

    /// One message by id, on any branch.
    fn message(&self, session: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        Ok(self
            .messages(session)?
            .into_iter()
            .find(|r| r.id == id.as_str()))
    }
    /// The messages whose seq lies in `range`, by seq.
    fn messages_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let mut rows = self.messages(session)?;
        rows.retain(|r| range.contains(r.seq));
        Ok(rows)
    }
    /// At most `limit` messages in `range`: those with the highest seqs, by seq.
    fn last_messages_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        limit: usize,
    ) -> Result<Vec<Row>, HostError> {
        let mut rows = self.messages_in(session, range)?;
        let skip = rows.len().saturating_sub(limit);
        rows.drain(..skip);
        Ok(rows)
    }
    /// How many messages lie in `range`.
    fn message_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        Ok(self.messages_in(session, range)?.len() as u64)
    }
    /// The compaction summaries (messages written with `boundary: true`), on any branch, by seq.
    fn boundaries(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let mut rows = self.messages(session)?;
        rows.retain(|r| probe_boundary(&r.body));
        Ok(rows)
    }
    /// The turns whose prompt seq lies in `range`, by prompt seq.
    fn turns_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let mut rows = self.turns(session)?;
        rows.retain(|r| range.contains(r.seq));
        Ok(rows)
    }
    /// How many turns have their prompt seq in `range` (with [`Store::turn_at_in`], what `#N`
    /// and `@` are resolved with, one range of the active branch at a time).
    fn turn_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        Ok(self.turns_in(session, range)?.len() as u64)
    }
    /// The turn `n` places from the first in `range` by prompt seq (0: the first), or from the
    /// last when `from_end` (0: the last); `None` when the range has no more than `n` turns.
    fn turn_at_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        n: u64,
        from_end: bool,
    ) -> Result<Option<Row>, HostError> {
        let mut rows = self.turns_in(session, range)?;
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n >= rows.len() {
            return Ok(None);
        }
        let at = if from_end { rows.len() - 1 - n } else { n };
        Ok(Some(rows.swap_remove(at)))
    }
    /// Up to `limit` ids of `table` starting with `prefix`, sorted; within `session` for the
    /// tables that belong to one (store-wide without one). What typed short ids resolve with.
    fn ids_with_prefix(
        &self,
        table: IdTable,
        session: Option<&SessionId>,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, HostError> {
        ids::by_whole_reads(self, table, session, prefix, limit)
    }
    /// One checkpoint by id.
    fn checkpoint(&self, session: &SessionId, id: &CheckpointId) -> Result<Option<Row>, HostError> {
        Ok(self
            .checkpoints(session)?
            .into_iter()
            .find(|r| r.id == id.as_str()))
    }
    /// The checkpoints whose seq lies in `range`, by seq.
    fn checkpoints_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let mut rows = self.checkpoints(session)?;
        rows.retain(|r| range.contains(r.seq));
        Ok(rows)
    }
    /// The checkpoints recorded into `turn`, by seq. A checkpoint can be recorded into any
    /// turn still on the branch, an ended older one too, so its seq may lie after later turns'
    /// prompts: no seq range answers this, the store indexes the checkpoint's turn
    /// (`Write::PutCheckpoint::turn`).
    fn turn_checkpoints(&self, session: &SessionId, turn: &TurnId) -> Result<Vec<Row>, HostError> {
        let mut rows = self.checkpoints(session)?;
        rows.retain(|r| probe_turn(&r.body).as_deref() == Some(turn.as_str()));
        Ok(rows)
    }
    /// The bytes the session's checkpoints brought into the store (the `bytes` of every
    /// `PutCheckpoint` still stored): what a session quota is checked against, in O(1).
    fn session_bytes(&self, session: &SessionId) -> Result<u64, HostError> {
        Ok(self
            .checkpoints(session)?
            .iter()
            .map(|r| probe_added_bytes(&r.body))
            .sum())
    }
    /// The session's latest workspace snapshot (`Write::PutWorkspaceSnapshot`), if it took one.
    /// No default: a store that dropped these rows would make every snapshot a first one.
    fn workspace_snapshot(&self, session: &SessionId) -> Result<Option<Row>, HostError>;
    /// Whether the store holds a blob (one keyed lookup; no bytes are read).
    fn has_blob(&self, hash: &ContentHash) -> Result<bool, HostError> {
        Ok(self.blob(hash)?.is_some())
    }
}

/// The one mutating method: apply a whole batch atomically, after checking every precondition
/// inside the same transaction. A failed precondition is a `HostErrorKind::PreconditionFailed`
/// error and writes nothing.
pub trait StoreWrite: Store {
    /// Commit all of `batch` or nothing.
    fn commit(&mut self, batch: Batch) -> Result<(), HostError>;

    /// Called by `recover` before it settles pending journals: may it? A store several
    /// processes share answers `false` while another process that may own a journal is alive
    /// (natively: it takes the lock every apply holds for the life of its journal, and keeps it
    /// until [`StoreWrite::end_settling`]). The default suits a store one process owns.
    fn begin_settling(&mut self) -> Result<bool, HostError> {
        Ok(true)
    }

    /// Settling is over; let go of whatever `begin_settling` took.
    fn end_settling(&mut self) {}
}

/// The files the agent works on.
pub trait Workspace {
    /// The file's bytes, or `None` when it does not exist.
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError>;
    /// Replace the file atomically, creating parent directories.
    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError>;
    /// Remove the file; a missing file is fine.
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError>;
    /// The file's permission bits (e.g. `0o755`), `None` when it does not exist or the host
    /// has no modes (a browser). The default has none.
    fn mode(&mut self, _path: &WorkPath) -> Result<Option<u32>, HostError> {
        Ok(None)
    }
    /// Set the permission bits of an existing file. Hosts without modes ignore it.
    fn set_mode(&mut self, _path: &WorkPath, _mode: u32) -> Result<(), HostError> {
        Ok(())
    }
    /// What the path holds now, its type included, without following a final symbolic link
    /// (`None`: nothing there, or a parent is not a directory). The default knows only files.
    fn node(&mut self, path: &WorkPath) -> Result<Option<Node>, HostError> {
        Ok(self.read(path)?.map(Node::File))
    }
    /// Create a directory and any missing parents, with these permission bits (`None`: the
    /// host's default); an existing directory keeps its entries and gets the mode. The default
    /// (a host whose directories are only implied by its paths, like the browser's) does nothing.
    fn make_dir(&mut self, _path: &WorkPath, _mode: Option<u32>) -> Result<(), HostError> {
        Ok(())
    }
    /// Remove an empty directory; a missing one is fine, one that holds anything is an error
    /// (the engine checks first; this is the host's own guard). The default does nothing.
    fn remove_dir(&mut self, _path: &WorkPath) -> Result<(), HostError> {
        Ok(())
    }
    /// Remove the symbolic link at `path` itself, never what it leads to (`remove` acts on
    /// what a link leads to); a missing one is fine. The default (a host without links) is
    /// `remove`.
    fn remove_link(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.remove(path)
    }
    /// The names a directory holds (none when it is missing). The default has none.
    fn dir_entries(&mut self, _path: &WorkPath) -> Result<Vec<String>, HostError> {
        Ok(Vec::new())
    }
    /// Make a symbolic link to `target` at a free path, creating parent directories. The
    /// default (a host without links) refuses.
    fn make_symlink(&mut self, path: &WorkPath, _target: &[u8]) -> Result<(), HostError> {
        Err(HostError::io(format!(
            "{path}: this workspace host has no symbolic links"
        )))
    }
    /// Make every write and removal since the last call durable. A host may defer part of
    /// that work (natively: syncing the directories whose entries changed, once per directory
    /// instead of once per file); each write is atomic either way. The engine calls it before it
    /// commits anything that says the writes happened. The default has nothing deferred.
    fn sync(&mut self) -> Result<(), HostError> {
        Ok(())
    }
    /// The host's walker, when it can list the workspace with stat data (shell capture needs
    /// one). The default has none.
    fn scanner(&mut self) -> Option<&mut dyn Scan> {
        None
    }
}

/// Wall-clock time, from the host.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> Millis;
}

/// Fresh id suffixes, from the host (random natively, deterministic in tests).
pub trait IdSource {
    /// A suffix never handed out before: letters, digits, '-' or '_'.
    fn next_suffix(&mut self) -> String;
}

/// Optional host hook that stops the background work of turns a conversation rewind removes.
/// An error means "could not stop": the rewind then commits nothing.
pub trait TurnControl {
    /// Stop every running task of these turns.
    fn stop_turns(&mut self, session: &SessionId, turns: &[TurnId]) -> Result<(), HostError>;
}
