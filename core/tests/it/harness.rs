//! A small session builder over the memory hosts.

use rewind_core::Engine;
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::model::CheckpointKind;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
use rewind_core::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};

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
        }],
    };
    e.record_edit(s, opts).expect("edit");
}
