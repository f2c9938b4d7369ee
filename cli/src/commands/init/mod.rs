//! `rewind init <agent> [--user] [--dry-run] [--remove]`: install `rewind hook <agent>` where
//! the agent reads its hooks (the workspace's, or with `--user` the user's), merged with what
//! is there, or take it out again. Each agent has its own format (`places`): Claude-style
//! settings groups, Codex's `hooks.json` or `config.toml`, flat `hooks.json` entries, Cline's
//! scripts, the OpenCode plugin. A file of the person's that rewind changes is kept as
//! `<name>.rewind-backup`.

mod codex_toml;
mod files;
mod flat;
mod gemini;
mod json;
mod notes;
mod places;
mod plugin;
mod scripts;

use super::hook_settings::{self, command_for};
use super::{CliError, Context, Report};
use crate::agents::Agent;
use files::Change;
use places::Format;
use rewind_core::ErrorKind;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The agent whose settings get the hooks.
    #[arg(value_enum)]
    agent: Agent,
    /// Change the user's settings (~/.claude, ~/.codex, ~/.config/opencode, …) instead of the
    /// workspace's.
    #[arg(long)]
    user: bool,
    /// Show what would change as a unified diff; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Take rewind's hooks out instead of putting them in.
    #[arg(long)]
    remove: bool,
}

/// What `init` did (or, with `--dry-run`, would do).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    agent: &'static str,
    /// The file rewind's hooks are in (Cline: the hooks directory).
    path: PathBuf,
    changed: bool,
    /// The copy of the person's previous file, when one was written.
    backup: Option<PathBuf>,
    /// Every file written or removed.
    files: Vec<PathBuf>,
    /// Install: the events rewind's hook is on. Remove: the events it was taken from.
    events: Vec<String>,
    removed: bool,
    dry_run: bool,
    /// `--dry-run`: the unified diff ("" when nothing would change).
    diff: Option<String>,
}

/// The changes one run makes.
struct Plan {
    path: PathBuf,
    changes: Vec<Change>,
    events: Vec<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let agent = a.agent;
    let exe = executable()?;
    let command = hook_command(&exe, agent)?;
    let plan = plan(ctx, &a, &exe, &command)?;
    let changed: Vec<&Change> = plan.changes.iter().filter(|c| c.changed()).collect();
    let mut outcome = Outcome {
        agent: agent.as_str(),
        path: plan.path.clone(),
        changed: !changed.is_empty(),
        backup: None,
        files: changed.iter().map(|c| c.path.clone()).collect(),
        events: plan.events.clone(),
        removed: a.remove,
        dry_run: a.dry_run,
        diff: None,
    };
    if a.dry_run {
        outcome.diff = Some(changed.iter().map(|c| files::unified_diff(c)).collect());
    } else {
        for c in &changed {
            let backup = files::apply(c)?;
            outcome.backup = outcome.backup.or(backup);
        }
    }
    let written = plan
        .changes
        .iter()
        .find(|c| c.path == plan.path)
        .and_then(|c| c.after.as_deref());
    let text = summary(ctx, &outcome, agent, a.user, &command, written);
    Ok(Report::new(&outcome, text))
}

fn plan(ctx: &Context, a: &Args, exe: &str, command: &str) -> Result<Plan, CliError> {
    let (agent, remove) = (a.agent, a.remove);
    let path = places::location(ctx, agent, a.user)?;
    let (changes, events) = match places::format(agent) {
        Format::Groups => {
            let (change, events) = json::edit(&path, |root| groups(root, agent, command, remove))?;
            (vec![change], events)
        }
        Format::Codex => return codex(path, agent, command, remove),
        Format::Flat(style) => {
            let (mut change, events) = json::edit(&path, |root| {
                if remove {
                    Ok(flat::remove(root, style, agent))
                } else {
                    flat::install(root, style, agent, command)
                }
            })?;
            if agent == Agent::Copilot {
                // `.github/hooks/rewind.json` is rewind's own file: it goes when emptied.
                change.owned = change.before.is_none() || change.after.as_deref() == Some("{}\n");
                if change.after.as_deref() == Some("{}\n") {
                    change.after = None;
                }
            }
            (vec![change], events)
        }
        Format::Scripts => scripts::plan(&path, agent, command, remove)?,
        Format::Plugin => {
            let (change, events) = plugin::plan(&path, agent, exe, remove)?;
            (vec![change], events)
        }
    };
    Ok(Plan {
        path,
        changes,
        events,
    })
}

/// What `rewind doctor` sees of one agent's install, from `init`'s own plans (writing nothing).
pub(super) struct Installed {
    /// The file rewind's hooks go in (Cline: the hooks directory).
    pub(super) path: PathBuf,
    /// Some of rewind's hooks are there (`--remove` would change something).
    pub(super) present: bool,
    /// They are exactly what `rewind init` would write now.
    pub(super) current: bool,
    /// Each file's text as it is (the files that exist).
    pub(super) texts: Vec<(PathBuf, String)>,
}

pub(super) fn inspect(ctx: &Context, agent: Agent, user: bool) -> Result<Installed, CliError> {
    let exe = executable()?;
    let command = hook_command(&exe, agent)?;
    let args = |remove| Args {
        agent,
        user,
        dry_run: true,
        remove,
    };
    let install = plan(ctx, &args(false), &exe, &command)?;
    let removal = plan(ctx, &args(true), &exe, &command)?;
    let present = removal.changes.iter().any(Change::changed);
    Ok(Installed {
        path: install.path,
        present,
        current: present && !install.changes.iter().any(Change::changed),
        texts: install
            .changes
            .into_iter()
            .filter_map(|c| Some((c.path, c.before?)))
            .collect(),
    })
}

