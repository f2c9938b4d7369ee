//! `rewind checkpoints [SESSION]`.

use super::{Access, CliError, Context, Report, SessionArg};
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let engine = ctx.engine(Access::Read)?;
    let session = ctx.session(&engine, &a.session)?;
    let list = engine.checkpoints(&session)?;
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
            .map_or_else(String::new, |i| format!("  $ {i}"));
        let _ = writeln!(
            text,
            "{}  turn {}  {}{external}{input}",
            c.checkpoint_id, c.turn_id, c.tool_name
        );
        for f in &c.files {
            // `missing` is an absent file; a failed capture's unknown side says so, with why.
            let unknown = match &f.capture_failed {
                Some(why) => format!("unknown (capture failed: {why})"),
                None => "unknown".to_owned(),
            };
            let short = |h: &Option<String>| match h.as_deref() {
                Some(h) if h.len() == 64 => h[..12].to_owned(),
                Some(h) => h.to_owned(),
                None => unknown.clone(),
            };
            let undone = if f.undone { "  (undone)" } else { "" };
            let _ = writeln!(
                text,
                "    {}  {} -> {}{undone}",
                f.path,
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
