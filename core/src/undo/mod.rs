//! Undo a recorded rewind: expect on disk what that operation wrote, put back what its journal
//! held, and put the conversation cursor back where the operation found it. It runs through the
//! same planner and apply as every other restore, so a file edited since is reported, not
//! overwritten, and the cursor moves in the commit that records the undo: both or neither.
//! Undoing an undo redoes the original.

mod history;

use crate::batch::Batch;
use crate::ctx::Ports;
use crate::cursor::CursorMove;
use crate::error::ErrorKind;
use crate::files::{self, ApplyOutcome, Change, Finish, Gathered, in_effect, outcome, plan};
use crate::id::{MessageId, OperationId, SessionId};
use crate::load;
use crate::model::{OpTarget, Operation, OperationKind, Policy, Session};
use serde::{Deserialize, Serialize};

pub use history::{Latest, latest, undoable};

/// Options of [`undo`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The operation to take back; absent: the latest rewind still in effect (again and again,
    /// walking back, as `jj undo`).
    #[serde(default)]
    pub operation_id: Option<OperationId>,
    /// How to treat files edited since (default `block`).
    #[serde(default)]
    pub policy: Policy,
}

/// Options of [`redo`]: it takes back the latest undo still in effect.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RedoOptions {
    /// How to treat files edited since the undo (default `block`).
    #[serde(default)]
    pub policy: Policy,
}

/// What [`undo`] and [`redo`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The file part (`operationId` is the undo's own operation); `applied` is false when
    /// nothing changed, cursor included.
    #[serde(flatten)]
    pub files: ApplyOutcome,
    /// The operation taken back.
    pub undone_operation_id: OperationId,
    /// The operation taken back was itself an undo: this re-applied the rewind it undid.
    pub redo: bool,
    /// For a redo: the rewind it re-applied (the one the taken-back undo had undone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redone_operation_id: Option<OperationId>,
    /// The conversation cursor put back, when the operation had moved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<CursorRestored>,
}

/// Where the conversation cursor went back to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CursorRestored {
    /// The new generation.
    pub generation: u64,
    /// The prompt the conversation now ends before; absent: no rewind is in effect any more.
    pub rewound_to: Option<MessageId>,
    /// How to resume the agent's own conversation at the restored point, for a session an
    /// agent's hooks recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_resume: Option<Box<crate::agent_resume::AgentResume>>,
}

