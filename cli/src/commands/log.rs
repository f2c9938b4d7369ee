//! `rewind log [SESSION] [--all] [--absolute]`: the conversation by turn (`#N`, as every turn
//! argument takes it), when each message came and who wrote it, with each turn's checkpoints.
//! `--all` also shows what earlier rewinds took off the active branch.

use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, count, visible};
use rewind_core::branch::MessageView;
use rewind_core::files::undone_changes;
use rewind_core::load::SessionLog;
use rewind_core::resume::CheckpointSummary;
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// Include abandoned branches.
    #[arg(long)]
    all: bool,
    /// Dates and times instead of "3 minutes ago".
    #[arg(long)]
    absolute: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(flatten)]
    message: MessageView,
    on_branch: bool,
    /// The prompt's turn number along the active branch (`#N`); prompts only.
    #[serde(skip_serializing_if = "Option::is_none")]
    turn_number: Option<usize>,
    checkpoints: Vec<CheckpointSummary>,
}

/// The first line of `text`, at most `width` characters, its control characters made visible
/// (it is stored text, shown on one line).
pub(super) fn first_line(text: &str, width: usize) -> String {
    let line = visible(text.lines().next().unwrap_or_default());
    if line.chars().count() > width {
        let cut: String = line.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.into_owned()
    }
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let style = ctx.style.with_absolute_times(a.absolute);
    let engine = ctx.engine(Verb::ActiveBranch)?;
    let session = ctx.session(&engine, &a.session)?;
    let log = SessionLog::load(engine.store(), &session)?;
    let undone = undone_changes(&log.operations);
    let mut entries = Vec::new();
    let mut turns = 0;
    let mut body = String::new();
    for m in &log.messages {
        let on_branch = log.session.branch.contains(m.seq);
        if !on_branch && !a.all {
            continue;
        }
        let checkpoints: Vec<CheckpointSummary> = if m.is_prompt() {
            log.checkpoints
                .iter()
                .filter(|c| c.prompt_id == m.id)
                .map(|c| CheckpointSummary::of(c, &undone))
                .collect()
        } else {
            Vec::new()
        };
        let turn_number = (m.is_prompt() && on_branch).then(|| {
            turns += 1;
            turns
        });
        let mark = if on_branch { " " } else { "x" };
        let role = super::verdict::word(&m.kind);
        let head = match turn_number {
            Some(n) => style.paint(Role::Meta, format!("{:<5}", format!("#{n}"))),
            None if m.is_prompt() => style.paint(Role::Dim, "#-   "),
            None => "     ".to_owned(),
        };
        let line = first_line(&m.text(), 70);
        let text = if m.is_prompt() {
            style.paint(Role::Heading, line)
        } else {
            line
        };
        let _ = writeln!(
            body,
            "{mark} {head}{} {:<10} {}  {text}",
            style.id(m.id.as_str()),
            role,
            style.time(m.created_at),
        );
        for c in &checkpoints {
            for f in &c.files {
                let state = if f.undone {
                    style.paint(Role::Dim, " (undone)")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    body,
                    "{mark}         {} {} {}{state}",
                    style.id(c.checkpoint_id.as_str()),
                    visible(&c.tool_name),
                    visible(f.path.as_str())
                );
            }
        }
        entries.push(Entry {
            message: MessageView::from(m),
            on_branch,
            turn_number,
            checkpoints,
        });
    }
    for d in &log.diagnostics {
        let _ = writeln!(
            body,
            "{} {} {} (seq {}) could not be read: {}",
            style.paint(Role::Bad, "!"),
            d.kind,
            visible(&d.id),
            d.seq,
            visible(&d.reason)
        );
    }
    if a.all {
        body.push_str("(x = not on the active branch)\n");
    }
    let mut text = format!(
        "session {} {}, generation {}, {}\n",
        style.id(log.session.id.as_str()),
        style.text(Role::Heading, format!("({})", log.session.title)),
        log.session.generation,
        turn_count(&style, turns, a.all, log.session.generation),
    );
    text.push_str(&body);
    let json = serde_json::json!({
        "sessionId": log.session.id,
        "generation": log.session.generation,
        "messages": entries,
        "diagnostics": log.diagnostics,
    });
    Ok(Report::new(&json, text))
}

/// The header's turn count; after a rewind without `--all`, with where the other turns are.
fn turn_count(style: &crate::style::Style, turns: usize, all: bool, generation: u64) -> String {
    let n = count(turns, "turn");
    match all || generation == 0 {
        true => n,
        false => format!(
            "{n}\n{}",
            style.paint(
                Role::Dim,
                "rewinds took turns off the branch: `rewind log --all` shows them, `rewind undo` \
                 brings the latest back"
            )
        ),
    }
}
