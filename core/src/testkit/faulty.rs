//! `Faulty<T>`: adds fault injection to any store or workspace, so the same fault scenarios run
//! against SQLite and real files as against the memory hosts.

use super::faults::{Fault, FaultOp, Faults};
use crate::batch::Batch;
use crate::error::HostError;
use crate::hash::ContentHash;
use crate::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use crate::path::WorkPath;
use crate::ports::{BlobInfo, IdTable, Row, SeqRange, Store, StoreWrite, Workspace};

type OptRow = Result<Option<Row>, HostError>;
type Ids = Result<Vec<String>, HostError>;

/// A host with fault injection in front of it.
#[derive(Debug, Default)]
pub struct Faulty<T> {
    inner: T,
    faults: Faults,
}

impl<T> Faulty<T> {
    /// Wrap a host.
    pub fn new(inner: T) -> Self {
        Self {
            inner,
            faults: Faults::default(),
        }
    }
    /// Arm a fault.
    pub fn arm(&mut self, fault: Fault) {
        self.faults.arm(fault);
    }
    /// Disarm all faults.
    pub fn clear_faults(&mut self) {
        self.faults.clear();
    }
    /// The wrapped host.
    pub fn inner(&self) -> &T {
        &self.inner
    }
    /// The wrapped host, mutably (bypasses the faults).
    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.inner
    }
    fn check(&mut self, op: FaultOp, what: &dyn std::fmt::Display) -> Result<(), HostError> {
        if self.faults.hit(op) {
            return Err(HostError::io(format!(
                "injected fault: {} of {what} failed",
                format!("{op:?}").to_lowercase()
            )));
        }
        Ok(())
    }
}

impl<S: Store> Store for Faulty<S> {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.inner.session(id)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.inner.sessions()
    }
    fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.inner.messages(s)
    }
    fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> {
        self.inner.turn(s, t)
    }
    fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.inner.turns(s)
    }
    fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.inner.checkpoints(s)
    }
    fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.inner.operations(s)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.inner.journals()
    }
    fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        self.inner.blob(h)
    }
    fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> {
        self.inner.last_seq(s)
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        self.inner.command_fact(p, c)
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        self.inner.blobs()
    }
    fn version(&self) -> Result<u64, HostError> {
        self.inner.version()
    }
    fn message(&self, s: &SessionId, m: &MessageId) -> Result<Option<Row>, HostError> {
        self.inner.message(s, m)
    }
    fn messages_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        self.inner.messages_in(s, r)
    }
    fn last_messages_in(
        &self,
        s: &SessionId,
        r: SeqRange,
        n: usize,
    ) -> Result<Vec<Row>, HostError> {
        self.inner.last_messages_in(s, r, n)
    }
    fn message_count_in(&self, s: &SessionId, r: SeqRange) -> Result<u64, HostError> {
        self.inner.message_count_in(s, r)
    }
    fn boundaries(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.inner.boundaries(s)
    }
    fn turns_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        self.inner.turns_in(s, r)
    }
    fn turn_count_in(&self, s: &SessionId, r: SeqRange) -> Result<u64, HostError> {
        self.inner.turn_count_in(s, r)
    }
    fn turn_at_in(&self, s: &SessionId, r: SeqRange, n: u64, back: bool) -> OptRow {
        self.inner.turn_at_in(s, r, n, back)
    }
    fn ids_with_prefix(&self, t: IdTable, s: Option<&SessionId>, p: &str, n: usize) -> Ids {
        self.inner.ids_with_prefix(t, s, p, n)
    }
    fn checkpoint(&self, s: &SessionId, c: &CheckpointId) -> Result<Option<Row>, HostError> {
        self.inner.checkpoint(s, c)
    }
    fn checkpoints_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        self.inner.checkpoints_in(s, r)
    }
    fn turn_checkpoints(&self, s: &SessionId, t: &TurnId) -> Result<Vec<Row>, HostError> {
        self.inner.turn_checkpoints(s, t)
    }
    fn session_bytes(&self, s: &SessionId) -> Result<u64, HostError> {
        self.inner.session_bytes(s)
    }
    fn has_blob(&self, h: &ContentHash) -> Result<bool, HostError> {
        self.inner.has_blob(h)
    }
    fn workspace_snapshot(&self, s: &SessionId) -> Result<Option<Row>, HostError> {
        self.inner.workspace_snapshot(s)
    }
}

impl<S: StoreWrite> StoreWrite for Faulty<S> {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        let doubt = self.faults.hit(FaultOp::CommitInDoubt);
        let lost = self.faults.hit(FaultOp::CommitLostReply);
        self.check(FaultOp::Commit, &"the batch")?;
        if doubt {
            return Err(super::faults::in_doubt(false));
        }
        self.inner.commit(batch)?;
        if lost {
            return Err(super::faults::in_doubt(true));
        }
        Ok(())
    }
}

impl<W: Workspace> Workspace for Faulty<W> {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        self.check(FaultOp::Read, path)?;
        self.inner.read(path)
    }
    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        self.check(FaultOp::Write, path)?;
        self.inner.write(path, bytes)
    }
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check(FaultOp::Remove, path)?;
        self.inner.remove(path)
    }
    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        self.inner.mode(path)
    }
    // Modes ride along with reads and writes: they never count as a faultable call.
    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        self.inner.set_mode(path, mode)
    }
    fn node(&mut self, path: &WorkPath) -> Result<Option<crate::node::Node>, HostError> {
        self.check(FaultOp::Read, path)?;
        self.inner.node(path)
    }
    fn make_dir(&mut self, path: &WorkPath, mode: Option<u32>) -> Result<(), HostError> {
        self.check(FaultOp::Write, path)?;
        self.inner.make_dir(path, mode)
    }
    fn remove_dir(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check(FaultOp::Remove, path)?;
        self.inner.remove_dir(path)
    }
    fn remove_link(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check(FaultOp::Remove, path)?;
        self.inner.remove_link(path)
    }
    fn dir_entries(&mut self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        self.inner.dir_entries(path)
    }
    fn make_symlink(&mut self, path: &WorkPath, target: &[u8]) -> Result<(), HostError> {
        self.check(FaultOp::Write, path)?;
        self.inner.make_symlink(path, target)
    }
    fn sync(&mut self) -> Result<(), HostError> {
        self.inner.sync()
    }
    fn scanner(&mut self) -> Option<&mut dyn crate::ports::Scan> {
        self.inner.scanner()
    }
}
