//! Where each agent reads its hooks from, in a workspace and for the user, and in which format.
//! Sources: each agent's hook documentation, collected with commits in
//! `../shared/reference/agent-integrations.md`.

use super::flat::Flat;
use crate::agents::Agent;
use crate::commands::{CliError, Context};
use rewind_core::ErrorKind;
use std::path::{Path, PathBuf};

/// How an agent's hooks are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// Claude Code's `hooks.<Event>: [{matcher, hooks: [{type, command}]}]` in a JSON file
    /// (Claude Code, Gemini CLI, Qwen Code, Continue's `cn`).
    Groups,
    /// Codex: the same groups in `hooks.json`, or in `config.toml`'s `[hooks]` when that file
    /// already has hooks of its own.
    Codex,
    /// Handlers listed directly under each event (Cursor, Copilot, Windsurf).
    Flat(Flat),
    /// One executable per event in a directory (Cline).
    Scripts,
    /// rewind's plugin file (OpenCode, Kilo Code).
    Plugin,
}

pub(super) fn format(agent: Agent) -> Format {
    match agent {
        Agent::ClaudeCode | Agent::GeminiCli | Agent::QwenCode | Agent::Continue => Format::Groups,
        Agent::Codex => Format::Codex,
        Agent::Cursor => Format::Flat(Flat::Cursor),
        Agent::Copilot => Format::Flat(Flat::Copilot),
        Agent::Windsurf => Format::Flat(Flat::Windsurf),
        Agent::Cline => Format::Scripts,
        Agent::OpenCode | Agent::Kilo => Format::Plugin,
    }
}

/// The file rewind's hooks go in (for Cline the hooks directory; for Codex `hooks.json`, with
/// `config.toml` beside it), relative to the workspace or to the user's directory for it.
fn relative(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode | Agent::GeminiCli | Agent::QwenCode | Agent::Continue => "settings.json",
        Agent::Codex | Agent::Cursor | Agent::Windsurf => "hooks.json",
        Agent::Copilot => "hooks/rewind.json",
        Agent::OpenCode | Agent::Kilo => "plugins/rewind.js",
        Agent::Cline => "hooks",
    }
}

/// The user's directory for the agent, under `home`: `$CLAUDE_CONFIG_DIR` and `$CODEX_HOME`
/// when set (Claude Code and Codex keep their user files there), `$XDG_CONFIG_HOME` for
/// OpenCode and Kilo (they follow it).
fn user_dir(agent: Agent, home: &Path) -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let config = || var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
    match agent {
        Agent::ClaudeCode => var("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude")),
        Agent::Codex => var("CODEX_HOME").unwrap_or_else(|| home.join(".codex")),
        Agent::Copilot => home.join(".copilot"),
        Agent::OpenCode => config().join("opencode"),
        Agent::Kilo => config().join("kilo"),
        Agent::Windsurf => home.join(".codeium/windsurf"),
        // The VS Code extension's global hooks (cline/cline@21cb8d2
        // sdk/packages/shared/src/storage/paths.ts); it is `hooks` itself, not a parent.
        Agent::Cline => home.join("Documents/Cline"),
        Agent::GeminiCli | Agent::QwenCode | Agent::Cursor | Agent::Continue => {
            home.join(agent.config_dir())
        }
    }
}

/// The absolute path of the file (Cline: the directory) rewind's hooks go in.
pub(super) fn location(ctx: &Context, agent: Agent, user: bool) -> Result<PathBuf, CliError> {
    let dir =
        if !user {
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
        } else {
            let home = std::env::var_os("HOME").filter(|v| !v.is_empty()).ok_or_else(|| {
            CliError::new(
                ErrorKind::InvalidInput,
                format!(
                    "HOME is not set, so --user cannot find {}'s user settings; set HOME or \
                     leave out --user to change the workspace's settings",
                    agent.display_name()
                ),
            )
        })?;
            user_dir(agent, Path::new(&home))
        };
    let mut rel = relative(agent);
    if user && agent == Agent::Cline {
        rel = "Hooks";
    }
    let path = dir.join(rel);
    std::path::absolute(&path)
        .map_err(|e| CliError::host(format!("cannot resolve {}: {e}", path.display())))
}
