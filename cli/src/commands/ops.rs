//! `rewind ops [SESSION] [--absolute]`: the operation log, newest last, with when each ran,
//! what it did, which turns it reached back to, and what undid it. As `jj op log` marks `@`,
//! the latest operation (the current state) is marked; an undo of an undo is named a redo.

use super::refs::branch_turns;
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, Style, count, visible};
use rewind_core::id::{MessageId, OperationId};
use rewind_core::model::{OpTarget, Operation, OperationKind};
use rewind_core::undo::undoable;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// Dates and times instead of "3 minutes ago".
    #[arg(long)]
    absolute: bool,
}

/// `#N (msg_…)` when the prompt is on the active branch, else its id.
fn prompt(style: &Style, numbers: &HashMap<MessageId, usize>, id: &MessageId) -> String {
    match numbers.get(id) {
        Some(n) => format!("#{n} ({})", style.id(id.as_str())),
        None => style.id(id.as_str()),
    }
}

/// One entry of `ops --json`: the operation and what the log says of it now.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    #[serde(flatten)]
    operation: &'a Operation,
    /// The latest operation: the current state (`@`).
    current: bool,
    /// `undo` or `redo` for an undo (a redo takes back an undo); else the kind.
    action: &'static str,
    /// For an undoable operation: `in_effect` or `undone`.
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'static str>,
    /// The undo that took it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    undone_by: Option<&'a OperationId>,
    /// For a redo: the rewind it re-applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    redoes: Option<&'a OperationId>,
}

/// Which undo took each operation back: walking newest to oldest, an undo counts only while it
/// is itself in effect (so a redo brings its rewind back).
fn undone_by(ops: &[Operation]) -> HashMap<&OperationId, &OperationId> {
    let mut by = HashMap::new();
    for o in ops.iter().rev() {
        if o.kind == OperationKind::Undo
            && !by.contains_key(&o.id)
            && let Some(target) = &o.undoes
        {
            by.insert(target, &o.id);
        }
    }
    by
}

fn entries<'a>(ops: &'a [Operation]) -> Vec<Entry<'a>> {
    let by = undone_by(ops);
    let find = |id: &OperationId| ops.iter().find(|o| &o.id == id);
    ops.iter()
        .enumerate()
        .map(|(i, o)| {
            let taken_back = o.undoes.as_ref().and_then(&find);
            let redoes = taken_back
                .filter(|t| t.kind == OperationKind::Undo)
                .and_then(|t| t.undoes.as_ref());
            Entry {
                operation: o,
                current: i + 1 == ops.len(),
                action: match (o.kind, redoes) {
                    (OperationKind::Undo, Some(_)) => "redo",
                    (k, _) => k.as_str(),
                },
                state: undoable(o).then(|| match by.contains_key(&o.id) {
                    true => "undone",
                    false => "in_effect",
                }),
                undone_by: by.get(&o.id).copied(),
                redoes,
            }
        })
        .collect()
}

fn what(style: &Style, numbers: &HashMap<MessageId, usize>, e: &Entry<'_>) -> String {
    let o = e.operation;
    let mut t = String::new();
    match &o.target {
        // A conversation rewind's target is said once, as where the conversation went.
        Some(OpTarget::Since { message_id }) if o.branch_target.as_ref() != Some(message_id) => {
            let _ = write!(t, "back to before {}", prompt(style, numbers, message_id));
        }
        Some(OpTarget::Turn { turn_id }) => {
            let _ = write!(t, "turn {}", style.id(turn_id.as_str()));
        }
        Some(OpTarget::Checkpoint { checkpoint_id }) => {
            let _ = write!(t, "checkpoint {}", style.id(checkpoint_id.as_str()));
        }
        Some(OpTarget::Since { .. } | OpTarget::Operation { .. }) | None => {}
    }
    match (e.redoes, &o.undoes) {
        (Some(r), Some(u)) => {
            let _ = write!(
                t,
                "redid {} (took back undo {})",
                style.id(r.as_str()),
                style.id(u.as_str())
            );
        }
        (None, Some(u)) => {
            let _ = write!(t, "undid {}", style.id(u.as_str()));
        }
        _ => {}
    }
    if let Some(m) = &o.branch_target {
        let sep = if t.is_empty() { "" } else { "; " };
        let _ = write!(
            t,
            "{sep}conversation back to before {}",
            prompt(style, numbers, m)
        );
    }
    if !o.files.is_empty() {
        let sep = if t.is_empty() { "" } else { "; " };
        let _ = write!(t, "{sep}{}", count(o.files.len(), "file"));
        if let Some(p) = o.policy.filter(|p| *p != rewind_core::model::Policy::Block) {
            let _ = write!(t, " ({})", super::verdict::word(&p));
        }
    }
    if let Some(n) = &o.note.as_deref().filter(|n| !n.is_empty()) {
        let sep = if t.is_empty() { "" } else { "; " };
        let _ = write!(t, "{sep}{}", visible(n));
    }
    t
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let style = ctx.style.with_absolute_times(a.absolute);
    let engine = ctx.engine(Verb::Operations)?;
    let session = ctx.session(&engine, &a.session)?;
    let ops = engine.operations(&session)?;
    let numbers: HashMap<MessageId, usize> = branch_turns(&engine, &session)?
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t.prompt_id, i + 1))
        .collect();
    let entries = entries(&ops.items);
    let mut text = String::new();
    for e in &entries {
        let o = e.operation;
        let undone = match e.undone_by {
            Some(by) => style.paint(
                Role::Dim,
                format!("  [undone by {}]", style.id(by.as_str())),
            ),
            None => String::new(),
        };
        let _ = writeln!(
            text,
            "{} {}  {}  {}  {}{undone}",
            if e.current {
                style.paint(Role::Heading, "@")
            } else {
                " ".to_owned()
            },
            style.id(o.id.as_str()),
            style.time(o.created_at),
            style.paint(Role::Heading, format!("{:<19}", e.action)),
            what(&style, &numbers, e),
        );
    }
    for d in &ops.diagnostics {
        let _ = writeln!(
            text,
            "! {} could not be read: {}",
            visible(&d.id),
            visible(&d.reason)
        );
    }
    if ops.items.is_empty() {
        text.push_str("no operations yet");
    } else {
        let can = |which| rewind_core::undo::latest(&ops.items, which).is_some();
        let undo = can(rewind_core::undo::Latest::Rewind)
            .then_some("`rewind undo` takes back the latest rewind still in effect");
        let redo = can(rewind_core::undo::Latest::Undo)
            .then_some("`rewind redo` takes back the latest undo");
        let next: Vec<&str> = [undo, redo].into_iter().flatten().collect();
        let mut foot = "@ is the current state".to_owned();
        if !next.is_empty() {
            let _ = write!(foot, "; {}", next.join(", "));
        }
        let _ = write!(text, "{}", style.paint(Role::Dim, foot));
    }
    Ok(Report::new(&entries, text))
}
