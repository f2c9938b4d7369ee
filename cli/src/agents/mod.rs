//! The coding agents rewind hooks into, and what each one calls things: which hook events
//! rewind listens to, what each means, and which tools they match. `rewind init` writes these
//! tables into the agent's settings; `rewind hook` reads the events they name. One file per
//! agent family, each citing the source its names come from
//! (`../shared/reference/agent-integrations.md` collects them).

mod claude;
mod cline;
mod codex;
mod continue_cn;
mod copilot;
mod cursor;
mod gemini;
mod kiro;
mod opencode;
mod qwen;
mod windsurf;

use std::fmt;

/// A coding agent with a hook protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Agent {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// Google's Gemini CLI.
    GeminiCli,
    /// Alibaba's Qwen Code.
    QwenCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// GitHub Copilot: the CLI and the cloud agent (the VS Code agent runs Claude Code's
    /// install, in a dialect of its own).
    Copilot,
    /// Cursor's agent (its `hooks.json`).
    Cursor,
    /// Continue's `cn` CLI.
    #[value(name = "continue")]
    Continue,
    /// OpenCode, through rewind's plugin.
    #[value(name = "opencode")]
    OpenCode,
    /// Kilo Code, OpenCode's fork, through the same plugin.
    Kilo,
    /// Windsurf's Cascade (and Devin's `.devin/hooks.json`).
    Windsurf,
    /// Cline (VS Code, JetBrains, CLI, SDK).
    Cline,
}

/// What a hook event means to rewind, whatever the agent calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// A session started, resumed or was cleared.
    SessionStart,
    /// The person submitted a prompt: a turn begins.
    Prompt,
    /// A tool that may change files is about to run.
    BeforeTool,
    /// That tool ran (Claude Code and Qwen Code send a failed one as an event of its own:
    /// a failed shell command may still have changed files).
    AfterTool,
    /// The agent finished its reply: the turn ends.
    TurnEnd,
    /// A model or API error ended the turn instead (Claude Code's and Qwen Code's
    /// `StopFailure`): the turn ends as failed.
    TurnFailed,
}

/// One hook event rewind installs: the agent's name for it and the matcher its group gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookEvent {
    /// The agent's event name, the key under `hooks` in its settings.
    pub name: &'static str,
    /// The group's `matcher` (tool names); `None` for lifecycle events, which take none, and
    /// for agents whose tool events have no matcher (Cline, Windsurf, the OpenCode plugin).
    pub matcher: Option<&'static str>,
    /// What the event means.
    pub stage: Stage,
    /// The tool the event is about when its payload names none (Cursor's shell events,
    /// Windsurf's `pre_write_code`): a name in the agent's tool table.
    pub implied_tool: Option<&'static str>,
}

const fn event(name: &'static str, stage: Stage) -> HookEvent {
    HookEvent {
        name,
        matcher: None,
        stage,
        implied_tool: None,
    }
}

const fn tool_event(name: &'static str, matcher: &'static str, stage: Stage) -> HookEvent {
    HookEvent {
        name,
        matcher: Some(matcher),
        stage,
        implied_tool: None,
    }
}

const fn implied_event(name: &'static str, tool: &'static str, stage: Stage) -> HookEvent {
    HookEvent {
        name,
        matcher: None,
        stage,
        implied_tool: Some(tool),
    }
}

/// Kiro CLI's events: a host that runs an installed hook without being an agent rewind
/// installs for (see `kiro`).
pub static KIRO_EVENTS: &[HookEvent] = &kiro::EVENTS;

impl Agent {
    /// Every agent, in the order help lists them.
    pub const ALL: [Self; 11] = [
        Self::ClaudeCode,
        Self::GeminiCli,
        Self::QwenCode,
        Self::Codex,
        Self::Copilot,
        Self::Cursor,
        Self::Continue,
        Self::OpenCode,
        Self::Kilo,
        Self::Windsurf,
        Self::Cline,
    ];

