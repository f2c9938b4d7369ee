//! The ports through a reference or a box: a caller may hand the engine `&mut store`,
//! `Box<dyn Workspace>` or a closure for the clock, and each forwards every method (the
//! provided ones too, so an adapter's faster range reads are not lost behind a reference), and
//! [`WholeReads`], a store seen through its whole-session reads only.

use super::{BlobInfo, Clock, IdTable, Row, Scan, SeqRange, Store, StoreWrite, Workspace};
use crate::batch::Batch;
use crate::error::HostError;
use crate::hash::ContentHash;
use crate::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use crate::model::Millis;
use crate::path::WorkPath;

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
            fn message(&self, s: &SessionId, m: &MessageId) -> Result<Option<Row>, HostError> { (**self).message(s, m) }
            fn messages_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> { (**self).messages_in(s, r) }
            fn last_messages_in(&self, s: &SessionId, r: SeqRange, n: usize) -> Result<Vec<Row>, HostError> { (**self).last_messages_in(s, r, n) }
            fn message_count_in(&self, s: &SessionId, r: SeqRange) -> Result<u64, HostError> { (**self).message_count_in(s, r) }
            fn boundaries(&self, s: &SessionId) -> Result<Vec<Row>, HostError> { (**self).boundaries(s) }
            fn turns_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> { (**self).turns_in(s, r) }
            fn turn_count_in(&self, s: &SessionId, r: SeqRange) -> Result<u64, HostError> { (**self).turn_count_in(s, r) }
            fn turn_at_in(&self, s: &SessionId, r: SeqRange, n: u64, back: bool) -> Result<Option<Row>, HostError> { (**self).turn_at_in(s, r, n, back) }
            fn ids_with_prefix(&self, t: IdTable, s: Option<&SessionId>, p: &str, n: usize) -> Result<Vec<String>, HostError> { (**self).ids_with_prefix(t, s, p, n) }
            fn checkpoint(&self, s: &SessionId, c: &CheckpointId) -> Result<Option<Row>, HostError> { (**self).checkpoint(s, c) }
            fn checkpoints_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> { (**self).checkpoints_in(s, r) }
            fn turn_checkpoints(&self, s: &SessionId, t: &TurnId) -> Result<Vec<Row>, HostError> { (**self).turn_checkpoints(s, t) }
            fn session_bytes(&self, s: &SessionId) -> Result<u64, HostError> { (**self).session_bytes(s) }
            fn has_blob(&self, h: &ContentHash) -> Result<bool, HostError> { (**self).has_blob(h) }
            fn workspace_snapshot(&self, s: &SessionId) -> Result<Option<Row>, HostError> { (**self).workspace_snapshot(s) }
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

macro_rules! forward_workspace {
    ($($ty:ty),*) => {$(
        impl<W: Workspace + ?Sized> Workspace for $ty {
            fn read(&mut self, p: &WorkPath) -> Result<Option<Vec<u8>>, HostError> { (**self).read(p) }
            fn write(&mut self, p: &WorkPath, bytes: &[u8]) -> Result<(), HostError> { (**self).write(p, bytes) }
            fn remove(&mut self, p: &WorkPath) -> Result<(), HostError> { (**self).remove(p) }
            fn mode(&mut self, p: &WorkPath) -> Result<Option<u32>, HostError> { (**self).mode(p) }
            fn set_mode(&mut self, p: &WorkPath, mode: u32) -> Result<(), HostError> { (**self).set_mode(p, mode) }
            fn node(&mut self, p: &WorkPath) -> Result<Option<crate::node::Node>, HostError> { (**self).node(p) }
            fn make_dir(&mut self, p: &WorkPath, mode: Option<u32>) -> Result<(), HostError> { (**self).make_dir(p, mode) }
            fn remove_dir(&mut self, p: &WorkPath) -> Result<(), HostError> { (**self).remove_dir(p) }
            fn remove_link(&mut self, p: &WorkPath) -> Result<(), HostError> { (**self).remove_link(p) }
            fn dir_entries(&mut self, p: &WorkPath) -> Result<Vec<String>, HostError> { (**self).dir_entries(p) }
            fn make_symlink(&mut self, p: &WorkPath, target: &[u8]) -> Result<(), HostError> { (**self).make_symlink(p, target) }
            fn sync(&mut self) -> Result<(), HostError> { (**self).sync() }
            fn scanner(&mut self) -> Option<&mut dyn Scan> { (**self).scanner() }
        }
    )*};
}
forward_workspace!(&mut W, Box<W>);

impl<F: Fn() -> Millis> Clock for F {
    fn now_ms(&self) -> Millis {
        self()
    }
}

/// A store seen through its whole-session reads only: every range read answers with the
/// trait's default, built on those. A store that overrides a range read (a JS store without the
/// optional callback, SQLite on a file older than its index) falls back to
/// `WholeReads(self).messages_in(…)` instead of writing the default again.
#[derive(Debug)]
pub struct WholeReads<'a, S: ?Sized>(pub &'a S);

impl<S: Store + ?Sized> Store for WholeReads<'_, S> {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.0.session(id)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.0.sessions()
    }
    fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.messages(s)
    }
    fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> {
        self.0.turn(s, t)
    }
    fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.turns(s)
    }
    fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.checkpoints(s)
    }
    fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.operations(s)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.0.journals()
    }
    fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        self.0.blob(h)
    }
    fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> {
        self.0.last_seq(s)
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        self.0.command_fact(p, c)
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        self.0.blobs()
    }
    fn version(&self) -> Result<u64, HostError> {
        self.0.version()
    }
    fn workspace_snapshot(&self, s: &SessionId) -> Result<Option<Row>, HostError> {
        self.0.workspace_snapshot(s)
    }
}

/// Whether a stored message body is a compaction summary. Stores that index the `boundary` flag
/// of `AppendMessage` never need this; it serves the whole-read defaults and migrations.
pub fn probe_boundary(body: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        compaction: Option<serde_json::Value>,
    }
    serde_json::from_str::<Probe>(body).is_ok_and(|p| p.compaction.is_some_and(|c| !c.is_null()))
}

/// The `addedBytes` of a stored checkpoint body (0 when absent or undecodable).
pub fn probe_added_bytes(body: &str) -> u64 {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        #[serde(default)]
        added_bytes: u64,
    }
    serde_json::from_str::<Probe>(body).map_or(0, |p| p.added_bytes)
}

/// The `turnId` of a stored checkpoint body (`None` when absent or undecodable). Stores that
/// index the `turn` of `PutCheckpoint` need it only for writes persisted before it was carried,
/// the whole-read default and migrations.
pub fn probe_turn(body: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        #[serde(default)]
        turn_id: Option<String>,
    }
    serde_json::from_str::<Probe>(body).ok()?.turn_id
}
