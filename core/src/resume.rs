//! Resume: derive the whole state of a session from the store. Rows that do not decode are
//! listed as diagnostics and skipped; they never abort a resume.

use crate::branch::{self, MessageView};
use crate::ctx::Ports;
use crate::files::{in_effect, undone_changes};
use crate::hash::display_opt;
use crate::id::{CheckpointId, JournalId, MessageId, OperationId, SessionId, TurnId};
use crate::load::{self, Diagnostic, SessionLog};
use crate::model::{Checkpoint, Session, TurnStatus};
use serde::Serialize;

/// One file of a checkpoint summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointFile {
    /// The file.
    pub path: String,
    /// Hash before, or `missing` (the file did not exist); `None` (JSON `null`) when unknown
    /// because the capture failed (`capture_failed` says why).
    pub before: Option<String>,
    /// Hash after, or `missing` (the tool deleted it); `None` when the capture failed and
    /// recorded no after-state.
    pub after: Option<String>,
    /// Already undone by an operation still in effect.
    pub undone: bool,
    /// Why it can never be restored, when capture failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_failed: Option<String>,
}

/// A checkpoint as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointSummary {
    /// Id.
    pub checkpoint_id: CheckpointId,
    /// Turn.
    pub turn_id: TurnId,
    /// The turn's prompt.
    pub message_id: MessageId,
    /// Tool.
    pub tool_name: String,
    /// Edit, write, shell, external or manual.
    pub kind: crate::model::CheckpointKind,
    /// What the tool was asked to do, when recorded (a shell command line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<String>,
    /// Files.
    pub files: Vec<CheckpointFile>,
}

impl CheckpointSummary {
    /// Summarise a checkpoint, marking undone files.
    pub fn of(
        c: &Checkpoint,
        undone: &std::collections::BTreeSet<(CheckpointId, crate::path::WorkPath)>,
    ) -> Self {
        // A failed capture knows no before-state, and an after-state only when it recorded one:
        // `missing` would claim the file was absent.
        let h = |v: &Option<crate::model::FileVersion>, failed: bool| match v {
            None if failed => None,
            v => Some(display_opt(v.as_ref().map(|v| &v.hash)).to_owned()),
        };
        Self {
            checkpoint_id: c.id.clone(),
            turn_id: c.turn_id.clone(),
            message_id: c.prompt_id.clone(),
            tool_name: c.tool_name.clone(),
            kind: c.kind,
            tool_input: c.tool_input.clone(),
            files: c
                .changes
                .iter()
                .map(|f| CheckpointFile {
                    path: f.path.to_string(),
                    before: h(&f.before, f.capture_failed()),
                    after: h(&f.after, f.capture_failed()),
                    undone: undone.contains(&(c.id.clone(), f.path.clone())),
                    capture_failed: match &f.capture {
                        crate::model::Capture::Failed { reason } => Some(reason.clone()),
                        crate::model::Capture::Captured => None,
                    },
                })
                .collect(),
        }
    }
}

/// The derived state of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The session row.
    pub session: Session,
    /// The active branch.
    pub messages: Vec<MessageView>,
    /// What the model sees (compaction-aware), by id.
    pub model_history: Vec<MessageId>,
    /// Number of prompts on the active branch.
    pub turn_number: usize,
    /// The turn still running, if any.
    pub running_turn: Option<TurnId>,
    /// Checkpoints of turns on the active branch.
    pub active_checkpoints: Vec<CheckpointSummary>,
    /// Operations `undo` can still take back (file rewinds, and conversation rewinds that recorded
    /// where the cursor stood), oldest first.
    pub undoable_operations: Vec<OperationId>,
    /// Journals of this session a crash left pending (run `recover`).
    pub pending_journals: Vec<JournalId>,
    /// Rows that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

/// Derive a session's state.
pub fn resume(p: &Ports<'_>, session: &SessionId) -> Result<State, load::Error> {
    let log = SessionLog::load(p.store, session)?;
    let journals = load::journals(p.store)?;
    let active = branch::select(&log.session, &log.messages);
    let undone = undone_changes(&log.operations);
    let on_branch: std::collections::BTreeSet<&MessageId> = active.iter().map(|m| &m.id).collect();
    let mut diagnostics = log.diagnostics.clone();
    diagnostics.extend(journals.diagnostics);
    Ok(State {
        messages: active.iter().map(|m| MessageView::from(*m)).collect(),
        model_history: branch::model_history(&active)
            .iter()
            .map(|m| m.id.clone())
            .collect(),
        turn_number: active.iter().filter(|m| m.is_prompt()).count(),
        running_turn: log
            .turns
            .iter()
            .filter(|t| {
                t.status == TurnStatus::Running && log.session.branch.contains(t.prompt_seq)
            })
            .max_by_key(|t| t.prompt_seq)
            .map(|t| t.id.clone()),
        active_checkpoints: log
            .checkpoints
            .iter()
            .filter(|c| on_branch.contains(&c.prompt_id))
            .map(|c| CheckpointSummary::of(c, &undone))
            .collect(),
        undoable_operations: log
            .operations
            .iter()
            // Conversation rewinds too: `undo` takes back the cursor as well as files.
            .filter(|o| crate::undo::undoable(o) && in_effect(&log.operations, &o.id))
            .map(|o| o.id.clone())
            .collect(),
        pending_journals: journals
            .items
            .iter()
            .filter(|j| &j.session_id == session)
            .map(|j| j.id.clone())
            .collect(),
        diagnostics,
        session: log.session,
    })
}
