//! `rewind log [SESSION] [--all] [--absolute] [-n N] [--stat] [-p]`: the conversation by turn
//! (`#N`, as every turn argument takes it), when each message came and who wrote it, with each
//! turn's checkpoints. `--all` also shows what earlier rewinds took off the active branch; `-n N`
//! only the latest N turns; `--stat` / `-p` each turn's own changes, as `rewind show` gives them.
//!
//! It reads the session page by page ([`pages`]) and writes each page as it is made, the text or
//! the one JSON document, through the output writer: memory does not grow with the session, and
//! a reader that goes away (`rewind log | head`) stops the reading. Run by another front end
//! (`rewind mcp`) it returns the whole report instead.

mod pages;
mod render;

use super::{CliError, Context, Report, SessionArg, Verb};
use crate::output;
use crate::style::{Style, visible};
use pages::Pages;
use rewind_core::branch::MessageView;
use rewind_core::files::RewindDiff;
use rewind_core::id::CheckpointId;
use rewind_core::load::{self, Diagnostic};
use rewind_core::model::Session;
use rewind_core::path::WorkPath;
use rewind_core::ports::SeqRange;
use rewind_core::resume::CheckpointSummary;
use rewind_host::native::NativeEngine;
use serde::Serialize;
use std::collections::BTreeSet;

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
    /// Only the latest N turns of the active branch (from the Nth latest prompt on).
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    max_count: Option<usize>,
    /// Each turn's changed files and lines, as `rewind show --stat` counts them.
    #[arg(long)]
    stat: bool,
    /// Each turn's own diff, as `rewind show` prints it.
    #[arg(short = 'p', long = "patch")]
    patch: bool,
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
    /// With `--stat` or `-p`, a prompt's turn's forward diff, shaped as `rewind show --json`'s
    /// (`--stat` alone: without the hunks).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<RewindDiff>,
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

/// What every page is rendered with.
struct Log<'a> {
    engine: &'a NativeEngine,
    session: &'a Session,
    style: Style,
    all: bool,
    stat: bool,
    patch: bool,
    undone: BTreeSet<(CheckpointId, WorkPath)>,
}

/// The log being written: its pages, rendered.
struct Walk<'a> {
    log: &'a Log<'a>,
    pages: Pages<'a>,
    /// The last thing written was a turn's changes: a blank line before the next message.
    gap: bool,
    /// Why the reading stopped, when the store failed in the middle of a JSON document.
    failed: Option<CliError>,
}

impl Walk<'_> {
    /// The next page: each message's entry and its text; `None` after the last.
    fn page(&mut self) -> Result<Option<Vec<(Entry, String)>>, CliError> {
        let Some(items) = self.pages.next_page()? else {
            return Ok(None);
        };
        Ok(Some(
            items
                .into_iter()
                .map(|item| self.log.entry(item, &mut self.gap))
                .collect(),
        ))
    }
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let engine = ctx.engine(Verb::ActiveBranch)?;
    let id = ctx.session(&engine, &a.session)?;
    let store = engine.store();
    let session = load::session(store, &id)?;
    let total = turns_below(&engine, &session, u64::MAX)?;
    let from = match a.max_count {
        Some(n) => pages::latest_start(store, &session, n)?,
        None => 0,
    };
    let before = match from {
        0 => 0,
        from => turns_below(&engine, &session, from)?,
    };
    let operations = load::operations(store, &id)?;
    let log = Log {
        engine: &engine,
        session: &session,
        style: ctx.style.with_absolute_times(a.absolute),
        all: a.all,
        stat: a.stat,
        patch: a.patch,
        undone: rewind_core::files::undone_changes(&operations.items),
    };
    let header = log.header(total, total - before.min(total));
    let more = operations.diagnostics;
    if ctx.streams && !ctx.json {
        // The first line before any page is read: `rewind log | head -1` has it at once.
        if let Err(e) = output::human_part(&header) {
            return Ok(Report::printed(Err(e)));
        }
    }
    let mut walk = Walk {
        log: &log,
        pages: Pages::new(store, &session, a.all, from, before)?,
        gap: false,
        failed: None,
    };
    match (ctx.streams, ctx.json) {
        (true, false) => stream_text(&mut walk, more),
        (true, true) => stream_json(walk, more),
        (false, _) => collect(&mut walk, header, more),
    }
}

/// How many turns of the active branch begin before `below` (one indexed count per range).
fn turns_below(engine: &NativeEngine, s: &Session, below: u64) -> Result<usize, CliError> {
    let mut n = 0u64;
    for r in &s.branch.ranges {
        let span = SeqRange::new(r.start, r.end.unwrap_or(u64::MAX).min(below));
        if !span.is_empty() {
            n += engine
                .store()
                .turn_count_in(&s.id, span)
                .map_err(load::Error::from)?;
        }
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// The text, written page by page.
fn stream_text(walk: &mut Walk<'_>, more: Vec<Diagnostic>) -> Result<Report, CliError> {
    while let Some(page) = walk.page()? {
        let text: String = page.into_iter().map(|(_, t)| t).collect();
        if let Err(e) = output::human_part(&text) {
            // The reader went away (or the disk is full): stop reading.
            return Ok(Report::printed(Err(e)));
        }
    }
    let diagnostics = walk.pages.diagnostics(more);
    let footer = walk.log.footer(&diagnostics);
    Ok(Report::printed(output::human_part(&footer)))
}

/// The JSON document, `{"sessionId", "generation", "messages", "diagnostics"}`, encoded as the
/// pages are read.
fn stream_json(walk: Walk<'_>, more: Vec<Diagnostic>) -> Result<Report, CliError> {
    let (session_id, generation) = (walk.log.session.id.clone(), walk.log.session.generation);
    let walk = std::cell::RefCell::new(walk);
    let doc = render::Doc {
        session_id,
        generation,
        messages: render::Messages(&walk),
        diagnostics: render::Diagnostics(&walk, std::cell::RefCell::new(Some(more))),
    };
    let mut out = output::JsonStream::default();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    let encoded = doc.serialize(&mut ser);
    if let Some(e) = walk.borrow_mut().failed.take() {
        return Err(e);
    }
    let written = encoded.map_err(std::io::Error::from).and_then(|()| {
        use std::io::Write as _;
        out.write_all(b"\n")?;
        out.flush()
    });
    Ok(Report::printed(written))
}

/// The whole report, for a front end that reads it (`rewind mcp`).
fn collect(
    walk: &mut Walk<'_>,
    mut text: String,
    more: Vec<Diagnostic>,
) -> Result<Report, CliError> {
    let mut entries = Vec::new();
    while let Some(page) = walk.page()? {
        for (entry, t) in page {
            entries.push(entry);
            text.push_str(&t);
        }
    }
    let diagnostics = walk.pages.diagnostics(more);
    text.push_str(&walk.log.footer(&diagnostics));
    let json = serde_json::json!({
        "sessionId": walk.log.session.id,
        "generation": walk.log.session.generation,
        "messages": entries,
        "diagnostics": diagnostics,
    });
    Ok(Report::new(&json, text))
}
