//! What keeps an installed hook from running: the binary it names, and each agent's own gates
//! that can be read from files (Gemini CLI's trusted folders and hook switches, the
//! `disableAllHooks` of Claude-style settings). What cannot be read (Codex's `/hooks` trust,
//! Cursor's third-party toggle) is said as a note, plainly.

use super::{AgentReport, Problem};
use crate::agents::Agent;
use crate::commands::Context;
use crate::commands::hook_settings::{is_ours, one_word, without_event_option};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The programs rewind's hooks for `agent` run, read from the files' texts: JSON and TOML
/// strings, Cline's `exec` lines, the plugin's `const REWIND`.
pub(super) fn programs(texts: &[(PathBuf, String)], agent: Agent) -> Vec<String> {
    let mut strings = Vec::new();
    for (_, text) in texts {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            json_strings(&v, &mut strings);
        } else if let Ok(doc) = text.parse::<toml_edit::DocumentMut>() {
            toml_strings(doc.as_item(), &mut strings);
        }
        for line in text.lines() {
            if let Some(cmd) = line.strip_prefix("exec ") {
                strings.push(cmd.to_owned());
            }
            if let Some(js) = line.trim().strip_prefix("const REWIND = ") {
                let js = js.trim_end_matches(';');
                if let Ok(exe) = serde_json::from_str::<String>(js) {
                    return vec![exe];
                }
            }
        }
    }
    let suffix = format!(" hook {agent}");
    let mut found: Vec<String> = strings
        .iter()
        .filter(|s| is_ours(s, agent))
        .filter_map(|s| {
            let program = without_event_option(s.trim()).strip_suffix(&suffix)?;
            one_word(program.trim_end())
        })
        .collect();
    found.dedup();
    found
}

fn json_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| json_strings(v, out)),
        Value::Object(o) => o.values().for_each(|v| json_strings(v, out)),
        _ => {}
    }
}

fn toml_strings(item: &toml_edit::Item, out: &mut Vec<String>) {
    if let Some(s) = item.as_str() {
        out.push(s.to_owned());
    } else if let Some(t) = item.as_table_like() {
        t.iter().for_each(|(_, i)| toml_strings(i, out));
    } else if let Some(a) = item.as_array() {
        a.iter()
            .filter_map(|v| v.as_str())
            .for_each(|s| out.push(s.to_owned()));
    } else if let Some(a) = item.as_array_of_tables() {
        a.iter()
            .for_each(|t| toml_strings(&toml_edit::Item::Table(t.clone()), out));
    }
}

/// Whether `program` is a file this user may run (a bare name: one on `PATH`, as the agent's
/// shell finds it).
pub(super) fn runnable(program: &str) -> bool {
    if !program.contains(['/', '\\']) {
        let path = std::env::var_os("PATH").unwrap_or_default();
        return std::env::split_paths(&path).any(|d| runnable_file(&d.join(program)));
    }
    runnable_file(Path::new(program))
}

fn runnable_file(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    let may_run = {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    };
    #[cfg(not(unix))]
    let may_run = true;
    meta.is_file() && may_run
}

