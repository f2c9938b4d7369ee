//! `rewind doctor [--user]`: whether each agent's rewind hooks are installed, what `rewind
//! init` would write now, run a binary that is there, and are let run (the gates each agent
//! has); when each event last arrived, which ones rewind did not understand, and what could not
//! be captured lately. Each problem comes with its fix; exit 1 when one needs the person. It
//! reads init's own plans (as `--dry-run` does) and the hook's files; it writes nothing.

mod codex;
mod events;
mod gates;
pub(super) mod render;

use super::{CliError, Context, Report, init};
use crate::agents::Agent;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Check the user's settings (~/.claude, ~/.codex, …) instead of the workspace's.
    #[arg(long)]
    user: bool,
}

/// Something that needs the person, and what to do about it.
#[derive(Debug, Serialize)]
pub(super) struct Problem {
    what: String,
    fix: String,
}

/// One agent, as doctor found it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AgentReport {
    agent: &'static str,
    name: &'static str,
    installed: bool,
    /// The file rewind's hooks are (or would be) in.
    path: Option<PathBuf>,
    up_to_date: bool,
    problems: Vec<Problem>,
    /// What doctor could not check from files, and other things worth knowing.
    notes: Vec<String>,
    /// The events that arrived from this agent, newest first.
    events: Vec<events::Arrival>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    scope: &'static str,
    workspace: PathBuf,
    agents: Vec<AgentReport>,
    /// Events rewind received and did not understand, counted by agent, host, event and tool.
    ignored: Vec<events::Ignored>,
    /// `hook.log`'s lines of the last week: what could not be captured.
    not_captured: Vec<String>,
    /// How many problems need the person (exit 1 when any).
    problems: usize,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    if a.user && std::env::var_os("HOME").is_none_or(|h| h.is_empty()) {
        return Err(CliError::new(
            rewind_core::ErrorKind::InvalidInput,
            "HOME is not set, so --user cannot find the agents' user settings; set HOME or \
             leave out --user to check the workspace's",
        ));
    }
    let now = rewind_core::ports::Clock::now_ms(&rewind_host::native::SystemClock);
    let now = u64::try_from(now).unwrap_or(0);
    let seen = crate::hook::read_seen(&ctx.db);
    let agents: Vec<AgentReport> = Agent::ALL
        .iter()
        .map(|&agent| {
            let mut report = check(ctx, agent, a.user);
            report.events = events::arrivals(&seen, agent);
            report
        })
        .collect();
    let mut agents = agents;
    twice(&mut agents);
    let problems = agents.iter().map(|r| r.problems.len()).sum();
    let outcome = Outcome {
        scope: if a.user { "user" } else { "workspace" },
        workspace: std::path::absolute(&ctx.workspace).unwrap_or_else(|_| ctx.workspace.clone()),
        agents,
        ignored: events::ignored(&ctx.db),
        not_captured: events::not_captured(&ctx.db, now),
        problems,
    };
    let text = render::text(&outcome, a.user, now);
    Ok(Report::new(&outcome, text).with_exit(i32::from(problems > 0)))
}

/// How many problems `rewind doctor` (the workspace's) would report: `rewind status` says it.
pub(super) fn problem_count(ctx: &Context) -> usize {
    let mut agents: Vec<AgentReport> = Agent::ALL
        .iter()
        .map(|&agent| check(ctx, agent, false))
        .collect();
    twice(&mut agents);
    agents.iter().map(|r| r.problems.len()).sum()
}

/// One agent's install: present, current, its binary there, its gates open.
fn check(ctx: &Context, agent: Agent, user: bool) -> AgentReport {
    let mut report = AgentReport {
        agent: agent.as_str(),
        name: agent.display_name(),
        installed: false,
        path: None,
        up_to_date: false,
        problems: Vec::new(),
        notes: Vec::new(),
        events: Vec::new(),
    };
    let init = init_line(agent, user);
    let installed = match init::inspect(ctx, agent, user) {
        Ok(i) => i,
        Err(e) => {
            report.installed = true;
            report.problems.push(Problem {
                what: format!(
                    "rewind cannot read {}'s hook settings: {e}",
                    agent.display_name()
                ),
                fix: format!("fix the file by hand, then run `{init}`"),
            });
            return report;
        }
    };
    report.path = Some(installed.path.clone());
    report.installed = installed.present;
    report.up_to_date = installed.current;
    if !installed.present {
        return report;
    }
    if !installed.current {
        let missing = gates::programs(&installed.texts, agent)
            .into_iter()
            .find(|p| !gates::runnable(p));
        report.problems.push(match missing {
            Some(program) => Problem {
                what: format!(
                    "rewind's hooks in {} run {program}, which is not there (or not executable): \
                     no event is recorded",
                    installed.path.display()
                ),
                fix: format!("run `{init}` to point them at this rewind"),
            },
            None => Problem {
                what: format!(
                    "rewind's hooks in {} are not what `{init}` writes now (an older rewind, \
                     another binary, or edited by hand): some events may not be recorded",
                    installed.path.display()
                ),
                fix: format!("run `{init}` (`--dry-run` first shows the change)"),
            },
        });
    }
    gates::check(ctx, agent, user, &installed.texts, &mut report);
    report
}

/// Cursor (with its third-party toggle on) and `cn` also run `.claude/settings.json`'s hooks:
/// with both installs, rewind runs twice for each event.
fn twice(agents: &mut [AgentReport]) {
    let claude = agents
        .iter()
        .any(|a| a.agent == "claude-code" && a.installed);
    for a in agents.iter_mut().filter(|a| a.installed && claude) {
        match a.agent {
            "continue" => a.notes.push(
                "cn also runs .claude/settings.json's hooks, where rewind's Claude Code hooks \
                 are too: rewind runs twice for each event; keep one install (`rewind init \
                 claude-code --remove` or `rewind init continue --remove`)"
                    .to_owned(),
            ),
            "cursor" => a.notes.push(
                "rewind's Claude Code hooks are installed too: if Cursor's third-party hooks \
                 setting is on, rewind runs twice for each event; keep one install"
                    .to_owned(),
            ),
            _ => {}
        }
    }
}

/// The `rewind init` command that installs `agent` where doctor looked.
fn init_line(agent: Agent, user: bool) -> String {
    let user = if user { " --user" } else { "" };
    format!("rewind init {agent}{user}")
}
