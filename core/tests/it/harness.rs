//! A small session builder over the memory hosts.

use rewind_core::Engine;
use rewind_core::HostError;
use rewind_core::batch::Batch;
use rewind_core::hash::ContentHash;
use rewind_core::id::CommandId;
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::model::CheckpointKind;
use rewind_core::ports::{BlobInfo, Row, Store};
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
use rewind_core::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
use std::cell::RefCell;
use std::rc::Rc;

pub(crate) type MemEngine = Engine<MemStore, MemWorkspace>;

pub(crate) fn engine() -> MemEngine {
    Engine::new(
        MemStore::new(),
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    )
}

pub(crate) fn session<S: StoreWrite, W: Workspace>(e: &mut Engine<S, W>) -> SessionId {
    e.create_session(SessionOptions::default())
        .expect("session")
        .id
}

pub(crate) fn prompt<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    text: &str,
) -> (TurnId, MessageId) {
    let out = e
        .record_prompt(
            s,
            PromptOptions {
                text: text.into(),
                payload: None,
            },
        )
        .expect("prompt");
    (out.turn_id, out.message_id)
}

/// The tool writes `after` to the workspace, then the edit is recorded.
pub(crate) fn tool_edit(
    e: &mut MemEngine,
    s: &SessionId,
    t: &TurnId,
    path: &str,
    after: Option<&[u8]>,
) {
    let before = e.workspace().get(path).map(<[u8]>::to_vec);
    match after {
        Some(b) => e.workspace_mut().put(path, b),
        None => e.workspace_mut().delete(path),
    }
    let opts = EditOptions {
        turn_id: t.clone(),
        tool_name: "Edit".into(),
        tool_call_id: None,
        tool_message_id: None,
        kind: CheckpointKind::Edit,
        changes: vec![EditChange {
            path: path.into(),
            before,
            after: after.map(<[u8]>::to_vec),
            patch: None,
            before_mode: None,
            after_mode: None,
        }],
    };
    e.record_edit(s, opts).expect("edit");
}

/// One store shared by two engines, as two processes share one database.
#[derive(Clone, Default)]
pub(crate) struct Shared(pub(crate) Rc<RefCell<MemStore>>);

impl Store for Shared {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.0.borrow().session(id)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.0.borrow().sessions()
    }
    fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().messages(s)
    }
    fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> {
        self.0.borrow().turn(s, t)
    }
    fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().turns(s)
    }
    fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().checkpoints(s)
    }
    fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().operations(s)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.0.borrow().journals()
    }
    fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        self.0.borrow().blob(h)
    }
    fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> {
        self.0.borrow().last_seq(s)
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        self.0.borrow().command_fact(p, c)
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        self.0.borrow().blobs()
    }
    fn version(&self) -> Result<u64, HostError> {
        self.0.borrow().version()
    }
    fn workspace_snapshot(&self, s: &SessionId) -> Result<Option<Row>, HostError> {
        self.0.borrow().workspace_snapshot(s)
    }
}

impl StoreWrite for Shared {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        self.0.borrow_mut().commit(batch)
    }
}
