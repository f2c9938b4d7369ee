//! What the operation log says about the workspace: which operations are still in effect and
//! which recorded changes they undid. This is how "already undone" survives restarts.

use crate::id::{CheckpointId, OperationId};
use crate::model::{Operation, OperationKind};
use crate::path::WorkPath;
use std::collections::BTreeSet;

/// Ids of operations that a later, itself in-effect, undo took back. Walking newest to oldest
/// makes undo-of-undo (redo) come out right.
pub fn undone_operations(ops: &[Operation]) -> BTreeSet<OperationId> {
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
pub fn in_effect(ops: &[Operation], id: &OperationId) -> bool {
    !undone_operations(ops).contains(id)
}

/// Every (checkpoint, path) change that an in-effect rewind undid.
pub fn undone_changes(ops: &[Operation]) -> BTreeSet<(CheckpointId, WorkPath)> {
    let undone_ops = undone_operations(ops);
    ops.iter()
        .filter(|op| {
            matches!(
                op.kind,
                OperationKind::FileRewind | OperationKind::Both | OperationKind::Fork
            )
        })
        .filter(|op| !undone_ops.contains(&op.id))
        .flat_map(|op| {
            op.files
                .iter()
                .flat_map(|f| f.undid.iter().map(|c| (c.clone(), f.path.clone())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::SessionId;
    use crate::model::{FileAction, OpFile};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn op(id: &str, kind: OperationKind, undoes: Option<&str>, undid: &[&str]) -> Operation {
        Operation {
            id: OperationId::parse(id).expect("valid"),
            session_id: SessionId::parse("ses_1").expect("valid"),
            kind,
            created_at: 0,
            target: None,
            policy: None,
            files: vec![OpFile {
                path: WorkPath::parse("a.txt").expect("valid"),
                action: FileAction::Restore,
                before: None,
                after: None,
                undid: undid
                    .iter()
                    .map(|c| CheckpointId::parse(c).expect("valid"))
                    .collect(),
                before_mode: None,
                after_mode: None,
                merged: false,
                forced: false,
            }],
            undoes: undoes.map(|u| OperationId::parse(u).expect("valid")),
            journal_id: None,
            branch_target: None,
            generation: None,
            dropped_through: None,
            cursor_before: None,
            note: None,
        }
    }

    #[test]
    fn undo_takes_back_and_undo_of_undo_redoes() {
        let rewind = op("op_1", OperationKind::FileRewind, None, &["ckp_1"]);
        let undo = op("op_2", OperationKind::Undo, Some("op_1"), &[]);
        let redo = op("op_3", OperationKind::Undo, Some("op_2"), &[]);
        let id = |s: &str| OperationId::parse(s).expect("valid");

        assert_eq!(undone_changes(std::slice::from_ref(&rewind)).len(), 1);
        let ops = [rewind.clone(), undo.clone()];
        assert!(!in_effect(&ops, &id("op_1")));
        assert!(
            undone_changes(&ops).is_empty(),
            "the undo re-activates the change"
        );
        let ops = [rewind, undo, redo];
        assert!(
            in_effect(&ops, &id("op_1")),
            "undoing the undo puts the rewind back in effect"
        );
        assert!(!in_effect(&ops, &id("op_2")));
        assert_eq!(undone_changes(&ops).len(), 1);
    }
}