/// Failures of `undo` and `redo`. Nothing is changed in any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The operation changed neither files nor the conversation cursor.
    #[error(
        "operation {0} changed no files and did not move the conversation; there is nothing to undo"
    )]
    NothingToUndo(OperationId),
    /// A bare `undo`: no rewind is in effect.
    #[error("nothing to undo: session {0} has no rewind in effect (see `rewind ops`)")]
    NothingInEffect(SessionId),
    /// A bare `redo`: no undo is in effect.
    #[error("nothing to redo: no rewind of session {0} is undone (see `rewind ops`)")]
    NothingToRedo(SessionId),
    /// A later undo already took it back.
    #[error("operation {0} was already undone")]
    AlreadyUndone(OperationId),
    /// A later operation moved the conversation cursor; putting it back would take that back too.
    #[error(
        "operation {operation} cannot be undone: {by} moved the conversation since; undo {by} first"
    )]
    CursorMovedSince {
        /// The operation asked for.
        operation: OperationId,
        /// The later operation still in effect.
        by: OperationId,
    },
    /// The file part failed.
    #[error(transparent)]
    Files(#[from] files::Error),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::NothingToUndo(_) => ErrorKind::InvalidInput,
            Self::NothingInEffect(_) | Self::NothingToRedo(_) => ErrorKind::NotFound,
            Self::AlreadyUndone(_) | Self::CursorMovedSince { .. } => ErrorKind::Conflict,
            Self::Files(e) => e.kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// Undo a rewind (a file rewind, a conversation rewind, `both`, a restoring fork) or an undo.
pub fn undo(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<Outcome, Error> {
    // An undo needs the operation log only (it grows with rewinds, not with messages).
    let base = load::session(p.store, session)?;
    let operations = load::operations(p.store, session)?.items;
    let id = match opts.operation_id {
        Some(id) => id,
        None => latest(&operations, Latest::Rewind)
            .ok_or_else(|| Error::NothingInEffect(session.clone()))?,
    };
    take_back(p, &base, &operations, &id, opts.policy)
}

/// Redo: take back the latest undo still in effect.
pub fn redo(p: &mut Ports<'_>, session: &SessionId, opts: RedoOptions) -> Result<Outcome, Error> {
    let base = load::session(p.store, session)?;
    let operations = load::operations(p.store, session)?.items;
    let id =
        latest(&operations, Latest::Undo).ok_or_else(|| Error::NothingToRedo(session.clone()))?;
    take_back(p, &base, &operations, &id, opts.policy)
}

fn take_back(
    p: &mut Ports<'_>,
    base: &Session,
    operations: &[Operation],
    id: &OperationId,
    policy: Policy,
) -> Result<Outcome, Error> {
    let session = &base.id;
    let op = operations
        .iter()
        .find(|o| &o.id == id)
        .ok_or_else(|| load::Error::NotFound {
            what: "operation",
            id: id.to_string(),
        })?;
    if !undoable(op) {
        return Err(Error::NothingToUndo(op.id.clone()));
    }
    if !in_effect(operations, &op.id) {
        return Err(Error::AlreadyUndone(op.id.clone()));
    }
    if op.cursor_before.is_some()
        && let Some(by) = history::moved_since(operations, op)
    {
        return Err(Error::CursorMovedSince {
            operation: op.id.clone(),
            by,
        });
    }
    let writes_files = op.kind.writes_files() && !op.files.is_empty();
    let gathered = Gathered {
        changes: if writes_files {
            changes_of(op)
        } else {
            Vec::new()
        },
        ..Gathered::default()
    };
    let plan = plan(p.store, p.workspace, session.clone(), gathered)?;
    let preview = plan.preview();
    let cursor = op.cursor_before.clone().map(|to| CursorMove::Restore {
        base: base.clone(),
        to,
    });
    let finish = Finish {
        kind: OperationKind::Undo,
        target: Some(OpTarget::Operation {
            operation_id: op.id.clone(),
        }),
        policy,
        undoes: Some(op.id.clone()),
        branch_move: cursor.clone(),
        // The model is told which files changed back; a cursor-only undo changes none.
        notice: writes_files.then(String::new),
        extra: Batch::new(),
        note: None,
        operation_id: None,
    };
    let ex = files::execute_with_notice(p, &plan, finish)?;
    let applied = ex.applied;
    let files = outcome(ex, preview);
    let conversation = match cursor {
        Some(CursorMove::Restore { base, to }) if applied => {
            let salt = files.operation_id.as_ref().map_or("", |o| o.as_str());
            Some(CursorRestored {
                generation: base.generation + 1,
                agent_resume: history::agent_resume(p.store, &base, op, &to, salt),
                rewound_to: to.rewound_to,
            })
        }
        _ => None,
    };
    Ok(Outcome {
        files,
        undone_operation_id: op.id.clone(),
        redo: op.kind == OperationKind::Undo,
        redone_operation_id: op.undoes.clone().filter(|_| op.kind == OperationKind::Undo),
        conversation,
    })
}

/// The recorded writes of `op`, as changes the planner takes back.
fn changes_of(op: &Operation) -> Vec<Change> {
    op.files
        .iter()
        .enumerate()
        .map(|(i, f)| Change {
            path: f.path.clone(),
            before: f.before.clone(),
            after: f.after.clone(),
            before_mode: f.before_mode,
            after_mode: f.after_mode,
            checkpoint: None,
            seq: i as u64,
            tool_name: op.kind.as_str().to_owned(),
            unsupported: None,
            large: false,
        })
        .collect()
}
