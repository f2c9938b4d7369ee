//! `rewind init <agent> [--user] [--dry-run] [--remove]`: install `rewind hook <agent>` in the
//! agent's settings (the workspace's `.<agent>/settings.json`, or the user's), merged with what
//! is there, or take it out again. The previous file is kept as `settings.json.rewind-backup`.

use super::hook_settings::{self, command_for};
use super::{CliError, Context, Report};
use crate::agents::Agent;
use rewind_core::ErrorKind;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The agent whose settings get the hooks.
    #[arg(value_enum)]
    agent: Agent,
    /// Change the user's settings (~/.claude, ~/.gemini, ~/.qwen) instead of the workspace's.
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
    path: PathBuf,
    changed: bool,
    /// The copy of the previous file, when one was written.
    backup: Option<PathBuf>,
    /// Install: the events rewind's hook is on. Remove: the events it was taken from.
    events: Vec<String>,
    removed: bool,
    dry_run: bool,
    /// `--dry-run`: the unified diff ("" when nothing would change).
    diff: Option<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let agent = a.agent;
    // The new agents' settings files come with their installers (issue 28).
    if !matches!(
        agent,
        Agent::ClaudeCode | Agent::GeminiCli | Agent::QwenCode
    ) {
        return Err(CliError::new(
            ErrorKind::Unavailable,
            format!(
                "rewind init does not write {}'s settings yet",
                agent.display_name()
            ),
        ));
    }
    let path = settings_path(ctx, agent, a.user)?;
    let before = read(&path)?;
    let mut root = match &before {
        Some(text) => parse(&path, text)?,
        None => Map::new(),
    };
    let original = root.clone();
    let command = hook_command(agent)?;
    let events = if a.remove {
        hook_settings::remove(&mut root, agent)
    } else {
        hook_settings::install(&mut root, agent, &command).map_err(|why| {
            refuse(
                &path,
                &format!("{why}; fix it by hand, then run this again"),
            )
        })?;
        agent.events().iter().map(|e| e.name.to_owned()).collect()
    };
    let changed = match &before {
        Some(_) => root != original,
        None => !a.remove,
    };
    let after = render(&root);
    let mut outcome = Outcome {
        agent: agent.as_str(),
        path: path.clone(),
        changed,
        backup: None,
        events,
        removed: a.remove,
        dry_run: a.dry_run,
        diff: None,
    };
    if a.dry_run {
        let diff = if changed {
            unified_diff(&path, before.as_deref(), &after)
        } else {
            String::new()
        };
        outcome.diff = Some(diff);
    } else if changed {
        outcome.backup = write(&path, before.as_deref(), &after)?;
    }
    let text = summary(&outcome, agent, a.user, &command, &root);
    Ok(Report::new(&outcome, text))
}

/// `<workspace>/.claude/settings.json`, or with `--user` `$HOME/.claude/settings.json`
/// (`$CLAUDE_CONFIG_DIR/settings.json` when set: Claude Code keeps its user files there).
fn settings_path(ctx: &Context, agent: Agent, user: bool) -> Result<PathBuf, CliError> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = if !user {
        if !ctx.workspace.is_dir() {
            return Err(CliError::new(
                ErrorKind::InvalidInput,
                format!(
                    "the workspace {} is not a directory",
                    ctx.workspace.display()
                ),
            ));
        }
        ctx.workspace.join(agent.config_dir())
    } else if let Some(dir) = non_empty("CLAUDE_CONFIG_DIR").filter(|_| agent == Agent::ClaudeCode)
    {
        PathBuf::from(dir)
    } else {
        let home = non_empty("HOME").ok_or_else(|| {
            CliError::new(
                ErrorKind::InvalidInput,
                format!(
                    "HOME is not set, so --user cannot find ~/{}/settings.json; set HOME or \
                     leave out --user to change the workspace's settings",
                    agent.config_dir()
                ),
            )
        })?;
        PathBuf::from(home).join(agent.config_dir())
    };
    let path = dir.join("settings.json");
    std::path::absolute(&path)
        .map_err(|e| CliError::host(format!("cannot resolve {}: {e}", path.display())))
}

/// The hook command: this executable's absolute path, then ` hook <agent>`.
fn hook_command(agent: Agent) -> Result<String, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::host(format!("cannot find the rewind executable: {e}")))?;
    let exe = exe.to_str().ok_or_else(|| {
        CliError::host(format!(
            "the rewind executable's path {} is not UTF-8, which a settings file cannot hold",
            exe.display()
        ))
    })?;
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

/// The file's text, `None` when there is none.
fn read(path: &Path) -> Result<Option<String>, CliError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| refuse(path, &format!("not UTF-8 text ({e})"))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::host(format!(
            "cannot read {}: {}",
            path.display(),
            rewind_host::disk::describe(&e)
        ))),
    }
}

