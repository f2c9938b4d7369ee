//! What `init` tells the person besides what it changed: settings in the same file that keep
//! hooks from running, and each agent's own gate (trust steps, restarts, other files it reads).

use crate::agents::Agent;
use serde_json::Value;

/// Settings in the JSON file rewind just wrote that keep its hooks from running.
pub(super) fn blockers(agent: Agent, text: Option<&str>) -> Vec<String> {
    let Some(root) = text.and_then(|t| serde_json::from_str::<Value>(t).ok()) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    let claude_like = matches!(
        agent,
        Agent::ClaudeCode | Agent::QwenCode | Agent::Continue | Agent::Codex
    );
    if claude_like && root.get("disableAllHooks") == Some(&Value::Bool(true)) {
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

/// Whether the agent reads the workspace's hooks only when started at its top (so a note says
/// so): the three first agents' settings and Copilot CLI's `.github/hooks` ("loaded from your
/// current working directory").
pub(super) fn only_at_top(agent: Agent) -> bool {
    matches!(
        agent,
        Agent::ClaudeCode | Agent::GeminiCli | Agent::QwenCode | Agent::Copilot
    )
}

pub(super) fn hint(agent: Agent) -> &'static str {
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
        Agent::Codex => {
            "Codex runs a hook only once you have trusted it, and skips an untrusted one without \
             a word: start Codex, open /hooks and trust rewind's (again whenever they change, \
             e.g. after rewind moved). It reads a project's .codex/ only when the project is \
             trusted. A headless `codex exec` runs them unreviewed with \
             --dangerously-bypass-hook-trust"
        }
        Agent::Copilot => {
            "Copilot CLI reads .github/hooks/*.json from the directory it starts in; the cloud \
             agent only from the default branch. The VS Code Copilot agent reads \
             .claude/settings.json instead: for it, run `rewind init claude-code`"
        }
        Agent::Cursor => {
            "Cursor reloads hooks.json when it changes. With third-party configs on it also runs \
             .claude/settings.json's hooks: keep one of the two installs, not both, or rewind \
             runs twice for each event"
        }
        Agent::Continue => {
            "cn reads hooks when it starts. It also runs .claude/settings.json's hooks: keep one \
             of `rewind init continue` and `rewind init claude-code` in a workspace, not both"
        }
        Agent::OpenCode | Agent::Kilo => {
            "the plugin is loaded when the agent starts: restart it. It runs the rewind binary \
             named in it; run this again after moving rewind"
        }
        Agent::Windsurf => {
            "Windsurf merges the system's, the user's (~/.codeium/windsurf/hooks.json) and the \
             workspace's .windsurf/hooks.json, running all of them"
        }
        Agent::Cline => {
            "Cline runs each file in its hooks directory as a program (hooks are on by default, \
             its hooksEnabled setting); keep them executable"
        }
    }
}
