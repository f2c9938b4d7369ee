//! Commit a fork or side chat: look for the command fact first (a replay writes nothing), build
//! and validate the bundle, then commit it with the fact and the parent's operation-log entry in
//! one transaction — or, in restore mode, as the final commit of a journaled file apply.

use super::build::{Source, Tail, build};
use super::bundle::{Bundle, validate};
use super::select::{select, side_chat_history};
use super::{Error, Options, Outcome, SideChatOptions, WorkspaceMode};
use crate::agent_resume;
use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::HostErrorKind;
use crate::files::{self, Finish, gather_after, plan, undone_changes};
use crate::id::{CommandId, SessionId, TurnId};
use crate::load::{SessionLog, encode};
use crate::model::{Checkpoint, MessageKind, Operation, OperationKind, Policy, Role, SessionKind};
use std::collections::BTreeSet;

/// The three sentences that bound a side chat.
const SIDE_CHAT_BOUNDARY: &str = "The conversation above was inherited from the parent session for reference only. \
Do not continue the parent's work on your own; answer only the questions asked in this side chat. \
Change workspace files only when the user explicitly asks for it in this side chat.";

/// A command that already ran: its recorded outcome, marked as a replay. Nothing is written.
fn replay(
    p: &Ports<'_>,
    parent: &SessionId,
    command: &CommandId,
) -> Result<Option<Outcome>, Error> {
    let Some(row) = p
        .store
        .command_fact(parent, command)
        .map_err(Error::Store)?
    else {
        return Ok(None);
    };
    let mut out: Outcome =
        serde_json::from_str(&row.body).map_err(|_| Error::CorruptFact(command.clone()))?;
    out.replayed = true;
    Ok(Some(out))
}

/// The bundle's rows, the command fact and the parent's log entry, guarded so that the child
/// cannot exist twice and the command cannot run twice.
fn rows(
    bundle: &Bundle,
    parent: &SessionId,
    command: &CommandId,
    outcome: &Outcome,
    op: Option<&Operation>,
) -> Batch {
    let mut b = Batch::new();
    b.require(Precondition::SessionAbsent(bundle.child.id.clone()));
    b.require(Precondition::CommandUnused(parent.clone(), command.clone()));
    b.push(Write::CreateSession {
        session: bundle.child.id.clone(),
        body: encode(&bundle.child),
    });
    for m in &bundle.messages {
        b.push(Write::AppendMessage {
            session: m.session_id.clone(),
            seq: m.seq,
            message: m.id.clone(),
            body: encode(m),
            boundary: m.compaction.is_some(),
        });
    }
    for t in &bundle.turns {
        b.push(Write::PutTurn {
            session: t.session_id.clone(),
            turn: t.id.clone(),
            seq: t.prompt_seq,
            body: encode(t),
        });
    }
    for c in &bundle.checkpoints {
        b.push(c.put());
    }
    b.push(Write::PutCommandFact {
        parent: parent.clone(),
        command: command.clone(),
        body: encode(outcome),
    });
    if let Some(op) = op {
        b.push(Write::PutOperation {
            session: parent.clone(),
            operation: op.id.clone(),
            body: encode(op),
        });
    }
    b
}

/// Commit directly (no file is touched). A lost race on the command id is a replay.
fn commit(
    p: &mut Ports<'_>,
    batch: Batch,
    parent: &SessionId,
    command: &CommandId,
    outcome: Outcome,
) -> Result<Outcome, Error> {
    match p.store.commit(batch) {
        Ok(()) => Ok(outcome),
        Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {
            replay(p, parent, command)?.ok_or(Error::Store(e))
        }
        Err(e) => Err(Error::Store(e)),
    }
}

fn log_entry(
    p: &mut Ports<'_>,
    parent: &SessionId,
    kind: OperationKind,
    child: &SessionId,
) -> Operation {
    Operation {
        id: p.mint(),
        session_id: parent.clone(),
        kind,
        created_at: p.now(),
        target: None,
        policy: None,
        files: Vec::new(),
        undoes: None,
        journal_id: None,
        branch_target: None,
        generation: None,
        dropped_through: None,
        cursor_before: None,
        note: Some(format!(
            "opened {} {child}",
            kind.as_str().replace('_', " ")
        )),
    }
}

