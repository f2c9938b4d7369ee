//! The shared half of `rewind import`: what an agent's records tell about one of its sessions
//! ([`Imported`], filled by each agent's reader) and how it becomes a rewind session bound to the
//! agent. Everything is read and decided before anything is written: a reader that fails records
//! nothing, and a session already bound to the same agent session is left as it is (importing
//! twice changes nothing). Each agent session is then written in one transaction: its verbs run
//! over a [`Staged`] store and land in the real one as one batch, so a failure part-way writes
//! none of it and the next run imports it whole.

use super::super::{CliError, Context, Verb};
use rewind_core::Engine;
use rewind_core::id::SessionId;
use rewind_core::mem::stage::Staged;
use rewind_core::model::AgentSession;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::record::{
    CompleteTurnOptions, EditChange, EditOptions, FailedCaptureOptions, NoticeOptions,
    PromptOptions, ReplyOptions, SessionOptions, kind_for,
};
use rewind_host::native::{NativeEngine, RandomIds, SystemClock};
use serde::Serialize;
use std::path::PathBuf;

/// The key of a prompt's payload holding where the agent's history stood before it; the same
/// shape `rewind hook` keeps (`agentPoint`: agent, sessionId, transcriptPath, before), so a
/// rewind of an imported session resumes the agent as one of a hooked session does.
pub(super) const POINT_KEY: &str = "agentPoint";

/// One agent session as its records tell it.
#[derive(Debug)]
pub(super) struct Imported {
    /// `claude-code`, `qwen-code`, …
    pub agent: &'static str,
    /// The agent's session id.
    pub session_id: String,
    /// The transcript read.
    pub transcript: PathBuf,
    /// The agent version that wrote the records (as they say).
    pub version: Option<String>,
    pub turns: Vec<Turn>,
    /// What was passed over: damaged lines, backups missing, paths outside the workspace.
    pub diagnostics: Vec<String>,
    /// Why the whole session is not imported (an unknown record version, another workspace's
    /// session), when it is not; nothing of it is recorded.
    pub refused: Option<String>,
}

/// One prompt and what followed it.
#[derive(Debug, Default)]
pub(super) struct Turn {
    pub prompt: String,
    /// The id of the agent's last entry before the prompt (none: the first).
    pub before: Option<String>,
    pub steps: Vec<Step>,
    /// The final reply, if the agent gave one.
    pub reply: Option<String>,
}

/// What a tool call did, as far as the records make it exact.
#[derive(Debug)]
pub(super) enum Step {
    /// A file change with its exact bytes (`None`: absent).
    Change {
        tool: String,
        call_id: Option<String>,
        path: String,
        before: Option<Vec<u8>>,
        after: Option<Vec<u8>>,
    },
    /// A file whose change the records cannot make exact.
    Failed {
        tool: String,
        path: String,
        reason: String,
    },
    /// Something the records say happened but do not say what it changed (a shell command).
    Notice(String),
}

/// What happened to one agent session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Outcome {
    pub agent: &'static str,
    pub agent_session_id: String,
    pub transcript: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `imported`, `already-imported`, `would-import` (--dry-run) or `not-imported` (the
    /// first diagnostic says why).
    pub status: &'static str,
    /// The rewind session (imported or already there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
    pub turns: usize,
    pub checkpoints: usize,
    pub failed_captures: usize,
    pub diagnostics: Vec<String>,
}

impl Imported {
    fn outcome(&self, status: &'static str, session_id: Option<SessionId>) -> Outcome {
        let steps = || self.turns.iter().flat_map(|t| &t.steps);
        Outcome {
            agent: self.agent,
            agent_session_id: self.session_id.clone(),
            transcript: self.transcript.display().to_string(),
            version: self.version.clone(),
            status,
            session_id,
            turns: self.turns.len(),
            checkpoints: steps().filter(|s| matches!(s, Step::Change { .. })).count(),
            failed_captures: steps().filter(|s| matches!(s, Step::Failed { .. })).count(),
            diagnostics: self
                .refused
                .iter()
                .chain(&self.diagnostics)
                .cloned()
                .collect(),
        }
    }

    fn binding(&self) -> AgentSession {
        AgentSession {
            agent: self.agent.to_owned(),
            session_id: self.session_id.clone(),
        }
    }

    fn point(&self, turn: &Turn) -> serde_json::Value {
        let mut point = serde_json::json!({
            "agent": self.agent,
            "sessionId": self.session_id,
            "transcriptPath": self.transcript.display().to_string(),
        });
        if let Some(before) = &turn.before {
            point["before"] = before.clone().into();
        }
        serde_json::json!({ POINT_KEY: point })
    }
}

/// The rewind session already bound to the agent session, if any.
fn bound(engine: &NativeEngine, binding: &AgentSession) -> Result<Option<SessionId>, CliError> {
    let known = engine
        .sessions()
        .map_err(|e| CliError::from_engine(e.kind(), e))?;
    Ok(known
        .items
        .into_iter()
        .find(|s| s.agent.as_ref() == Some(binding))
        .map(|s| s.id))
}

