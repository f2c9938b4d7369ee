//! `rewind ops [SESSION] [--absolute]`: the operation log, newest last, with when each ran,
//! what it did, which turns it reached back to, and what undid it.

use super::refs::branch_turns;
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, Style, count, visible};
use rewind_core::files::in_effect;
use rewind_core::id::MessageId;
use rewind_core::model::{OpTarget, Operation};
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

fn what(style: &Style, numbers: &HashMap<MessageId, usize>, o: &Operation) -> String {
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
    if let Some(u) = &o.undoes {
        let _ = write!(t, "took back {}", style.id(u.as_str()));
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
    let mut text = String::new();
    for o in &ops.items {
        let undone =
            if o.kind.writes_files() && !o.files.is_empty() && !in_effect(&ops.items, &o.id) {
                style.paint(Role::Dim, "  [undone]")
            } else {
                String::new()
            };
        let _ = writeln!(
            text,
            "{}  {}  {}  {}{undone}",
            style.id(o.id.as_str()),
            style.time(o.created_at),
            style.paint(Role::Heading, format!("{:<19}", o.kind.as_str())),
            what(&style, &numbers, o),
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
    } else if ops.items.iter().any(|o| {
        o.kind.writes_files()
            && o.kind != rewind_core::model::OperationKind::Undo
            && !o.files.is_empty()
            && in_effect(&ops.items, &o.id)
    }) {
        let _ = write!(
            text,
            "{}",
            style.paint(
                Role::Dim,
                "`rewind undo` takes back the latest rewind still in effect"
            )
        );
    }
    Ok(Report::new(&ops.items, text))
}
