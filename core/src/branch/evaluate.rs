//! `evaluate_rewind_target`: whether a rewind to a message can happen and how, as one of seven
//! outcomes (the `reason` strings below; the README lists them), with an explicit `available`
//! flag so an unavailable result can never be mistaken for a success strategy.

use crate::id::MessageId;
use serde::{Deserialize, Serialize};

/// What a rewind restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The conversation only.
    Conversation,
    /// Workspace files only.
    Workspace,
    /// Both, as one unit.
    Both,
}

/// How a rewind would be carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Move the branch cursor on the active chain.
    ActiveChain,
    /// Restore files only (the conversation stays at the compacted context).
    FileOnly,
    /// Not possible.
    Unavailable,
}

/// Where the target lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetStatus {
    /// On the active chain, after the last compaction.
    ActiveChain,
    /// On the active chain, before the last compaction boundary.
    CoveredByCompact,
    /// Not on the active chain.
    Missing,
}

/// One evaluation item: a message id, flagged when it is a compaction boundary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Message id.
    pub id: MessageId,
    /// It is a compaction boundary.
    pub boundary: bool,
}

/// The result of [`evaluate_rewind_target`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Whether the rewind can happen at all. Never true together with `Strategy::Unavailable`.
    pub available: bool,
    /// Scopes allowed for this target.
    pub allowed_scopes: Vec<Scope>,
    /// How it would be done.
    pub strategy: Strategy,
    /// Where the target lies.
    pub target_status: TargetStatus,
    /// Which of the seven outcomes: `target_not_found`, `target_in_active_chain`,
    /// `checkpoint_required_for_workspace_rewind`, `target_covered_by_compact_file_only_available`,
    /// `target_covered_by_compact_without_checkpoint` or
    /// `target_covered_by_compact_active_branch_rebuild`.
    pub reason: &'static str,
    /// The last compaction boundary, when there is one.
    pub compact_boundary_id: Option<MessageId>,
}

/// Evaluate a rewind target: where it lies (after or behind the last compaction boundary,
/// or not on the active branch), which scopes a checkpoint allows, and so which outcome applies.
pub fn evaluate_rewind_target(
    items: &[Item],
    target: &MessageId,
    scope: Scope,
    checkpoint_available: bool,
) -> Evaluation {
    let boundary = items.iter().rposition(|i| i.boundary);
    let compact_boundary_id = boundary.map(|b| items[b].id.clone());
    let out = |allowed: Vec<Scope>,
               strategy: Strategy,
               status: TargetStatus,
               reason: &'static str| Evaluation {
        available: strategy != Strategy::Unavailable,
        allowed_scopes: allowed,
        strategy,
        target_status: status,
        reason,
        compact_boundary_id: compact_boundary_id.clone(),
    };
    let Some(index) = items.iter().position(|i| &i.id == target) else {
        return out(
            vec![],
            Strategy::Unavailable,
            TargetStatus::Missing,
            "target_not_found",
        );
    };
    let allowed = if checkpoint_available {
        vec![Scope::Conversation, Scope::Workspace, Scope::Both]
    } else {
        vec![Scope::Conversation]
    };
    let covered = boundary.is_some_and(|b| index < b);
    match (covered, scope) {
        (false, s) if !allowed.contains(&s) => out(
            allowed,
            Strategy::Unavailable,
            TargetStatus::ActiveChain,
            "checkpoint_required_for_workspace_rewind",
        ),
        (false, _) => out(
            allowed,
            Strategy::ActiveChain,
            TargetStatus::ActiveChain,
            "target_in_active_chain",
        ),
        (true, Scope::Workspace) if checkpoint_available => out(
            vec![Scope::Workspace],
            Strategy::FileOnly,
            TargetStatus::CoveredByCompact,
            "target_covered_by_compact_file_only_available",
        ),
        (true, Scope::Workspace) => out(
            vec![],
            Strategy::Unavailable,
            TargetStatus::CoveredByCompact,
            "target_covered_by_compact_without_checkpoint",
        ),
        (true, s) if !allowed.contains(&s) => out(
            allowed,
            Strategy::Unavailable,
            TargetStatus::CoveredByCompact,
            "checkpoint_required_for_workspace_rewind",
        ),
        (true, _) => out(
            allowed,
            Strategy::ActiveChain,
            TargetStatus::CoveredByCompact,
            "target_covered_by_compact_active_branch_rebuild",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn items(spec: &str) -> Vec<Item> {
        // 'm' = message, 'B' = compaction boundary; ids msg_0, msg_1, ...
        spec.chars()
            .enumerate()
            .map(|(i, c)| Item {
                id: MessageId::parse(&format!("msg_{i}")).expect("valid"),
                boundary: c == 'B',
            })
            .collect()
    }
    fn id(i: usize) -> MessageId {
        MessageId::parse(&format!("msg_{i}")).expect("valid")
    }

    #[test]
    #[allow(clippy::type_complexity)]
    fn the_seven_outcomes() {
        use Scope::*;
        use Strategy::*;
        use TargetStatus as T;
        let plain = items("mmmm");
        let compacted = items("mmBm");
        let cases: [(&[Item], usize, Scope, bool, Strategy, T, &str, usize); 7] = [
            (
                &plain,
                99,
                Conversation,
                true,
                Unavailable,
                T::Missing,
                "target_not_found",
                0,
            ),
            (
                &plain,
                1,
                Workspace,
                false,
                Unavailable,
                T::ActiveChain,
                "checkpoint_required_for_workspace_rewind",
                1,
            ),
            (
                &plain,
                1,
                Both,
                true,
                ActiveChain,
                T::ActiveChain,
                "target_in_active_chain",
                3,
            ),
            (
                &compacted,
                0,
                Workspace,
                true,
                FileOnly,
                T::CoveredByCompact,
                "target_covered_by_compact_file_only_available",
                1,
            ),
            (
                &compacted,
                0,
                Workspace,
                false,
                Unavailable,
                T::CoveredByCompact,
                "target_covered_by_compact_without_checkpoint",
                0,
            ),
            (
                &compacted,
                1,
                Both,
                false,
                Unavailable,
                T::CoveredByCompact,
                "checkpoint_required_for_workspace_rewind",
                1,
            ),
            (
                &compacted,
                1,
                Conversation,
                false,
                ActiveChain,
                T::CoveredByCompact,
                "target_covered_by_compact_active_branch_rebuild",
                1,
            ),
        ];
        for (items, target, scope, cp, strategy, status, reason, allowed) in cases {
            let e = evaluate_rewind_target(items, &id(target), scope, cp);
            assert_eq!(
                (e.strategy, e.target_status, e.reason),
                (strategy, status, reason)
            );
            assert_eq!(e.allowed_scopes.len(), allowed, "{reason}");
            assert_eq!(e.available, strategy != Unavailable, "{reason}");
        }
    }

    #[test]
    fn target_at_the_boundary_is_not_covered() {
        let e = evaluate_rewind_target(&items("mmBm"), &id(2), Scope::Conversation, false);
        assert_eq!(e.target_status, TargetStatus::ActiveChain);
        assert_eq!(e.compact_boundary_id, Some(id(2)));
    }
}
