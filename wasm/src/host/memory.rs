//! The in-memory store of `Engine.inMemory` / `fromLog` / `fromSnapshot`, handing every
//! committed batch to the host.

use super::Thrown;
use js_sys::{Function, Uint8Array};
use rewind_core::batch::Batch;
use rewind_core::error::HostError;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use rewind_core::mem::MemStore;
use rewind_core::ports::{BlobInfo, Row, SeqRange, Store, StoreWrite};
use wasm_bindgen::prelude::*;

/// `MemStore` that hands every committed batch to the host's `onCommit(bytes)`.
///
/// The batch is committed in memory before the callback runs, so the engine never sees a
/// half-committed state. If the callback throws, the commit still stands (the verb goes on and
/// completes), and the exception is kept in `hook_failed` so the call then throws `host_error`.
#[derive(Debug)]
pub(crate) struct EmittingStore {
    inner: MemStore,
    on_commit: Option<Function>,
    hook_failed: Thrown,
}

impl EmittingStore {
    pub(crate) fn new(inner: MemStore, on_commit: Option<Function>, hook_failed: Thrown) -> Self {
        Self {
            inner,
            on_commit,
            hook_failed,
        }
    }

    /// The in-memory store.
    pub(crate) fn inner(&self) -> &MemStore {
        &self.inner
    }
}

macro_rules! delegate_store {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Store for EmittingStore {
            $(fn $name(&self, $($arg: $ty),*) -> Result<$ret, HostError> { self.inner.$name($($arg),*) })*
        }
    };
}

delegate_store! {
    session(id: &SessionId) -> Option<Row>;
    sessions() -> Vec<Row>;
    messages(s: &SessionId) -> Vec<Row>;
    turn(s: &SessionId, t: &TurnId) -> Option<Row>;
    turns(s: &SessionId) -> Vec<Row>;
    checkpoints(s: &SessionId) -> Vec<Row>;
    operations(s: &SessionId) -> Vec<Row>;
    journals() -> Vec<Row>;
    blob(h: &ContentHash) -> Option<Vec<u8>>;
    blobs() -> Vec<BlobInfo>;
    last_seq(s: &SessionId) -> u64;
    command_fact(p: &SessionId, c: &CommandId) -> Option<Row>;
    version() -> u64;
    message(s: &SessionId, m: &MessageId) -> Option<Row>;
    messages_in(s: &SessionId, r: SeqRange) -> Vec<Row>;
    last_messages_in(s: &SessionId, r: SeqRange, n: usize) -> Vec<Row>;
    message_count_in(s: &SessionId, r: SeqRange) -> u64;
    boundaries(s: &SessionId) -> Vec<Row>;
    turns_in(s: &SessionId, r: SeqRange) -> Vec<Row>;
    checkpoint(s: &SessionId, c: &CheckpointId) -> Option<Row>;
    checkpoints_in(s: &SessionId, r: SeqRange) -> Vec<Row>;
    turn_checkpoints(s: &SessionId, t: &TurnId) -> Vec<Row>;
    session_bytes(s: &SessionId) -> u64;
    has_blob(h: &ContentHash) -> bool;
    workspace_snapshot(s: &SessionId) -> Option<Row>;
}

impl StoreWrite for EmittingStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        // The byte form before the commit consumes the batch: the store keeps rows, not batches.
        let bytes = self.on_commit.as_ref().map(|_| batch.to_bytes());
        self.inner.commit(batch)?;
        if let (Some(f), Some(bytes)) = (&self.on_commit, bytes) {
            let bytes = Uint8Array::from(bytes.as_slice());
            if let Err(e) = f.call1(&JsValue::UNDEFINED, &bytes) {
                // Deliberately not an Err: the batch is committed and the engine must see that.
                let _ = self.hook_failed.host_error(e);
            }
        }
        Ok(())
    }
}
