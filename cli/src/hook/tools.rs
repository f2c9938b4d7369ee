//! Which tools change files, and how each names them, per host: the installed agent's own
//! tools first, then those of the host that sent the payload (a Claude Code install run by VS
//! Code, `cn` or Cursor). A tool no table names is `None`: ignored, as agents add tools.
//!
//! Field spellings of paths: `file_path` (Claude, Gemini, Qwen, Cursor, Codex aliases),
//! `filePath` (VS Code, OpenCode), `filepath` (`cn`'s Write), `path` (Copilot CLI, Cline,
//! Kiro, goose), `notebook_path` (Claude, Qwen), `target_notebook` (Cursor). A patch
//! (`apply_patch`: Codex `command`, Cline `input`, OpenCode `patchText`) names its files inside
//! (`rewind_core::v4a`); a Codex `Bash` that is an `apply_patch` heredoc is read as the patch.

use super::payload::Host;
use crate::agents::Agent;
use rewind_core::v4a;
use serde_json::Value;

/// What a tool does to the workspace, as far as rewind cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// It writes these files (paths as the agent gave them: absolute, or relative to `cwd`).
    Files(Vec<String>),
    /// It runs this shell command.
    Shell(String),
}

/// The kind of tool, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Writes (or deletes) the files its input names.
    File,
    /// Applies a V4A patch.
    Patch,
    /// Runs a shell command.
    Shell,
    /// Runs a list of shell commands (Cline's `run_commands`).
    Commands,
}

const CLAUDE: &[(&str, Kind)] = &[
    ("Write", Kind::File),
    ("Edit", Kind::File),
    ("MultiEdit", Kind::File),
    ("NotebookEdit", Kind::File),
    ("Bash", Kind::Shell),
    ("PowerShell", Kind::Shell),
];
const GEMINI: &[(&str, Kind)] = &[
    ("write_file", Kind::File),
    ("replace", Kind::File),
    ("run_shell_command", Kind::Shell),
];
const QWEN: &[(&str, Kind)] = &[
    ("write_file", Kind::File),
    ("edit", Kind::File),
    ("Write", Kind::File),
    ("Edit", Kind::File),
    ("notebook_edit", Kind::File),
    ("NotebookEdit", Kind::File),
    ("run_shell_command", Kind::Shell),
    ("Bash", Kind::Shell),
];
/// Codex: `Write` and `Edit` are matcher aliases of `apply_patch`; older releases named the
/// shell `shell` / `exec_command`.
const CODEX: &[(&str, Kind)] = &[
    ("apply_patch", Kind::Patch),
    ("Write", Kind::Patch),
    ("Edit", Kind::Patch),
    ("Bash", Kind::Shell),
    ("shell", Kind::Shell),
    ("exec_command", Kind::Shell),
];
const COPILOT: &[(&str, Kind)] = &[
    ("edit", Kind::File),
    ("create", Kind::File),
    ("bash", Kind::Shell),
    ("powershell", Kind::Shell),
];
const VSCODE: &[(&str, Kind)] = &[
    ("create_file", Kind::File),
    ("createFile", Kind::File),
    ("replace_string_in_file", Kind::File),
    ("multi_replace_string_in_file", Kind::File),
    ("insert_edit_into_file", Kind::File),
    ("edit_notebook_file", Kind::File),
    ("editFiles", Kind::File),
    ("apply_patch", Kind::Patch),
    ("run_in_terminal", Kind::Shell),
    ("runTerminalCommand", Kind::Shell),
    ("runInTerminal", Kind::Shell),
];
const CURSOR: &[(&str, Kind)] = &[
    ("Write", Kind::File),
    ("StrReplace", Kind::File),
    ("Delete", Kind::File),
    ("EditNotebook", Kind::File),
    ("MultiEdit", Kind::File),
    ("Edit", Kind::File),
    ("afterFileEdit", Kind::File),
    ("Shell", Kind::Shell),
];
const CONTINUE: &[(&str, Kind)] = &[
    ("Write", Kind::File),
    ("Edit", Kind::File),
    ("MultiEdit", Kind::File),
    ("Bash", Kind::Shell),
];
const WINDSURF: &[(&str, Kind)] = &[("write_code", Kind::File), ("run_command", Kind::Shell)];
const CLINE: &[(&str, Kind)] = &[
    ("editor", Kind::File),
    ("write_to_file", Kind::File),
    ("replace_in_file", Kind::File),
    ("delete_file", Kind::File),
    ("apply_patch", Kind::Patch),
    ("execute_command", Kind::Shell),
    ("run_commands", Kind::Commands),
];
const OPENCODE: &[(&str, Kind)] = &[
    ("write", Kind::File),
    ("edit", Kind::File),
    ("multiedit", Kind::File),
    ("apply_patch", Kind::Patch),
    ("patch", Kind::Patch),
    ("bash", Kind::Shell),
];
const KIRO: &[(&str, Kind)] = &[("fs_write", Kind::File), ("execute_bash", Kind::Shell)];

fn agent_tools(agent: Agent) -> &'static [(&'static str, Kind)] {
    match agent {
        Agent::ClaudeCode => CLAUDE,
        Agent::GeminiCli => GEMINI,
        Agent::QwenCode => QWEN,
        Agent::Codex => CODEX,
        Agent::Copilot => COPILOT,
        Agent::Cursor => CURSOR,
        Agent::Continue => CONTINUE,
        Agent::OpenCode | Agent::Kilo => OPENCODE,
        Agent::Windsurf => WINDSURF,
        Agent::Cline => CLINE,
    }
}