    /// The command-line name: `claude-code`, `gemini-cli`, `qwen-code`, `codex`, `copilot`,
    /// `cursor`, `continue`, `opencode`, `kilo`, `windsurf`, `cline`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::GeminiCli => "gemini-cli",
            Self::QwenCode => "qwen-code",
            Self::Codex => "codex",
            Self::Copilot => "copilot",
            Self::Cursor => "cursor",
            Self::Continue => "continue",
            Self::OpenCode => "opencode",
            Self::Kilo => "kilo",
            Self::Windsurf => "windsurf",
            Self::Cline => "cline",
        }
    }

    /// The name people know it by.
    pub fn display_name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "Claude Code",
            Self::GeminiCli => "Gemini CLI",
            Self::QwenCode => "Qwen Code",
            Self::Codex => "Codex CLI",
            Self::Copilot => "GitHub Copilot",
            Self::Cursor => "Cursor",
            Self::Continue => "Continue (cn)",
            Self::OpenCode => "OpenCode",
            Self::Kilo => "Kilo Code",
            Self::Windsurf => "Windsurf",
            Self::Cline => "Cline",
        }
    }

    /// The agent's directory in a project and in the home directory: `.claude`, `.gemini`,
    /// `.qwen`, … (for the first three their settings are `settings.json` in there; `rewind
    /// init` knows the others' files).
    pub fn config_dir(self) -> &'static str {
        match self {
            Self::ClaudeCode => ".claude",
            Self::GeminiCli => ".gemini",
            Self::QwenCode => ".qwen",
            Self::Codex => ".codex",
            Self::Copilot => ".github",
            Self::Cursor => ".cursor",
            Self::Continue => ".continue",
            Self::OpenCode => ".opencode",
            Self::Kilo => ".kilo",
            Self::Windsurf => ".windsurf",
            Self::Cline => ".clinerules",
        }
    }

    /// The environment variable the agent sets for its hooks to the directory it works in
    /// (the one it was started in), when it has one: Claude Code's is documented in
    /// `hooks.md`; Gemini CLI 0.61 sets `GEMINI_PROJECT_DIR` (and `GEMINI_CWD`) and Qwen Code
    /// 0.24 `QWEN_PROJECT_DIR` (and Claude's and Gemini's names) to the payload's `cwd` (their
    /// hook runners' `env`); Cursor documents `CURSOR_PROJECT_DIR`; `cn` sets Claude's. The
    /// others say it in the payload (`cwd`, `workspace_roots`, `workspaceRoots`).
    pub fn project_dir_var(self) -> Option<&'static str> {
        match self {
            Self::ClaudeCode | Self::Continue => Some("CLAUDE_PROJECT_DIR"),
            Self::GeminiCli => Some("GEMINI_PROJECT_DIR"),
            Self::QwenCode => Some("QWEN_PROJECT_DIR"),
            Self::Cursor => Some("CURSOR_PROJECT_DIR"),
            Self::Codex
            | Self::Copilot
            | Self::OpenCode
            | Self::Kilo
            | Self::Windsurf
            | Self::Cline => None,
        }
    }

    /// The hook events rewind installs, in the order a turn meets them.
    pub fn events(self) -> &'static [HookEvent] {
        match self {
            Self::ClaudeCode => &claude::EVENTS,
            Self::GeminiCli => &gemini::EVENTS,
            Self::QwenCode => &qwen::EVENTS,
            Self::Codex => &codex::EVENTS,
            Self::Copilot => &copilot::EVENTS,
            Self::Cursor => &cursor::EVENTS,
            Self::Continue => &continue_cn::EVENTS,
            Self::OpenCode | Self::Kilo => &opencode::EVENTS,
            Self::Windsurf => &windsurf::EVENTS,
            Self::Cline => &cline::EVENTS,
        }
    }

    /// Events the agent may also send under other names (Copilot's camelCase format, the
    /// OpenCode V2 plugin API): understood, not installed.
    pub fn also_events(self) -> &'static [HookEvent] {
        match self {
            Self::Copilot => &copilot::ALSO,
            Self::OpenCode | Self::Kilo => &opencode::ALSO,
            _ => &[],
        }
    }

    /// The event the agent calls `name` (a payload's `hook_event_name`), if rewind listens to
    /// it: an installed one or one of `also_events`.
    pub fn event_named(self, name: &str) -> Option<&'static HookEvent> {
        self.events()
            .iter()
            .chain(self.also_events())
            .find(|e| e.name == name)
    }

    /// What the agent's event `name` (a payload's `hook_event_name`) means to rewind, if it is
    /// one rewind listens to.
    pub fn stage_of(self, name: &str) -> Option<Stage> {
        self.event_named(name).map(|e| e.stage)
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Agent {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|a| a.as_str()).collect();
                format!("unknown agent {s:?}; expected one of {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn names_round_trip_and_match_clap() {
        for a in Agent::ALL {
            assert_eq!(a.as_str().parse::<Agent>(), Ok(a));
            let value = a.to_possible_value().expect("not skipped");
            assert_eq!(value.get_name(), a.as_str());
        }
        assert!("claude".parse::<Agent>().is_err());
    }

    #[test]
    fn every_stage_has_an_event_and_only_tool_events_match_tools() {
        let stages = [
            Stage::Prompt,
            Stage::BeforeTool,
            Stage::AfterTool,
            Stage::TurnEnd,
        ];
        for a in Agent::ALL {
            for stage in stages {
                let found: Vec<_> = a.events().iter().filter(|e| e.stage == stage).collect();
                assert!(!found.is_empty(), "{a} {stage:?}");
            }
            // Windsurf has no session-start event: its first event opens the session.
            assert_eq!(
                a.events().iter().any(|e| e.stage == Stage::SessionStart),
                a != Agent::Windsurf
            );
            for e in a.events().iter().chain(a.also_events()) {
                assert_eq!(a.stage_of(e.name), Some(e.stage), "{a} {}", e.name);
                let tool_stage = matches!(e.stage, Stage::BeforeTool | Stage::AfterTool);
                assert!(e.matcher.is_none() || tool_stage, "{a} {}", e.name);
                assert!(e.implied_tool.is_none() || tool_stage, "{a} {}", e.name);
            }
        }
        // The first three are as they were.
        for a in [Agent::ClaudeCode, Agent::QwenCode, Agent::GeminiCli] {
            for e in a.events() {
                let tool_stage = matches!(e.stage, Stage::BeforeTool | Stage::AfterTool);
                assert_eq!(e.matcher.is_some(), tool_stage, "{a} {}", e.name);
            }
            assert_eq!(
                a.events().iter().any(|e| e.stage == Stage::TurnFailed),
                a != Agent::GeminiCli
            );
        }
        assert_eq!(
            Agent::ClaudeCode.stage_of("PostToolUseFailure"),
            Some(Stage::AfterTool)
        );
        assert_eq!(
            Agent::GeminiCli.stage_of("AfterAgent"),
            Some(Stage::TurnEnd)
        );
        assert_eq!(Agent::GeminiCli.stage_of("Stop"), None);
        assert_eq!(Agent::Copilot.stage_of("agentStop"), Some(Stage::TurnEnd));
        assert_eq!(Agent::Codex.stage_of("PostToolUseFailure"), None);
        assert_eq!(
            Agent::Cursor
                .event_named("beforeShellExecution")
                .and_then(|e| e.implied_tool),
            Some("Shell")
        );
    }
}