/// Claude-style groups: install or remove, returning the events.
fn groups(
    root: &mut serde_json::Map<String, serde_json::Value>,
    agent: Agent,
    command: &str,
    remove: bool,
) -> Result<Vec<String>, String> {
    if remove {
        let events = hook_settings::remove(root, agent);
        if agent == Agent::GeminiCli && !events.is_empty() {
            gemini::forget(root);
        }
        return Ok(events);
    }
    hook_settings::install(root, agent, command)?;
    if agent == Agent::GeminiCli {
        gemini::keep_sessions(root);
    }
    Ok(agent.events().iter().map(|e| e.name.to_owned()).collect())
}

/// Codex: `hooks.json`, unless `config.toml` beside it already holds hooks, then there (one
/// format per config layer, as Codex advises). Removing takes ours out of both.
fn codex(path: PathBuf, agent: Agent, command: &str, remove: bool) -> Result<Plan, CliError> {
    let toml_path = path.with_file_name("config.toml");
    let toml_before = files::read(&toml_path)?;
    let mut doc: toml_edit::DocumentMut = toml_before
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|e| files::refuse(&toml_path, &format!("it is not valid TOML ({e})")))?;
    let in_toml = codex_toml::has_hooks(&doc);
    let mut events = Vec::new();
    if remove {
        events.extend(codex_toml::remove(&mut doc, agent));
    } else if in_toml {
        codex_toml::install(&mut doc, agent, command).map_err(|why| {
            files::refuse(
                &toml_path,
                &format!("{why}; fix it by hand, then run this again"),
            )
        })?;
        events = agent.events().iter().map(|e| e.name.to_owned()).collect();
    }
    let toml_after = match &toml_before {
        None if doc.is_empty() => None,
        _ => Some(doc.to_string()),
    };
    // Ours leave hooks.json when they go to config.toml.
    let to_json = !remove && !in_toml;
    let (json_change, json_events) =
        json::edit(&path, |root| groups(root, agent, command, !to_json))?;
    if remove {
        events.extend(
            json_events
                .into_iter()
                .filter(|e| !events.contains(e))
                .collect::<Vec<_>>(),
        );
    } else if to_json {
        events = json_events;
    }
    let toml_change = Change::shared(toml_path.clone(), toml_before, toml_after);
    let main = if in_toml || (remove && !json_change.changed() && toml_change.changed()) {
        toml_path
    } else {
        path
    };
    Ok(Plan {
        path: main,
        changes: vec![json_change, toml_change],
        events,
    })
}

/// This executable's absolute path, as UTF-8 (a settings file and the plugin hold it).
fn executable() -> Result<String, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::host(format!("cannot find the rewind executable: {e}")))?;
    exe.to_str().map(str::to_owned).ok_or_else(|| {
        CliError::host(format!(
            "the rewind executable's path {} is not UTF-8, which a settings file cannot hold",
            exe.display()
        ))
    })
}

/// The hook command: this executable's path (quoted for the shell), then ` hook <agent>`.
fn hook_command(exe: &str, agent: Agent) -> Result<String, CliError> {
    command_for(exe, agent).ok_or_else(|| {
        CliError::new(
            ErrorKind::InvalidInput,
            format!(
                "the rewind executable's path {exe} holds a character ($, \" or `) that the \
                 agent's shell would expand in a hook command; install rewind in a directory \
                 without one; nothing was changed"
            ),
        )
    })
}

fn summary(
    ctx: &Context,
    o: &Outcome,
    agent: Agent,
    user: bool,
    command: &str,
    written: Option<&str>,
) -> String {
    let name = agent.display_name();
    let path = o.path.display();
    if o.dry_run {
        let diff = o.diff.as_deref().unwrap_or_default();
        return if diff.is_empty() {
            format!("no change: {path}")
        } else {
            format!("{}\n(dry run: nothing written)", diff.trim_end())
        };
    }
    let mut lines = Vec::new();
    match (o.removed, o.changed) {
        (false, false) => lines.push(format!("rewind's {name} hooks are already in {path}")),
        (false, true) => {
            lines.push(format!("installed rewind's {name} hooks in {path}"));
            for e in agent.events() {
                match e.matcher {
                    Some(m) => lines.push(format!("  {}  {m}", e.name)),
                    None => lines.push(format!("  {}", e.name)),
                }
            }
            lines.push(format!("hook command: {command}"));
        }
        (true, false) => lines.push(format!("no rewind hooks for {name} in {path}")),
        (true, true) => lines.push(format!(
            "removed rewind's {name} hooks from {path} ({})",
            o.events.join(", ")
        )),
    }
    if let Some(b) = &o.backup {
        lines.push(format!("previous file saved as {}", b.display()));
    }
    if !o.removed {
        lines.extend(notes::blockers(agent, written));
        if agent == Agent::GeminiCli {
            lines.extend(gemini::note(written));
        }
        if !user && notes::only_at_top(agent) {
            let top = std::path::absolute(&ctx.workspace).unwrap_or_else(|_| ctx.workspace.clone());
            lines.push(format!(
                "note: {name} reads these settings only when started in {}; started in a \
                 subdirectory or elsewhere it runs no rewind hook. Start it there, or install \
                 with --user (then every workspace is recorded, into its nearest .rewind/, \
                 else its git top level)",
                Path::new(&top).display()
            ));
        }
        lines.push(format!("hint: {}", notes::hint(agent)));
    }
    lines.join("\n")
}
