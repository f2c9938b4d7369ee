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

/// What [`resume`] derives, counted rather than listed: what `rewind resume` prints. The same
/// rows are read and decoded (every one that does not decode is a diagnostic, in the same
/// order), but page by page and kept only as counts, so neither the transcript nor its views are
/// held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The session row.
    pub session: Session,
    /// Messages on the active branch (`State::messages`).
    pub messages: usize,
    /// Messages the model sees (`State::model_history`).
    pub model_history: usize,
    /// Prompts on the active branch.
    pub turn_number: usize,
    /// The turn still running, if any.
    pub running_turn: Option<TurnId>,
    /// Checkpoints of turns on the active branch (`State::active_checkpoints`).
    pub active_checkpoints: usize,
    /// Operations `undo` can still take back.
    pub undoable_operations: usize,
    /// Journals of this session a crash left pending.
    pub pending_journals: Vec<JournalId>,
    /// Rows that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

/// Seqs per page of [`summary`]'s reads.
const PAGE: u64 = 1024;

/// [`resume`]'s state, counted (see [`Summary`]).
pub fn summary(store: &dyn crate::ports::Store, id: &SessionId) -> Result<Summary, load::Error> {
    use crate::ports::SeqRange;
    let session = load::session(store, id)?;
    let end = store.last_seq(id)?.saturating_add(1);
    let ranges = (0..end)
        .step_by(usize::try_from(PAGE).unwrap_or(usize::MAX))
        .map(|a| SeqRange::new(a, a.saturating_add(PAGE)));
    let (mut messages, mut model_history) = (0, 0);
    let mut prompts = std::collections::BTreeSet::new();
    let mut bad = [Vec::new(), Vec::new()];
    let mut active_checkpoints = 0;
    let mut late = Vec::new();
    for range in ranges {
        // Judged as a full decode would judge them, but the content is not copied out.
        let rows = store.messages_in(id, range)?;
        let page = load::decode_rows::<crate::model::MessageGlance>("message", rows);
        bad[0].extend(page.diagnostics);
        for m in page
            .items
            .into_iter()
            .filter(|m| session.branch.contains(m.seq))
        {
            messages += 1;
            // The model sees the branch from its last compaction summary on.
            if m.compaction.is_some() {
                model_history = 0;
            }
            model_history += usize::from(m.visible_to_model);
            if m.is_prompt() {
                prompts.insert(m.id);
            }
        }
        let page = load::decode_rows::<Checkpoint>("checkpoint", store.checkpoints_in(id, range)?);
        bad[1].extend(page.diagnostics);
        for c in page.items {
            match prompts.contains(&c.prompt_id) {
                true => active_checkpoints += 1,
                // Its prompt may lie in a later page only if the checkpoint is older than it.
                false => late.push(c.prompt_id),
            }
        }
    }
    active_checkpoints += late.iter().filter(|p| prompts.contains(*p)).count();
    let turns = load::turns(store, id)?;
    let operations = load::operations(store, id)?;
    let journals = load::journals(store)?;
    let [messages_bad, checkpoints_bad] = bad;
    let mut diagnostics = messages_bad;
    diagnostics.extend(turns.diagnostics);
    diagnostics.extend(checkpoints_bad);
    diagnostics.extend(operations.diagnostics);
    diagnostics.extend(journals.diagnostics);
    Ok(Summary {
        messages,
        model_history,
        turn_number: prompts.len(),
        running_turn: turns
            .items
            .iter()
            .filter(|t| t.status == TurnStatus::Running && session.branch.contains(t.prompt_seq))
            .max_by_key(|t| t.prompt_seq)
            .map(|t| t.id.clone()),
        active_checkpoints,
        undoable_operations: operations
            .items
            .iter()
            .filter(|o| crate::undo::undoable(o) && in_effect(&operations.items, &o.id))
            .count(),
        pending_journals: journals
            .items
            .iter()
            .filter(|j| &j.session_id == id)
            .map(|j| j.id.clone())
            .collect(),
        diagnostics,
        session,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Engine;
    use crate::batch::{Batch, Write};
    use crate::ports::{Store as _, StoreWrite as _};
    use crate::record::{CompactionOptions, EditChange, EditOptions, PromptOptions, ReplyOptions};
    use crate::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The summary counts exactly what the state lists, page boundaries, a compaction, a rewind
    /// and rows that do not decode included.
    #[test]
    fn the_summary_counts_what_resume_lists() {
        let mut e = Engine::new(
            MemStore::new(),
            MemWorkspace::new(),
            TickClock::default(),
            SeqIds::default(),
        );
        let s = e.create_session(Default::default()).expect("session").id;
        let mut prompts = Vec::new();
        for n in 0..700 {
            let text = format!("turn {n}");
            let p = e.record_prompt(
                &s,
                PromptOptions {
                    text,
                    payload: None,
                },
            );
            let p = p.expect("prompt");
            let change = EditChange {
                path: format!("f{}.txt", n % 7),
                after: Some(format!("{n}\n").into_bytes()),
                before: e
                    .workspace()
                    .get(&format!("f{}.txt", n % 7))
                    .map(<[u8]>::to_vec),
                ..EditChange::default()
            };
            e.workspace_mut()
                .put(&change.path, change.after.as_deref().expect("after"));
            let edit = EditOptions {
                turn_id: p.turn_id.clone(),
                tool_name: "Write".into(),
                tool_call_id: None,
                tool_message_id: None,
                kind: crate::model::CheckpointKind::Edit,
                changes: vec![change],
            };
            e.record_edit(&s, edit).expect("edit");
            let reply = ReplyOptions {
                turn_id: p.turn_id.clone(),
                text: "ok".into(),
                error: false,
                payload: None,
            };
            e.record_reply(&s, reply).expect("reply");
            if n == 400 {
                let c = CompactionOptions {
                    turn_id: None,
                    text: "so far".into(),
                };
                e.record_compaction(&s, c).expect("compaction");
            }
            prompts.push(p.message_id);
        }
        let to = prompts[650].clone();
        e.rewind_conversation(&s, crate::conversation::Options { to })
            .expect("rewind");
        e.record_prompt(
            &s,
            PromptOptions {
                text: "again".into(),
                payload: None,
            },
        )
        .expect("prompt");
        // A message and a checkpoint that do not decode.
        let seq = e.store().last_seq(&s).expect("seq") + 1;
        let mut b = Batch::new();
        b.push(Write::AppendMessage {
            session: s.clone(),
            seq,
            message: crate::id::MessageId::parse("msg_bad").expect("id"),
            body: "{\"not\":\"a message\"}".into(),
            boundary: false,
        });
        b.push(Write::PutCheckpoint {
            session: s.clone(),
            seq: seq + 1,
            checkpoint: crate::id::CheckpointId::parse("ckp_bad").expect("id"),
            body: "[]".into(),
            bytes: 0,
            turn: None,
        });
        e.store_mut().commit(b).expect("commit");
        let state = e.resume(&s).expect("resume");
        let got = summary(e.store(), &s).expect("summary");
        assert_eq!(got.messages, state.messages.len());
        assert_eq!(got.model_history, state.model_history.len());
        assert!(got.model_history < got.messages, "the compaction counts");
        assert_eq!(got.turn_number, state.turn_number);
        assert_eq!(got.turn_number, 651);
        assert_eq!(got.running_turn, state.running_turn);
        assert_eq!(got.active_checkpoints, state.active_checkpoints.len());
        assert_eq!(got.undoable_operations, state.undoable_operations.len());
        assert_eq!(got.pending_journals, state.pending_journals);
        assert_eq!(got.diagnostics, state.diagnostics);
        assert_eq!(got.diagnostics.len(), 2, "{:?}", got.diagnostics);
        assert_eq!(got.session, state.session);
    }
}