fn host_tools(host: Host) -> &'static [(&'static str, Kind)] {
    match host {
        Host::Installed => &[],
        Host::VsCode => VSCODE,
        Host::CopilotCli => COPILOT,
        Host::Cursor => CURSOR,
        Host::Codex => CODEX,
        Host::Windsurf => WINDSURF,
        Host::Cline => CLINE,
        Host::OpenCode => OPENCODE,
        Host::Kiro => KIRO,
    }
}

/// The host's own tool names, for a sample in tests.
#[cfg(test)]
pub(super) fn names(agent: Agent) -> Vec<&'static str> {
    agent_tools(agent).iter().map(|(n, _)| *n).collect()
}

const PATH_KEYS: [&str; 7] = [
    "file_path",
    "filePath",
    "filepath",
    "path",
    "notebook_path",
    "target_notebook",
    "target_file",
];
const COMMAND_KEYS: [&str; 4] = ["command", "command_line", "commandLine", "cmd"];
const PATCH_KEYS: [&str; 4] = ["command", "input", "patchText", "patch"];

/// A tool's effect (and what to tell about how it was read), or why it has none rewind can
/// record: `Ok(None)` when no table knows the tool (ignored), `Err` when it should change
/// files but its input does not say which (told in `hook.log`).
pub(super) fn action(
    agent: Agent,
    host: Host,
    name: &str,
    input: Option<&Value>,
) -> Result<Option<(Action, Option<String>)>, String> {
    let kind = [agent_tools(agent), host_tools(host)]
        .into_iter()
        .flatten()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k);
    let Some(kind) = kind else { return Ok(None) };
    let empty = Value::Null;
    let input = input.unwrap_or(&empty);
    let missing = |what: &str| format!("tool {name} without {what} in its input");
    match kind {
        Kind::File => {
            let paths = file_paths(input);
            if paths.is_empty() {
                return Err(missing("a file path"));
            }
            Ok(Some((Action::Files(paths), None)))
        }
        Kind::Shell => {
            let command = command(input, &COMMAND_KEYS).ok_or_else(|| missing("a command"))?;
            // A patch sent through the shell (Codex's heredoc) names its files: exact.
            match v4a::heredoc(&command).map(|h| (h.dir, v4a::read(h.patch))) {
                Some((dir, Ok(ops))) => Ok(Some((Action::Files(patch_paths(&ops, dir)), None))),
                _ => Ok(Some((Action::Shell(command), None))),
            }
        }
        Kind::Commands => {
            let command =
                command(input, &["commands", "command"]).ok_or_else(|| missing("commands"))?;
            Ok(Some((Action::Shell(command), None)))
        }
        Kind::Patch => {
            let Some(text) = command(input, &PATCH_KEYS) else {
                // Codex's `Write` / `Edit` aliases sent with a path.
                let paths = file_paths(input);
                if paths.is_empty() {
                    return Err(missing("a patch"));
                }
                return Ok(Some((Action::Files(paths), None)));
            };
            match v4a::read(&text) {
                Ok(ops) => Ok(Some((Action::Files(patch_paths(&ops, None)), None))),
                // Which files it touches is unknown: snapshots before and after it still
                // catch what it changed, as for a shell command.
                Err(why) => {
                    let note = format!(
                        "tool {name}'s patch cannot be read ({why}): its changes are taken \
                         from snapshots around it"
                    );
                    Ok(Some((Action::Shell(name.to_owned()), Some(note))))
                }
            }
        }
    }
}

/// Every path the input names: a path field, a list of them (`files`, `paths`), or the path
/// fields of its edits (`replacements`, `edits`).
fn file_paths(input: &Value) -> Vec<String> {
    let one = |v: &Value| {
        PATH_KEYS
            .iter()
            .find_map(|k| v.get(*k)?.as_str().map(str::to_owned))
    };
    let mut paths: Vec<String> = one(input).into_iter().collect();
    for list in ["files", "paths"] {
        if let Some(items) = input.get(list).and_then(Value::as_array) {
            paths.extend(
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned).or_else(|| one(i))),
            );
        }
    }
    for list in ["replacements", "edits"] {
        if let Some(items) = input.get(list).and_then(Value::as_array) {
            paths.extend(items.iter().filter_map(one));
        }
    }
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| !p.is_empty() && seen.insert(p.clone()));
    paths
}

/// A command field: text, a list of words or commands (joined), or JSON of one (Cline's string
/// parameters).
fn command(input: &Value, keys: &[&str]) -> Option<String> {
    let value = keys.iter().find_map(|k| input.get(*k))?;
    let joined = |items: &[Value], sep: &str| {
        let parts: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
        parts.map(|p| p.join(sep))
    };
    let text = match value {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(items)) => joined(&items, "\n")?,
            _ => s.clone(),
        },
        Value::Array(items) => joined(items, " ")?,
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

/// The paths a patch's operations write, relative to `dir` when the command changed to one.
fn patch_paths(ops: &[v4a::FileOp], dir: Option<&str>) -> Vec<String> {
    let mut paths = Vec::new();
    for path in ops.iter().flat_map(v4a::FileOp::paths) {
        let joined = match dir {
            Some(d) if !std::path::Path::new(path).is_absolute() => format!("{d}/{path}"),
            _ => path.to_owned(),
        };
        if !paths.contains(&joined) {
            paths.push(joined);
        }
    }
    paths
}
