//! The active branch: which messages the conversation currently consists of, what the model
//! sees of them (compaction-aware), and whether a rewind target is available.

mod evaluate;

pub use evaluate::{Evaluation, Item, Scope, Strategy, TargetStatus, evaluate_rewind_target};

use crate::ctx::Ports;
use crate::id::{MessageId, SessionId, TurnId};
use crate::load::{self, Diagnostic, SessionLog};
use crate::model::{Message, MessageKind, Role, Session};
use serde::Serialize;

/// The messages on the session's active branch, in seq order.
pub fn select<'a>(session: &Session, messages: &'a [Message]) -> Vec<&'a Message> {
    messages
        .iter()
        .filter(|m| session.branch.contains(m.seq))
        .collect()
}

/// What the model sees: the active branch from its last compaction summary on, without
/// messages hidden from the model. Applied *after* branch selection, so a rewind to before a
/// compaction cuts the summary away and the full kept prefix is visible again.
pub fn model_history<'a>(active: &[&'a Message]) -> Vec<&'a Message> {
    let start = active
        .iter()
        .rposition(|m| m.compaction.is_some())
        .unwrap_or(0);
    active[start..]
        .iter()
        .copied()
        .filter(|m| m.visible_to_model)
        .collect()
}

/// Evaluation items for a branch: one per message, compaction summaries flagged as boundaries.
pub fn items(active: &[&Message]) -> Vec<Item> {
    active
        .iter()
        .map(|m| Item {
            id: m.id.clone(),
            boundary: m.compaction.is_some(),
        })
        .collect()
}

/// A message as listed on a branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// Id.
    pub id: MessageId,
    /// Position.
    pub seq: u64,
    /// Turn.
    pub turn_id: Option<TurnId>,
    /// Speaker.
    pub role: Role,
    /// Purpose.
    pub kind: MessageKind,
    /// Shown in the UI.
    pub visible_to_ui: bool,
    /// Sent to the model.
    pub visible_to_model: bool,
    /// Text.
    pub text: String,
}

impl From<&Message> for MessageView {
    fn from(m: &Message) -> Self {
        Self {
            id: m.id.clone(),
            seq: m.seq,
            turn_id: m.turn_id.clone(),
            role: m.role,
            kind: m.kind,
            visible_to_ui: m.visible_to_ui,
            visible_to_model: m.visible_to_model,
            text: m.text(),
        }
    }
}

/// The active branch of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveBranch {
    /// The session.
    pub session_id: SessionId,
    /// Its branch generation.
    pub generation: u64,
    /// The active branch, in order.
    pub messages: Vec<MessageView>,
    /// Ids of what the model sees, in order.
    pub model_history: Vec<MessageId>,
    /// Rows that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

/// Read the active branch of a session.
pub fn active_branch(p: &Ports<'_>, session: &SessionId) -> Result<ActiveBranch, load::Error> {
    let log = SessionLog::load(p.store, session)?;
    let active = select(&log.session, &log.messages);
    Ok(ActiveBranch {
        session_id: log.session.id.clone(),
        generation: log.session.generation,
        messages: active.iter().map(|m| MessageView::from(*m)).collect(),
        model_history: model_history(&active)
            .iter()
            .map(|m| m.id.clone())
            .collect(),
        diagnostics: log.diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{MessageId, SessionId, TraceId};
    use crate::model::{Branch, Compaction, MessageStatus, SessionKind};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn message(seq: u64, compaction: bool, to_model: bool) -> Message {
        Message {
            id: MessageId::parse(&format!("msg_{seq}")).expect("valid"),
            session_id: SessionId::parse("ses_1").expect("valid"),
            seq,
            turn_id: None,
            role: Role::User,
            kind: if compaction {
                MessageKind::Summary
            } else {
                MessageKind::Prompt
            },
            status: MessageStatus::Complete,
            visible_to_ui: true,
            visible_to_model: to_model,
            parent_id: None,
            compaction: compaction.then_some(Compaction {
                covers_through: None,
            }),
            fork_origin: None,
            parts: Vec::new(),
            payload: None,
            created_at: 0,
        }
    }

    fn session(branch: Branch) -> Session {
        Session {
            id: SessionId::parse("ses_1").expect("valid"),
            parent_id: None,
            kind: SessionKind::Interactive,
            title: String::new(),
            trace_id: TraceId::parse("trc_1").expect("valid"),
            workspace_label: None,
            created_at: 0,
            branch,
            generation: 0,
            rewound_to: None,
            agent: None,
            seq_high_water: 0,
        }
    }

    #[test]
    fn selection_follows_the_ranges_and_history_starts_at_the_last_summary() {
        let messages: Vec<Message> = (1..=6).map(|s| message(s, s == 3, s != 5)).collect();
        let all = session(Branch::default());
        let active = select(&all, &messages);
        assert_eq!(active.len(), 6);
        let seqs = |v: &[&Message]| v.iter().map(|m| m.seq).collect::<Vec<_>>();
        assert_eq!(
            seqs(&model_history(&active)),
            [3, 4, 6],
            "from the summary on, hidden ones dropped"
        );

        // Rewind to before seq 3 when the last seq is 6: keeps 1..=2, then everything from 7.
        let rewound = session(Branch::default().rewound(3, 6));
        let mut more = messages.clone();
        more.push(message(7, false, true));
        let active = select(&rewound, &more);
        assert_eq!(seqs(&active), [1, 2, 7]);
        assert_eq!(
            seqs(&model_history(&active)),
            [1, 2, 7],
            "the summary was cut away with the old branch"
        );
    }
}
