//! Codex's two gates, read from the user's `config.toml` (`$CODEX_HOME`, else `~/.codex`):
//! a hook runs only once trusted in `/hooks`, which Codex keeps as
//! `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`; and a
//! project's `.codex/` is loaded only when `[projects."<dir>"] trust_level = "trusted"`
//! (openai/codex codex-rs/hooks/src/engine/discovery.rs `hook_trust_status`; its docs/hooks.md).
//! The hash itself is Codex's to compute: a trust that is there but stale (the hooks changed
//! since) cannot be told from files, and a note says so.

use super::{AgentReport, Problem};
use crate::agents::Agent;
use std::path::{Path, PathBuf};

fn user_config() -> Option<PathBuf> {
    let var = |n: &str| {
        std::env::var_os(n)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = var("CODEX_HOME").or_else(|| var("HOME").map(|h| h.join(".codex")))?;
    Some(dir.join("config.toml"))
}

/// `PreToolUse` → `pre_tool_use`, as Codex names events in its trust keys.
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

pub(super) fn check(hooks: &Path, workspace: Option<&Path>, report: &mut AgentReport) {
    let doc = user_config()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok())
        .unwrap_or_default();
    let canonical = std::fs::canonicalize(hooks).unwrap_or_else(|_| hooks.to_path_buf());
    let prefixes: Vec<String> = [hooks, canonical.as_path()]
        .iter()
        .map(|p| format!("{}:", p.display()))
        .collect();
    let trusted: Vec<String> = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_table_like())
        .map(|state| {
            state
                .iter()
                .filter(|(_, v)| v.get("trusted_hash").and_then(|h| h.as_str()).is_some())
                .filter_map(|(k, _)| prefixes.iter().find_map(|p| k.strip_prefix(p.as_str())))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let untrusted: Vec<&str> = Agent::Codex
        .events()
        .iter()
        .map(|e| e.name)
        .filter(|name| {
            !trusted
                .iter()
                .any(|k| k.starts_with(&format!("{}:", snake(name))))
        })
        .collect();
    if !untrusted.is_empty() {
        report.problems.push(Problem {
            what: format!(
                "Codex has not trusted rewind's hooks for {} (no trusted_hash in its config.toml), \
                 and skips an untrusted hook without a word",
                untrusted.join(", ")
            ),
            fix: "start Codex, open /hooks and trust rewind's hooks".to_owned(),
        });
    } else {
        report.notes.push(
            "Codex has trusted rewind's hooks; whether that trust is for their current text \
             (Codex asks again after they change) cannot be read from files: if no Codex event \
             has arrived, open /hooks"
                .to_owned(),
        );
    }
    let Some(ws) = workspace else { return };
    let project_trusted = doc
        .get("projects")
        .and_then(|p| p.as_table_like())
        .is_some_and(|projects| {
            projects.iter().any(|(dir, v)| {
                v.get("trust_level").and_then(|t| t.as_str()) == Some("trusted")
                    && (ws.starts_with(dir) || canonical.starts_with(dir))
            })
        });
    if !project_trusted {
        report.problems.push(Problem {
            what: format!(
                "Codex does not trust the project {} (no trust_level = \"trusted\" in its \
                 config.toml), so it loads its .codex/ disabled",
                ws.display()
            ),
            fix: "start Codex in the project and trust it when it asks, or install with \
                  `rewind init codex --user`"
                .to_owned(),
        });
    }
}