/// Import `sessions` (or, with `dry_run`, say what would be imported, writing nothing).
pub(super) fn import(
    ctx: &Context,
    sessions: Vec<Imported>,
    dry_run: bool,
) -> Result<Vec<Outcome>, CliError> {
    if dry_run {
        // Reading a store never writes files: without one, nothing is imported yet.
        let engine = match ctx.no_store {
            Some(_) => None,
            None => Some(ctx.engine(Verb::ListSessions)?),
        };
        return sessions
            .iter()
            .map(|s| {
                if s.refused.is_some() {
                    return Ok(s.outcome("not-imported", None));
                }
                let known = match &engine {
                    Some(e) => bound(e, &s.binding())?,
                    None => None,
                };
                Ok(match known {
                    Some(id) => s.outcome("already-imported", Some(id)),
                    None => s.outcome("would-import", None),
                })
            })
            .collect();
    }
    let mut engine = ctx.engine(Verb::ImportAgentSession)?;
    let mut out = Vec::with_capacity(sessions.len());
    for s in sessions {
        if s.refused.is_some() {
            out.push(s.outcome("not-imported", None));
            continue;
        }
        if let Some(id) = bound(&engine, &s.binding())? {
            out.push(s.outcome("already-imported", Some(id)));
            continue;
        }
        let (back, id) = record_whole(engine, &s);
        engine = back;
        out.push(s.outcome("imported", Some(id?)));
    }
    Ok(out)
}

/// Record one agent session in one transaction: staged over the real store, then committed as
/// one batch. The engine comes back whatever happened.
fn record_whole(engine: NativeEngine, s: &Imported) -> (NativeEngine, Result<SessionId, CliError>) {
    let limits = engine.limits();
    let (store, workspace) = engine.into_parts();
    let staged = Staged::new(store).failing_at(rewind_host::native::staged_fault());
    let mut over = Engine::new(staged, workspace, SystemClock, RandomIds).with_limits(limits);
    let recorded = record(&mut over, s);
    let (staged, workspace) = over.into_parts();
    let (store, result) = match recorded {
        Ok(id) => {
            let (mut store, batch) = staged.finish();
            let committed = store.commit(batch).map(|()| id).map_err(|e| {
                CliError::host(format!(
                    "the import was not written (nothing of it is): {e}"
                ))
            });
            (store, committed)
        }
        Err(e) => (staged.abandon(), Err(e)),
    };
    let engine = Engine::new(store, workspace, SystemClock, RandomIds).with_limits(limits);
    (engine, result)
}

/// Record one agent session as a new rewind session bound to it.
fn record<S: StoreWrite, W: Workspace>(
    engine: &mut Engine<S, W>,
    s: &Imported,
) -> Result<SessionId, CliError> {
    let short: String = s.session_id.chars().take(12).collect();
    let session = engine
        .create_session(SessionOptions {
            title: Some(format!("{} {short} (imported)", s.agent)),
            workspace_label: None,
            agent: Some(s.binding()),
        })?
        .id;
    for turn in &s.turns {
        let prompt = PromptOptions {
            text: turn.prompt.clone(),
            payload: Some(s.point(turn)),
        };
        let turn_id = engine.record_prompt(&session, prompt)?.turn_id;
        for step in &turn.steps {
            match step {
                Step::Change {
                    tool,
                    call_id,
                    path,
                    before,
                    after,
                } => {
                    let changes = vec![EditChange {
                        path: path.clone(),
                        before: before.clone(),
                        after: after.clone(),
                        ..EditChange::default()
                    }];
                    let opts = EditOptions {
                        turn_id: turn_id.clone(),
                        tool_name: tool.clone(),
                        tool_call_id: call_id.clone(),
                        tool_message_id: None,
                        kind: kind_for(&changes),
                        changes,
                    };
                    engine.record_edit(&session, opts)?;
                }
                Step::Failed { tool, path, reason } => {
                    let opts = FailedCaptureOptions {
                        turn_id: turn_id.clone(),
                        tool_name: tool.clone(),
                        path: path.clone(),
                        reason: reason.clone(),
                    };
                    engine.record_failed_capture(&session, opts)?;
                }
                Step::Notice(text) => {
                    let opts = NoticeOptions {
                        turn_id: Some(turn_id.clone()),
                        text: text.clone(),
                        visible_to_ui: true,
                        visible_to_model: false,
                    };
                    engine.record_notice(&session, opts)?;
                }
            }
        }
        if let Some(reply) = turn.reply.clone().filter(|r| !r.trim().is_empty()) {
            let opts = ReplyOptions {
                turn_id: turn_id.clone(),
                text: reply,
                error: false,
                payload: None,
            };
            engine.record_reply(&session, opts)?;
        }
        let opts = CompleteTurnOptions {
            turn_id,
            failed: false,
            round_count: None,
        };
        engine.complete_turn(&session, opts)?;
    }
    Ok(session)
}
