//! Undo a recorded file rewind: expect on disk what that operation wrote, put back what its
//! journal held. It runs through the same planner and apply as every other restore, so a file
//! edited since is reported, not overwritten. Undoing an undo redoes the original.

use crate::batch::Batch;
use crate::ctx::Ports;
use crate::error::ErrorKind;
use crate::files::{self, ApplyOutcome, Change, Finish, Gathered, in_effect, outcome, plan};
use crate::id::{OperationId, SessionId};
use crate::load;
use crate::model::{OpTarget, OperationKind, Policy};
use serde::Deserialize;

/// Options of [`undo`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The operation to take back.
    pub operation_id: OperationId,
    /// How to treat files edited since (default `block`).
    #[serde(default)]
    pub policy: Policy,
}

/// Failures of `undo`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The operation wrote no files (e.g. a conversation-only rewind).
    #[error("operation {0} wrote no files; there is nothing to undo")]
    NothingToUndo(OperationId),
    /// A later undo already took it back.
    #[error("operation {0} was already undone")]
    AlreadyUndone(OperationId),
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
            Self::AlreadyUndone(_) => ErrorKind::Conflict,
            Self::Files(e) => e.kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// Undo a file-writing operation (a file rewind, the file part of `both`, or an undo).
pub fn undo(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<ApplyOutcome, Error> {
    // An undo needs the operation log only (it grows with rewinds, not with messages).
    load::session(p.store, session)?;
    let operations = load::operations(p.store, session)?.items;
    let op = operations
        .iter()
        .find(|o| o.id == opts.operation_id)
        .ok_or_else(|| load::Error::NotFound {
            what: "operation",
            id: opts.operation_id.to_string(),
        })?;
    if !op.kind.writes_files() || op.files.is_empty() {
        return Err(Error::NothingToUndo(op.id.clone()));
    }
    if !in_effect(&operations, &op.id) {
        return Err(Error::AlreadyUndone(op.id.clone()));
    }
    let changes = op
        .files
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
        .collect();
    let gathered = Gathered {
        changes,
        ..Gathered::default()
    };
    let plan = plan(p.store, p.workspace, session.clone(), gathered)?;
    let preview = plan.preview();
    let finish = Finish {
        kind: OperationKind::Undo,
        target: Some(OpTarget::Operation {
            operation_id: op.id.clone(),
        }),
        policy: opts.policy,
        undoes: Some(op.id.clone()),
        branch_move: None,
        notice: Some(String::new()),
        extra: Batch::new(),
        note: None,
        operation_id: None,
    };
    let ex = files::execute_with_notice(p, &plan, finish)?;
    Ok(outcome(ex, preview))
}
