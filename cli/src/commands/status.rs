//! `rewind status [--short]`: a short report — the current session (id, title, the agent whose
//! hooks record it), the running turn, the last agent event, doctor's problem count, pending
//! journals, and what a rewind of the latest turn would touch now (the `preview` of `--turn @`).
//! `--short` is the one line scripts and the status bar read. Reads only: where there is no
//! store it says so and creates none; pending journals are listed, not settled.

use super::refs::{Ref, TurnOrMessage};
use super::{CliError, Context, Report, Verb, doctor};
use crate::style::{Role, Style, count, visible};
use rewind_core::files::{Preview, TargetOptions};
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::{Message, TurnStatus};
use rewind_core::ports::{SeqRange, Store as _};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// One line: the session, recording or not, the last agent event, doctor's problems.
    #[arg(long)]
    short: bool,
}

/// The last event an agent's hook delivered.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct LastEvent {
    agent: String,
    host: String,
    event: String,
    ms: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    session: Option<SessionId>,
    title: Option<String>,
    /// The agent whose hooks record the session, when one does.
    agent: Option<String>,
    /// The running turn: the session is recording.
    running_turn: Option<TurnId>,
    recording: bool,
    last_event: Option<LastEvent>,
    /// What `rewind doctor` would count.
    problems: usize,
    /// Journals of applies a crash interrupted (`rewind recover` settles them).
    pending_journals: Vec<String>,
    /// What `rewind preview --turn @` says now, when the session has a turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    latest_turn: Option<LatestTurn>,
}

/// A rewind of the session's latest turn, previewed now.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct LatestTurn {
    turn: String,
    /// The preview, or why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    preview: Option<Preview>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Verb::ListSessions)?;
    let current = rewind_host::current::read(&ctx.db)
        .and_then(|id| rewind_core::load::session(engine.store(), &id).ok());
    let running_turn = match &current {
        Some(s) => running(&engine, &s.id)?,
        None => None,
    };
    let last_event = crate::hook::read_seen(&ctx.db)
        .into_iter()
        .max_by_key(|(_, seen)| seen.ms)
        .map(|((agent, host, event), seen)| LastEvent {
            agent,
            host,
            event,
            ms: seen.ms,
        });
    let outcome = Outcome {
        session: current.as_ref().map(|s| s.id.clone()),
        title: current.as_ref().map(|s| s.title.clone()),
        agent: current
            .as_ref()
            .and_then(|s| s.agent.as_ref())
            .map(|a| a.agent.clone()),
        recording: running_turn.is_some(),
        running_turn,
        last_event,
        problems: doctor::problem_count(ctx),
        pending_journals: pending(&engine)?,
        latest_turn: match (&current, a.short) {
            (Some(s), false) => latest(ctx, &mut engine, &s.id),
            _ => None,
        },
    };
    let now = rewind_core::ports::Clock::now_ms(&rewind_host::native::SystemClock);
    let now = u64::try_from(now).unwrap_or(0);
    let text = match a.short {
        true => line(&outcome, now),
        false => report(&ctx.style, &outcome, now),
    };
    Ok(Report::new(&outcome, text))
}

