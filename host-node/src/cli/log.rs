//! `rewind log [SESSION] [--all]`: the conversation by turn, with each turn's checkpoints.
//! `--all` also shows what earlier rewinds took off the active branch.

use super::{Access, CliError, Context, Report, SessionArg};
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
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(flatten)]
    message: MessageView,
    on_branch: bool,
    checkpoints: Vec<CheckpointSummary>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let engine = ctx.engine(Access::Read)?;
    let session = ctx.session(&engine, &a.session)?;
    let log = SessionLog::load(engine.store(), &session)?;
    let undone = undone_changes(&log.operations);
    let mut entries = Vec::new();
    let mut text = format!(
        "session {} ({}), generation {}\n",
        log.session.id, log.session.title, log.session.generation
    );
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
        let mark = if on_branch { " " } else { "x" };
        let first_line = m
            .text()
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(70)
            .collect::<String>();
        let indent = if m.is_prompt() { "" } else { "    " };
        let role = serde_json::to_value(m.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let _ = writeln!(text, "{mark} {indent}{} {role:<8} {first_line}", m.id);
        for c in &checkpoints {
            for f in &c.files {
                let state = if f.undone { " (undone)" } else { "" };
                let _ = writeln!(
                    text,
                    "{mark}       {} {} {}{state}",
                    c.checkpoint_id, c.tool_name, f.path
                );
            }
        }
        entries.push(Entry {
            message: MessageView::from(m),
            on_branch,
            checkpoints,
        });
    }
    for d in &log.diagnostics {
        let _ = writeln!(
            text,
            "! {} {} (seq {}) could not be read: {}",
            d.kind, d.id, d.seq, d.reason
        );
    }
    if a.all {
        text.push_str("(x = not on the active branch)\n");
    }
    let json = serde_json::json!({
        "sessionId": log.session.id,
        "generation": log.session.generation,
        "messages": entries,
        "diagnostics": log.diagnostics,
    });
    Ok(Report::new(&json, text))
}
