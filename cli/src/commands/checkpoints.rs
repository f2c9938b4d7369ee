//! `rewind checkpoints [SESSION]`.

use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, visible};
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let engine = ctx.engine(Verb::Checkpoints)?;
    let session = ctx.session(&engine, &a.session)?;
    let list = engine.checkpoints(&session)?;
    let numbers: std::collections::HashMap<_, _> = super::refs::branch_turns(&engine, &session)?
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t.id, i + 1))
        .collect();
    let style = &ctx.style;
    let mut text = String::new();
    for c in &list {
        // The person's own changes, seen by a snapshot, are marked: a rewind keeps them.
        let external = match c.kind {
            rewind_core::model::CheckpointKind::External => "  (your changes between turns)",
            _ => "",
        };
        let input = c
            .tool_input
            .as_deref()
            .map_or_else(String::new, |i| format!("  $ {}", visible(i)));
        // `#N` for a turn on the active branch; a rewound one by its id.
        let turn = match numbers.get(&c.turn_id) {
            Some(n) => style.paint(Role::Meta, format!("#{n}")),
            None => style.id(c.turn_id.as_str()),
        };
        let _ = writeln!(
            text,
            "{}  turn {turn}  {}{external}{input}",
            style.id(c.checkpoint_id.as_str()),
            visible(&c.tool_name)
        );
        for f in &c.files {
            // `missing` is an absent file; a failed capture's unknown side says so, with why.
            let unknown = match &f.capture_failed {
                Some(why) => format!("unknown (capture failed: {})", visible(why)),
                None => "unknown".to_owned(),
            };
            let short = |h: &Option<String>| match h.as_deref() {
                Some(h) if h.len() == 64 => h[..12].to_owned(),
                Some(h) => visible(h).into_owned(),
                None => unknown.clone(),
            };
            let undone = if f.undone {
                style.paint(Role::Dim, "  (undone)")
            } else {
                String::new()
            };
            let _ = writeln!(
                text,
                "    {}  {} -> {}{undone}",
                visible(f.path.as_str()),
                short(&f.before),
                short(&f.after)
            );
        }
    }
    if list.is_empty() {
        text.push_str("no checkpoints");
    }
    Ok(Report::new(&list, text))
}