/// The pending journals' ids, oldest first.
fn pending(engine: &rewind_host::native::NativeEngine) -> Result<Vec<String>, CliError> {
    let rows = engine
        .store()
        .journals()
        .map_err(|e| CliError::host(e.to_string()))?;
    // Ids as stored: one of another shape is pending all the same (`rewind recover` names it).
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// The preview of a rewind of the latest turn (`--turn @`); `None` when there is no turn.
fn latest(
    ctx: &Context,
    engine: &mut rewind_host::native::NativeEngine,
    s: &SessionId,
) -> Option<LatestTurn> {
    let at = Ref::<TurnOrMessage>::new("@").ok()?;
    let turn = at.resolve(ctx.lookup(engine), s).ok()?.0;
    let opts = TargetOptions {
        turn: Some(turn.clone()),
        ..TargetOptions::default()
    };
    Some(match engine.preview_file_rewind(s, opts) {
        Ok(p) => LatestTurn {
            turn,
            preview: Some(p),
            error: None,
        },
        Err(e) => LatestTurn {
            turn,
            preview: None,
            error: Some(CliError::from(e).message().to_owned()),
        },
    })
}

/// The report: one fact a line.
fn report(style: &Style, o: &Outcome, now: u64) -> String {
    let mut t = match (&o.session, &o.title) {
        (Some(id), Some(title)) => {
            let by = match &o.agent {
                Some(a) => format!("recorded by {a}'s hooks"),
                None => "recorded by hand (no agent's hooks)".to_owned(),
            };
            let doing = match &o.running_turn {
                Some(t) => format!("recording turn {}", style.id(t.as_str())),
                None => "not recording (no turn running)".to_owned(),
            };
            let (id, title) = (style.id(id.as_str()), style.text(Role::Heading, title));
            format!("session {id} \"{title}\"\n  {by}\n  {doing}\n")
        }
        _ => "no current session\n".to_owned(),
    };
    let _ = writeln!(t, "  {}", event(&o.last_event, now));
    let _ = writeln!(t, "  {}", problems(o.problems));
    match o.pending_journals.as_slice() {
        [] => t.push_str("  no pending journals\n"),
        ids => {
            let ids: Vec<String> = ids.iter().map(|i| style.id(i)).collect();
            let _ = writeln!(
                t,
                "  {} ({}): run {}",
                style.paint(Role::Bad, count(ids.len(), "pending journal")),
                ids.join(", "),
                style.hint("rewind recover")
            );
        }
    }
    if let Some(l) = &o.latest_turn {
        let _ = write!(t, "  a rewind of the latest turn ({}) ", style.id(&l.turn));
        match (&l.preview, &l.error) {
            (Some(p), _) => t.push_str(&touches(style, p)),
            (None, Some(e)) => {
                let _ = write!(t, "cannot be previewed: {e}");
            }
            (None, None) => {}
        }
        t.push('\n');
    } else if o.session.is_some() {
        t.push_str("  no turn to rewind yet\n");
    }
    t.truncate(t.trim_end().len());
    t
}

/// "would touch 2 files: a.rs, b.rs (conflict); 1 conflict; the rewind adds … (see `rewind
/// preview --turn @`)", counted as `preview` counts.
fn touches(style: &Style, p: &Preview) -> String {
    if p.safe_files.is_empty() && p.unsafe_files.is_empty() {
        return "would touch nothing: nothing to restore".to_owned();
    }
    let mut paths: Vec<String> = p
        .safe_files
        .iter()
        .map(|f| visible(f.path.as_str()).into_owned())
        .collect();
    let conflict = style.paint(Role::Bad, "(conflict)");
    paths.extend(
        p.unsafe_files
            .iter()
            .map(|f| format!("{} {conflict}", visible(f.path.as_str()))),
    );
    let conflicts = match p.unsafe_files.len() {
        0 => "no conflicts".to_owned(),
        n => style.paint(Role::Bad, count(n, "conflict")),
    };
    format!(
        "would touch {}: {}; {conflicts}; {} (see {})",
        count(p.stats.files, "file"),
        paths.join(", "),
        super::verdict::lines_written(style, p.stats.lines),
        style.hint("rewind preview --turn @")
    )
}

/// The session's running turn: the turn of its newest message, when that turn still runs.
fn running(
    engine: &rewind_host::native::NativeEngine,
    s: &SessionId,
) -> Result<Option<TurnId>, CliError> {
    let rows = engine
        .store()
        .last_messages_in(s, SeqRange::ALL, 1)
        .map_err(|e| CliError::host(e.to_string()))?;
    let Some(row) = rows.into_iter().next() else {
        return Ok(None);
    };
    let Ok(message) = serde_json::from_str::<Message>(&row.body) else {
        return Ok(None); // `rewind resume` reports a row that does not decode
    };
    let Some(turn) = message.turn_id else {
        return Ok(None);
    };
    let t = rewind_core::load::turn(engine.store(), s, &turn)?;
    Ok((t.status == TurnStatus::Running).then_some(turn))
}

fn line(o: &Outcome, now: u64) -> String {
    let session = match (&o.session, &o.title) {
        (Some(id), Some(title)) => {
            let by = o
                .agent
                .as_deref()
                .map(|a| format!(" ({a})"))
                .unwrap_or_default();
            let doing = match &o.running_turn {
                Some(t) => format!("recording turn {t}"),
                None => "not recording (no turn running)".to_owned(),
            };
            format!("session {id} \"{}\"{by}: {doing}", visible(title))
        }
        _ => "no current session".to_owned(),
    };
    format!(
        "{session}; {}; {}",
        event(&o.last_event, now),
        problems(o.problems)
    )
}

fn event(last: &Option<LastEvent>, now: u64) -> String {
    match last {
        Some(e) if e.host == "installed" => format!(
            "last agent event: {} {} {}",
            e.agent,
            e.event,
            doctor::render::ago(now, e.ms)
        ),
        Some(e) => format!(
            "last agent event: {} {} (from {}) {}",
            e.agent,
            e.event,
            e.host,
            doctor::render::ago(now, e.ms)
        ),
        None => "no agent event yet".to_owned(),
    }
}

fn problems(n: usize) -> String {
    match n {
        0 => "doctor: no problems".to_owned(),
        n => format!("doctor: {} (rewind doctor)", count(n, "problem")),
    }
}
