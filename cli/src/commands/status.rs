//! `rewind status`: one line — the current session, whether it is recording (a turn running),
//! what the last agent event was, and how many problems `rewind doctor` sees. Cheap whatever
//! the session's length: the newest message only, the hook's small ledger, the agents'
//! settings files. Reads only: where there is no store it says so and creates none.

use super::{CliError, Context, Report, Verb, doctor};
use crate::style::{count, visible};
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::{Message, TurnStatus};
use rewind_core::ports::{SeqRange, Store as _};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub(super) struct Args {}

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
}

pub(super) fn run(ctx: &Context, _a: Args) -> Result<Report, CliError> {
    let engine = ctx.engine(Verb::ListSessions)?;
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
    };
    let now = rewind_core::ports::Clock::now_ms(&rewind_host::native::SystemClock);
    let text = line(&outcome, u64::try_from(now).unwrap_or(0));
    Ok(Report::new(&outcome, text))
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
    let event = match &o.last_event {
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
    };
    let doctor = match o.problems {
        0 => "doctor: no problems".to_owned(),
        n => format!("doctor: {} (rewind doctor)", count(n, "problem")),
    };
    format!("{session}; {event}; {doctor}")
}