/// The settings as a JSON object; an empty file counts as `{}`.
fn parse(path: &Path, text: &str) -> Result<Map<String, Value>, CliError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(refuse(
            path,
            &format!("it is {}, not a JSON object", hook_settings::kind(&other)),
        )),
        Err(e) => Err(refuse(
            path,
            &format!("it is not valid JSON ({e}); rewind edits plain JSON only, without comments"),
        )),
    }
}

fn refuse(path: &Path, why: &str) -> CliError {
    CliError::new(
        ErrorKind::InvalidInput,
        format!(
            "cannot change {}: {why}; nothing was changed",
            path.display()
        ),
    )
}

/// Pretty-printed with 2 spaces and a trailing newline.
fn render(root: &Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(root).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// Back up the previous file (when there was one), then replace the settings atomically.
/// Returns the backup's path.
fn write(path: &Path, before: Option<&str>, after: &str) -> Result<Option<PathBuf>, CliError> {
    let host = |e: rewind_core::HostError| CliError::host(e.to_string());
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| {
        CliError::host(format!(
            "cannot create {}: {}",
            dir.display(),
            rewind_host::disk::describe(&e)
        ))
    })?;
    // A settings file that is a symlink (dotfiles) stays one: write where it points.
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path)
            .map_err(|e| CliError::host(format!("cannot follow {}: {e}", path.display())))?,
        _ => path.to_path_buf(),
    };
    let backup = match before {
        Some(text) => {
            let mut name = path.file_name().unwrap_or_default().to_owned();
            name.push(".rewind-backup");
            let backup = path.with_file_name(name);
            let like = fs::metadata(&target).ok();
            rewind_host::disk::write_file_like(&backup, text.as_bytes(), like.as_ref())
                .map_err(host)?;
            Some(backup)
        }
        None => None,
    };
    rewind_host::disk::write_own_file(&target, after.as_bytes()).map_err(host)?;
    Ok(backup)
}

fn unified_diff(path: &Path, before: Option<&str>, after: &str) -> String {
    let shown = path.display().to_string();
    let old_name = if before.is_some() {
        shown.as_str()
    } else {
        "/dev/null"
    };
    similar::TextDiff::from_lines(before.unwrap_or(""), after)
        .unified_diff()
        .context_radius(3)
        .header(old_name, &shown)
        .to_string()
}

fn summary(
    o: &Outcome,
    agent: Agent,
    user: bool,
    command: &str,
    root: &Map<String, Value>,
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
        lines.extend(notes(agent, root));
        if !user {
            lines.push(format!(
                "note: {name} reads these settings only when started in {}; started in a \
                 subdirectory or elsewhere it runs no rewind hook. Start it there, or install \
                 with --user (then every workspace is recorded, into its nearest .rewind/, \
                 else its git top level)",
                o.path
                    .parent()
                    .and_then(Path::parent)
                    .unwrap_or(Path::new("."))
                    .display()
            ));
        }
        lines.push(format!("hint: {}", hint(agent)));
    }
    lines.join("\n")
}

/// Settings in this same file that keep the hooks from running.
fn notes(agent: Agent, root: &Map<String, Value>) -> Vec<String> {
    let mut notes = Vec::new();
    if agent != Agent::GeminiCli && root.get("disableAllHooks") == Some(&Value::Bool(true)) {
        notes.push("note: this file sets \"disableAllHooks\": true, so no hook runs".to_owned());
    }
    let gemini_off = root
        .get("hooksConfig")
        .and_then(|c| c.get("enabled"))
        .is_some_and(|v| v == &Value::Bool(false));
    if agent == Agent::GeminiCli && gemini_off {
        notes.push(
            "note: this file sets \"hooksConfig\": {\"enabled\": false}, so no hook runs"
                .to_owned(),
        );
    }
    notes
}

fn hint(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => {
            "in an interactive session Claude Code runs hooks only once you have accepted the \
             workspace trust dialog for the folder; it picks up settings changes by itself"
        }
        Agent::GeminiCli => {
            "Gemini CLI runs project hooks only in trusted folders and warns once about new ones. \
             Hooks are on by default from 0.26; 0.24 and 0.25 also need \"hooks\": \
             {\"enabled\": true}, 0.23 and older \"tools\": {\"enableHooks\": true}"
        }
        Agent::QwenCode => {
            "Qwen Code reads hooks when a session starts (restart it or open /hooks) and runs \
             project hooks only in trusted folders. Versions from before hooks were on by \
             default (April 2026) also need \"hooksConfig\": {\"enabled\": true}"
        }
        _ => "",
    }
}