/// The parent's checkpoints the child inherits: those of copied turns up to the fork point,
/// without the file changes an operation already undid (the child must not see them as live).
fn inherited(log: &SessionLog, turns: &BTreeSet<&TurnId>, point: u64) -> Vec<Checkpoint> {
    let undone = undone_changes(&log.operations);
    log.checkpoints
        .iter()
        .filter(|c| c.seq <= point && turns.contains(&c.turn_id))
        .filter_map(|c| {
            let changes: Vec<_> = c
                .changes
                .iter()
                .filter(|ch| !undone.contains(&(c.id.clone(), ch.path.clone())))
                .cloned()
                .collect();
            (!changes.is_empty()).then(|| Checkpoint {
                changes,
                ..c.clone()
            })
        })
        .collect()
}

/// Fork a session at a message, a checkpoint or a completed turn's stable boundary.
pub fn fork(p: &mut Ports<'_>, parent: &SessionId, opts: Options) -> Result<Outcome, Error> {
    let point = opts.point()?;
    let command = opts.command_id.clone().unwrap_or_else(|| p.mint());
    if let Some(done) = replay(p, parent, &command)? {
        return Ok(done);
    }
    let log = SessionLog::load(p.store, parent)?;
    let sel = select(&log, &point)?;
    let turns: BTreeSet<&TurnId> = sel
        .history
        .iter()
        .filter_map(|m| m.turn_id.as_ref())
        .collect();
    let checkpoints = if sel.with_checkpoints {
        inherited(&log, &turns, sel.point)
    } else {
        Vec::new()
    };
    let restore = opts.workspace_mode == WorkspaceMode::Restore && sel.with_checkpoints;
    let plan = if restore {
        Some(restore_plan(p, parent, &log, sel.point)?)
    } else {
        None
    };
    let restoring = plan
        .as_ref()
        .map_or(0, |(_, preview)| preview.safe_files.len());
    let tail = fork_tail(parent, &log.session.title, opts.workspace_mode, restoring);
    let copied = sel.history.len();
    let through = sel.history.iter().map(|m| m.seq).max().unwrap_or(0);
    let src = Source {
        parent: &log.session,
        messages: sel.history,
        turns: &log.turns,
        checkpoints,
        hide_from_ui: false,
    };
    let bundle = build(
        p,
        src,
        SessionKind::Fork,
        format!("Fork of {}", log.session.title),
        tail,
    );
    validate(&bundle)?;
    let mut outcome = Outcome {
        child_id: bundle.child.id.clone(),
        kind: SessionKind::Fork,
        copied_messages: copied,
        copied_checkpoints: bundle.checkpoints.len(),
        restored_files: Vec::new(),
        command_id: command.clone(),
        operation_id: None,
        replayed: false,
        agent_resume: agent_resume::through(
            &log.session,
            &log.messages,
            through,
            bundle.child.id.as_str(),
        ),
    };
    match plan {
        Some((plan, preview)) if !preview.safe_files.is_empty() => {
            restore_and_commit(p, &plan, &preview, &bundle, parent, &command, outcome)
        }
        _ => {
            let op = log_entry(p, parent, OperationKind::Fork, &bundle.child.id);
            outcome.operation_id = Some(op.id.clone());
            let batch = rows(&bundle, parent, &command, &outcome, Some(&op));
            commit(p, batch, parent, &command, outcome)
        }
    }
}

/// Open a side chat: the active branch copied and hidden from the UI (the model still sees it),
/// cut before a running turn's output, plus a hidden reminder that it is for reference only.
pub fn side_chat(
    p: &mut Ports<'_>,
    parent: &SessionId,
    opts: SideChatOptions,
) -> Result<Outcome, Error> {
    let command = opts.command_id.unwrap_or_else(|| p.mint());
    if let Some(done) = replay(p, parent, &command)? {
        return Ok(done);
    }
    let log = SessionLog::load(p.store, parent)?;
    let history = side_chat_history(&log);
    let copied = history.len();
    let through = history.iter().map(|m| m.seq).max().unwrap_or(0);
    let tail = vec![Tail {
        role: Role::User,
        kind: MessageKind::Reminder,
        text: SIDE_CHAT_BOUNDARY.to_owned(),
        visible_to_ui: false,
        visible_to_model: true,
    }];
    let src = Source {
        parent: &log.session,
        messages: history,
        turns: &log.turns,
        checkpoints: Vec::new(),
        hide_from_ui: true,
    };
    let bundle = build(p, src, SessionKind::SideChat, "Side chat".to_owned(), tail);
    validate(&bundle)?;
    let op = log_entry(p, parent, OperationKind::SideChat, &bundle.child.id);
    let outcome = Outcome {
        child_id: bundle.child.id.clone(),
        kind: SessionKind::SideChat,
        copied_messages: copied,
        copied_checkpoints: 0,
        restored_files: Vec::new(),
        command_id: command.clone(),
        operation_id: Some(op.id.clone()),
        replayed: false,
        agent_resume: agent_resume::through(
            &log.session,
            &log.messages,
            through,
            bundle.child.id.as_str(),
        ),
    };
    let batch = rows(&bundle, parent, &command, &outcome, Some(&op));
    commit(p, batch, parent, &command, outcome)
}

