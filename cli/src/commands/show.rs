//! `rewind show TURN [SESSION] [--stat]`: one turn as `git show` shows a commit — its prompt,
//! its checkpoints, and its own forward diff (what the agent changed in that turn: each path's
//! first before-state in the turn → its last after-state), rendered as `rewind diff` renders.
//! Reads only.

use super::refs::{Ref, TurnOrMessage};
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, count, visible, visible_lines};
use rewind_core::ErrorKind;
use rewind_core::files::{DiffAction, DiffHunk, DiffStats, FileDiff, LineKind, RewindDiff};
use rewind_core::hash::ContentHash;
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::model::{Checkpoint, FileVersion, Message};
use rewind_core::patch::{self, LineStats, PATCH_LIMIT};
use rewind_core::ports::Store;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The turn (#N, @, @-1, a turn id or prefix, or a message of it).
    #[arg(value_name = "TURN", add = super::candidates::turns())]
    turn: String,
    #[command(flatten)]
    session: SessionArg,
    /// Only the changed lines per file, as `git show --stat`.
    #[arg(long)]
    stat: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    session_id: SessionId,
    turn_id: TurnId,
    prompt: String,
    checkpoints: Vec<Shown>,
    /// The turn's forward diff (`files`, `stats`), shaped as `rewind diff --json`'s.
    diff: RewindDiff,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Shown {
    id: String,
    tool_name: String,
    paths: Vec<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let at = Ref::<TurnOrMessage>::new(&a.turn)?;
    let engine = ctx.engine(Verb::DiffFileRewind)?;
    let session = ctx.session(&engine, &a.session)?;
    let id = at.resolve(ctx.lookup(&engine), &session)?.0;
    let store = engine.store();
    let turn = turn_of(store, &session, &id)?;
    let t = rewind_core::load::turn(store, &session, &turn)?;
    // Keyed and per-turn reads only, so `show` costs the same at any session length. A prompt
    // that does not decode shows as empty, as it always did.
    let prompt = message(store, &session, &t.prompt_id)?
        .map(|m| m.text())
        .unwrap_or_default();
    let mut checkpoints: Vec<Checkpoint> =
        rewind_core::load::turn_checkpoints(store, &session, &turn)?.items;
    checkpoints.retain(|c| c.turn_id == turn);
    checkpoints.sort_by_key(|c| c.seq);
    let diff = forward(store, &session, &checkpoints);
    let outcome = Outcome {
        session_id: session,
        turn_id: turn,
        prompt,
        checkpoints: checkpoints
            .iter()
            .map(|c| Shown {
                id: c.id.to_string(),
                tool_name: c.tool_name.clone(),
                paths: c.changes.iter().map(|f| f.path.to_string()).collect(),
            })
            .collect(),
        diff,
    };
    let text = render(ctx, &outcome, a.stat);
    Ok(Report::new(&outcome, text))
}

/// The turn a `TurnOrMessage` names: itself, or the turn of the message.
fn turn_of(store: &dyn Store, s: &SessionId, id: &str) -> Result<TurnId, CliError> {
    if let Ok(turn) = id.parse::<TurnId>() {
        return Ok(turn);
    }
    let message = match id.parse::<MessageId>() {
        Ok(m) => message(store, s, &m)?,
        Err(_) => None,
    };
    message.and_then(|m| m.turn_id).ok_or_else(|| {
        CliError::new(
            ErrorKind::InvalidInput,
            format!("message {id} belongs to no turn: `rewind log` lists the turns"),
        )
    })
}

/// One message by its key; one that does not decode reads as absent (a store failure is still
/// an error).
fn message(store: &dyn Store, s: &SessionId, id: &MessageId) -> Result<Option<Message>, CliError> {
    match rewind_core::load::message(store, s, id) {
        Ok(m) => Ok(m),
        Err(rewind_core::load::Error::Corrupt { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Each path's first before-state in the turn → its last after-state, by path (`log --stat`
/// and `log -p` show each turn's through this too).
pub(super) fn forward(store: &dyn Store, s: &SessionId, checkpoints: &[Checkpoint]) -> RewindDiff {
    type Sides<'a> = (Option<&'a FileVersion>, Option<&'a FileVersion>);
    let mut paths: BTreeMap<String, Sides<'_>> = BTreeMap::new();
    for c in checkpoints {
        for f in &c.changes {
            let e = paths
                .entry(f.path.to_string())
                .or_insert((f.before.as_ref(), None));
            e.1 = f.after.as_ref();
        }
    }
    let files: Vec<FileDiff> = paths
        .into_iter()
        .filter(|(_, (b, a))| b.map(|v| &v.hash) != a.map(|v| &v.hash))
        .map(|(path, (before, after))| file(store, path, before, after))
        .collect();
    let mut lines = LineStats::default();
    for f in &files {
        lines.additions = lines.additions.saturating_add(f.lines.additions);
        lines.deletions = lines.deletions.saturating_add(f.lines.deletions);
    }
    RewindDiff {
        session_id: s.clone(),
        stats: DiffStats {
            files: files.len(),
            lines,
        },
        files,
        unchanged_files: Vec::new(),
        reverted_paths: Vec::new(),
    }
}

fn file(
    store: &dyn Store,
    path: String,
    before: Option<&FileVersion>,
    after: Option<&FileVersion>,
) -> FileDiff {
    let action = match (before, after) {
        (None, _) => DiffAction::Create,
        (_, None) => DiffAction::Delete,
        _ => DiffAction::Restore,
    };
    let (old, new) = (content(store, before), content(store, after));
    let large = [&old, &new]
        .into_iter()
        .any(|c| c.as_ref().is_some_and(|b| b.len() > PATCH_LIMIT));
    let text = |c: &Option<Vec<u8>>| match c {
        None => Some(String::new()),
        Some(b) if b.contains(&0) => None,
        Some(b) => String::from_utf8(b.clone()).ok(),
    };
    let (hunks, binary) = match (large, text(&old), text(&new)) {
        (false, Some(o), Some(n)) => (
            patch::create(&o, &n, 3)
                .into_iter()
                .map(DiffHunk::from)
                .collect(),
            false,
        ),
        (true, _, _) => (Vec::new(), false),
        _ => (Vec::new(), true),
    };
    let mut lines = LineStats::default();
    for l in hunks.iter().flat_map(|h: &DiffHunk| &h.lines) {
        match l.kind {
            LineKind::Added => lines.additions += 1,
            LineKind::Removed => lines.deletions += 1,
            LineKind::Context => {}
        }
    }
    FileDiff {
        path,
        action: Some(action),
        safe: true,
        reason: None,
        message: None,
        mergeable: false,
        forceable: true,
        binary,
        large,
        old_mode: None,
        new_mode: None,
        lines,
        hunks,
        person_change: None,
        agent_change: None,
        merge_hunks: None,
    }
}

/// A side's bytes (`None` = absent; a blob gc dropped reads as empty, the diff then shows it).
fn content(store: &dyn Store, v: Option<&FileVersion>) -> Option<Vec<u8>> {
    let hash: &ContentHash = &v?.hash;
    rewind_core::load::blob(store, hash).ok()
}

fn render(ctx: &Context, o: &Outcome, stat: bool) -> String {
    let style = &ctx.style;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}",
        style.paint(Role::Id, format!("turn {}", o.turn_id))
    );
    for line in visible_lines(&o.prompt).lines() {
        let _ = writeln!(t, "    {line}");
    }
    t.push('\n');
    for c in &o.checkpoints {
        let paths: Vec<String> = c.paths.iter().map(|p| visible(p).into_owned()).collect();
        let _ = writeln!(
            t,
            "  {} {}: {}",
            style.id(&c.id),
            visible(&c.tool_name),
            paths.join(", ")
        );
    }
    if o.diff.files.is_empty() {
        t.push_str("the turn changed no files");
        return t;
    }
    t.push('\n');
    t.push_str(&changes(style, &o.diff, stat));
    t
}

/// A turn's forward diff as `show` prints it (`rewind log --stat` / `-p` too): the hunks, or
/// with `stat` the changed lines per file, then what the turn added and removed.
pub(super) fn changes(style: &crate::style::Style, diff: &RewindDiff, stat: bool) -> String {
    let mut t = String::new();
    let body = if stat {
        // `rewind diff --stat`'s per-file lines; its summary speaks of a rewind, this one of
        // the turn.
        let s = super::diff::stat(style, diff);
        s.rsplit_once('\n')
            .map(|(files, _)| files.to_owned())
            .unwrap_or(s)
    } else {
        super::diff::render(style, diff).trim_end().to_owned()
    };
    let l = diff.stats.lines;
    let _ = write!(
        t,
        "{body}\n {}; the turn added {} and removed {}",
        count(diff.stats.files, "file"),
        style.paint(Role::Added, count(l.additions as usize, "line")),
        style.paint(Role::Removed, count(l.deletions as usize, "line"))
    );
    t
}
