//! The only doors to the world: small sync traits the hosts implement. The store returns rows as
//! stored JSON text so decoding (and reporting undecodable rows) happens once, here in the core,
//! the same way for every host.

use crate::batch::Batch;
use crate::error::HostError;
use crate::hash::ContentHash;
use crate::id::{CommandId, SessionId, TurnId};
use crate::model::Millis;
use crate::path::WorkPath;

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

macro_rules! forward_store {
    ($($ty:ty),*) => {$(
        impl<S: Store + ?Sized> Store for $ty {
            fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> { (**self).session(id) }
            fn sessions(&self) -> Result<Vec<Row>, HostError> { (**self).sessions() }
            fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> { (**self).messages(s) }
            fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> { (**self).turn(s, t) }
            fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> { (**self).turns(s) }
            fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> { (**self).checkpoints(s) }
            fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> { (**self).operations(s) }
            fn journals(&self) -> Result<Vec<Row>, HostError> { (**self).journals() }
            fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> { (**self).blob(h) }
            fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> { (**self).last_seq(s) }
            fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> { (**self).command_fact(p, c) }
            fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> { (**self).blobs() }
            fn version(&self) -> Result<u64, HostError> { (**self).version() }
        }
    )*};
}
forward_store!(&S, &mut S, Box<S>);

macro_rules! forward_store_write {
    ($($ty:ty),*) => {$(
        impl<S: StoreWrite + ?Sized> StoreWrite for $ty {
            fn commit(&mut self, batch: Batch) -> Result<(), HostError> { (**self).commit(batch) }
            fn begin_settling(&mut self) -> Result<bool, HostError> { (**self).begin_settling() }
            fn end_settling(&mut self) { (**self).end_settling() }
        }
    )*};
}
forward_store_write!(&mut S, Box<S>);

impl<W: Workspace + ?Sized> Workspace for &mut W {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        (**self).read(path)
    }
    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        (**self).write(path, bytes)
    }
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        (**self).remove(path)
    }
    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        (**self).mode(path)
    }
    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        (**self).set_mode(path, mode)
    }
}

impl<W: Workspace + ?Sized> Workspace for Box<W> {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        (**self).read(path)
    }
    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        (**self).write(path, bytes)
    }
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        (**self).remove(path)
    }
    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        (**self).mode(path)
    }
    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        (**self).set_mode(path, mode)
    }
}

impl<F: Fn() -> Millis> Clock for F {
    fn now_ms(&self) -> Millis {
        self()
    }
}