/// The agent's own gates, as far as files say.
pub(super) fn check(
    ctx: &Context,
    agent: Agent,
    user: bool,
    texts: &[(PathBuf, String)],
    report: &mut AgentReport,
) {
    let roots: Vec<Value> = texts
        .iter()
        .filter_map(|(_, t)| serde_json::from_str(t).ok())
        .collect();
    let claude_like = matches!(
        agent,
        Agent::ClaudeCode | Agent::QwenCode | Agent::Continue | Agent::Codex
    );
    for (path, root) in texts.iter().map(|(p, _)| p).zip(&roots) {
        if claude_like && root.get("disableAllHooks") == Some(&Value::Bool(true)) {
            report.problems.push(Problem {
                what: format!(
                    "{} sets \"disableAllHooks\": true, so no hook runs",
                    path.display()
                ),
                fix: "remove \"disableAllHooks\" from that file".to_owned(),
            });
        }
    }
    match agent {
        Agent::Cline => {
            for (path, _) in texts
                .iter()
                .filter(|(p, _)| !runnable(&p.to_string_lossy()))
            {
                report.problems.push(Problem {
                    what: format!(
                        "{} is not executable, so Cline cannot run it",
                        path.display()
                    ),
                    fix: format!("chmod +x '{}'", path.display()),
                });
            }
        }
        Agent::GeminiCli => gemini(ctx, user, &roots, report),
        Agent::Codex => {
            let ws = std::path::absolute(&ctx.workspace).unwrap_or_else(|_| ctx.workspace.clone());
            if let Some(hooks) = report.path.clone() {
                super::codex::check(&hooks, (!user).then_some(ws.as_path()), report);
            }
        }
        Agent::Cursor => report.notes.push(
            "whether Cursor's third-party hooks setting is on cannot be read from files; with \
             it on, Cursor also runs .claude/settings.json's hooks (keep one install, not both)"
                .to_owned(),
        ),
        _ => {}
    }
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Gemini CLI: hooks switched off (`hooksConfig.enabled` / `hooks.enabled` false, in the file
/// or the user's settings), and, for a workspace install, a folder it does not trust (it then
/// ignores the workspace's settings).
fn gemini(ctx: &Context, user: bool, roots: &[Value], report: &mut AgentReport) {
    let gemini = home().map(|h| h.join(".gemini"));
    let read = |name: &str| -> Option<Value> {
        let text = std::fs::read_to_string(gemini.as_ref()?.join(name)).ok()?;
        serde_json::from_str(&text).ok()
    };
    let settings = read("settings.json");
    let off = |v: &Value| {
        ["hooksConfig", "hooks"]
            .iter()
            .any(|k| v.get(k).and_then(|c| c.get("enabled")) == Some(&Value::Bool(false)))
    };
    if roots.iter().chain(settings.as_ref()).any(off) {
        report.problems.push(Problem {
            what: "Gemini CLI's settings switch hooks off (\"hooksConfig\" or \"hooks\": \
                   {\"enabled\": false}), so no hook runs"
                .to_owned(),
            fix: "set \"enabled\" to true there, or remove it".to_owned(),
        });
    }
    if user {
        return;
    }
    let workspace = std::path::absolute(&ctx.workspace).unwrap_or_else(|_| ctx.workspace.clone());
    let trust_on = settings
        .as_ref()
        .and_then(|s| s.pointer("/security/folderTrust/enabled"))
        .and_then(Value::as_bool);
    let rules = read("trustedFolders.json");
    match folder_trust(rules.as_ref(), &workspace) {
        Some(false) => report.problems.push(Problem {
            what: format!(
                "Gemini CLI does not trust {} (~/.gemini/trustedFolders.json), so it ignores the \
                 workspace's settings and rewind's hooks in them",
                workspace.display()
            ),
            fix: "start Gemini CLI there and trust the folder (/permissions), or install with \
                  `rewind init gemini-cli --user`"
                .to_owned(),
        }),
        None if trust_on == Some(true) => report.problems.push(Problem {
            what: format!(
                "Gemini CLI's folder trust is on and {} is not trusted yet, so it ignores the \
                 workspace's settings and rewind's hooks in them",
                workspace.display()
            ),
            fix: "start Gemini CLI there and trust the folder when it asks".to_owned(),
        }),
        None => report.notes.push(
            "Gemini CLI runs a workspace's hooks only in a folder it trusts: trust it when asked"
                .to_owned(),
        ),
        Some(true) => {}
    }
}

/// What `trustedFolders.json` says of `dir`: the rule of the nearest folder it names
/// (`TRUST_PARENT` trusts the named folder's parent), `None` when none applies.
fn folder_trust(rules: Option<&Value>, dir: &Path) -> Option<bool> {
    let rules = rules?.as_object()?;
    let mut best: Option<(usize, bool)> = None;
    for (path, rule) in rules {
        let path = Path::new(path);
        let (scope, trusted) = match rule.as_str().unwrap_or_default() {
            "TRUST_FOLDER" => (path, true),
            "TRUST_PARENT" => (path.parent().unwrap_or(path), true),
            "DO_NOT_TRUST" => (path, false),
            _ => continue,
        };
        // A distrusted folder is only itself; a trusted one covers what is below it.
        let applies = if trusted {
            dir.starts_with(scope)
        } else {
            dir == scope
        };
        let depth = scope.components().count();
        if applies && best.is_none_or(|(d, _)| depth >= d) {
            best = Some((depth, trusted));
        }
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_nearest_rule_of_gemini_trusted_folders_decides() {
        let rules = json!({
            "/home/me": "TRUST_FOLDER",
            "/home/me/secret": "DO_NOT_TRUST",
            "/work/repo/.git": "TRUST_PARENT",
        });
        let trust = |d: &str| folder_trust(Some(&rules), Path::new(d));
        assert_eq!(trust("/home/me/proj"), Some(true));
        assert_eq!(trust("/home/me/secret"), Some(false));
        assert_eq!(
            trust("/work/repo/src"),
            Some(true),
            "TRUST_PARENT trusts the parent"
        );
        assert_eq!(trust("/elsewhere"), None);
        assert_eq!(folder_trust(None, Path::new("/home/me")), None);
    }
}