/// The plan that puts the workspace back to the fork point, refused while any file is unsafe
/// (a fork never overwrites work it cannot prove it made).
fn restore_plan(
    p: &mut Ports<'_>,
    parent: &SessionId,
    log: &SessionLog,
    point: u64,
) -> Result<(files::Plan, files::Preview), Error> {
    let plan = plan(
        p.store,
        p.workspace,
        parent.clone(),
        gather_after(log, point),
    )?;
    let preview = plan.preview();
    if !preview.unsafe_files.is_empty() {
        let list: Vec<String> = preview
            .unsafe_files
            .iter()
            .map(|u| format!("{} ({})", u.path, u.message))
            .collect();
        return Err(Error::WorkspaceConflict(list.join("; ")));
    }
    Ok((plan, preview))
}

/// The messages a fork ends with: a notice for the model (where it came from, what happened to
/// the files) and a timeline line for the UI.
fn fork_tail(parent: &SessionId, title: &str, mode: WorkspaceMode, restoring: usize) -> Vec<Tail> {
    let files_line = match (mode, restoring) {
        (WorkspaceMode::Restore, n) if n > 0 => {
            format!("{n} workspace file(s) were restored to their state at the fork point.")
        }
        _ => "No workspace file was changed by this fork; the files are as the parent left them."
            .to_owned(),
    };
    let notice = format!(
        "This session was forked from session {parent} ({title}). {files_line} Continue from this fork; do not assume \
         messages after the fork point happened in this session."
    );
    vec![
        Tail {
            role: Role::System,
            kind: MessageKind::Notice,
            text: notice,
            visible_to_ui: false,
            visible_to_model: true,
        },
        Tail {
            role: Role::Assistant,
            kind: MessageKind::Timeline,
            text: format!("Forked from {title}"),
            visible_to_ui: true,
            visible_to_model: false,
        },
    ]
}

/// Commit the fork as the final commit of a journaled apply that restores the workspace.
fn restore_and_commit(
    p: &mut Ports<'_>,
    plan: &files::Plan,
    preview: &files::Preview,
    bundle: &Bundle,
    parent: &SessionId,
    command: &CommandId,
    mut outcome: Outcome,
) -> Result<Outcome, Error> {
    // The outcome stored in the fact must already name the files the apply will write.
    outcome.restored_files = preview
        .safe_files
        .iter()
        .map(|f| files::RestoredFile {
            path: f.path.clone(),
            action: f.action,
            merged: false,
            forced: false,
        })
        .collect();
    let op_id = p.mint();
    outcome.operation_id = Some(op_id);
    let finish = Finish {
        operation_id: outcome.operation_id.clone(),
        kind: OperationKind::Fork,
        target: None,
        policy: Policy::Block,
        undoes: None,
        branch_move: None,
        notice: None,
        extra: rows(bundle, parent, command, &outcome, None),
        note: Some(format!(
            "opened fork {} and restored the workspace to the fork point",
            bundle.child.id
        )),
    };
    let done = files::execute(p, plan, finish)?;
    if !done.applied {
        return Err(Error::WorkspaceConflict(
            done.cause
                .unwrap_or_else(|| "the files could not be restored".into()),
        ));
    }
    // The outcome was recorded in the command fact before the apply, so a replay returns
    // exactly this value; the apply wrote the same files the preview listed.
    Ok(outcome)
}
