//! What the operation log says about the workspace: which operations are still in effect and
//! which recorded changes they undid. This is how "already undone" survives restarts.

use crate::id::{CheckpointId, OperationId};
use crate::model::{Operation, OperationKind};
use crate::path::WorkPath;
use std::collections::BTreeSet;

/// Ids of operations that a later, itself in-effect, undo took back. Walking newest to oldest
/// makes undo-of-undo (redo) come out right.
pub(crate) fn undone_operations(ops: &[Operation]) -> BTreeSet<OperationId> {
    let mut undone = BTreeSet::new();
    for op in ops.iter().rev() {
        if op.kind == OperationKind::Undo
            && !undone.contains(&op.id)
            && let Some(target) = &op.undoes
        {
            undone.insert(target.clone());
        }
    }
    undone
}

/// Whether an operation's file writes still stand.
pub(crate) fn in_effect(ops: &[Operation], id: &OperationId) -> bool {
    !undone_operations(ops).contains(id)
}

/// Every (checkpoint, path) change that an in-effect rewind undid.
pub(crate) fn undone_changes(ops: &[Operation]) -> BTreeSet<(CheckpointId, WorkPath)> {
    let undone_ops = undone_operations(ops);
    ops.iter()
        .filter(|op| matches!(op.kind, OperationKind::FileRewind | OperationKind::Both))
        .filter(|op| !undone_ops.contains(&op.id))
        .flat_map(|op| {
            op.files
                .iter()
                .flat_map(|f| f.undid.iter().map(|c| (c.clone(), f.path.clone())))
        })
        .collect()
}
