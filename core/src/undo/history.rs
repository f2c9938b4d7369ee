//! What the operation log says an undo may take back: the latest rewind or undo still in
//! effect, whether a later operation moved the conversation cursor since, and how the agent's
//! own conversation is resumed where the cursor goes back to.

use crate::agent_resume::{self, AgentResume};
use crate::files::in_effect;
use crate::id::OperationId;
use crate::model::{CursorBefore, Message, Operation, OperationKind, Session};
use crate::ports::Store;
use crate::window;

/// Which operation a bare `undo` or `redo` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latest {
    /// The latest rewind (file rewind, conversation rewind, both, restoring fork) in effect.
    Rewind,
    /// The latest undo of a rewind still in effect.
    Undo,
}

/// Whether `undo` can take `op` back: it wrote files or moved the conversation cursor (and
/// recorded where the cursor stood).
pub fn undoable(op: &Operation) -> bool {
    (op.kind.writes_files() && !op.files.is_empty()) || op.cursor_before.is_some()
}

/// The operation a bare `undo` (`Latest::Rewind`) or `redo` (`Latest::Undo`) takes back.
/// Only the undo of a rewind is redone: a redo is itself an undo (of that undo), and redoing it
/// again would undo the rewind once more, which is `undo`'s job.
pub fn latest(ops: &[Operation], which: Latest) -> Option<OperationId> {
    let kind_of = |id: &OperationId| ops.iter().find(|o| &o.id == id).map(|o| o.kind);
    let wanted = |o: &Operation| match which {
        Latest::Rewind => o.kind != OperationKind::Undo,
        Latest::Undo => {
            o.kind == OperationKind::Undo
                && o.undoes
                    .as_ref()
                    .and_then(kind_of)
                    .is_some_and(|k| k != OperationKind::Undo)
        }
    };
    ops.iter()
        .rev()
        .find(|o| wanted(o) && undoable(o) && in_effect(ops, &o.id))
        .map(|o| o.id.clone())
}

/// A later operation, still in effect, that moved the conversation cursor after `op` did:
/// putting the cursor back where `op` found it would silently take that one back too. An undo
/// of an operation that itself came after `op` cancels against it, so walking back with
/// repeated undos is never blocked by the undos themselves.
pub(crate) fn moved_since(ops: &[Operation], op: &Operation) -> Option<OperationId> {
    let at = ops.iter().position(|o| o.id == op.id)?;
    let later = &ops[at + 1..];
    let is_later = |id: &OperationId| later.iter().any(|o| &o.id == id);
    later
        .iter()
        .filter(|o| o.cursor_before.is_some() && in_effect(ops, &o.id))
        .find(|o| !(o.kind == OperationKind::Undo && o.undoes.as_ref().is_some_and(is_later)))
        .map(|o| o.id.clone())
}

/// How to resume the agent's conversation where the cursor goes back to. Undoing a rewind
/// brings back the conversation as it was: the agent session its last prompt there was
/// recorded in, whole. Redoing a rewind goes back to before its prompt, as the rewind did.
pub(crate) fn agent_resume(
    store: &dyn Store,
    base: &Session,
    undone: &Operation,
    to: &CursorBefore,
    salt: &str,
) -> Option<Box<AgentResume>> {
    base.agent.as_ref()?;
    if undone.kind == OperationKind::Undo {
        let prompt = window::message(store, &base.id, to.rewound_to.as_ref()?).ok()?;
        return agent_resume::before(base, &prompt, None, salt);
    }
    let restored = Session {
        branch: to.restored(to.last_seq),
        ..base.clone()
    };
    let prompt = window::latest_active(store, &restored, to.last_seq + 1, Message::is_prompt)
        .ok()
        .flatten()?;
    agent_resume::whole(base, &prompt, salt)
}
