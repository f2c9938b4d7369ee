//! The coding agents rewind hooks into, and what each one calls things: where its settings
//! live, which hook events rewind listens to and which tools they match. `rewind init` writes
//! these tables into the agent's settings; `rewind hook` reads the events they name.
//!
//! Event names and matcher syntax follow each agent's hook documentation: Claude Code's
//! `hooks.md`, Gemini CLI's `docs/hooks/reference.md`, Qwen Code's `features/hooks.md`.

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
    /// The group's `matcher` (tool names); `None` for lifecycle events, which take none.
    pub matcher: Option<&'static str>,
    /// What the event means.
    pub stage: Stage,
}

const fn event(name: &'static str, stage: Stage) -> HookEvent {
    HookEvent {
        name,
        matcher: None,
        stage,
    }
}

const fn tool_event(name: &'static str, matcher: &'static str, stage: Stage) -> HookEvent {
    HookEvent {
        name,
        matcher: Some(matcher),
        stage,
    }
}

/// Claude Code: a matcher of letters and `|` is a list of exact tool names. `MultiEdit` is
/// gone from current releases but older ones still send it; `PowerShell` is `Bash` on Windows.
const CLAUDE_TOOLS: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell";
/// Gemini CLI: tool matchers are unanchored regular expressions.
const GEMINI_TOOLS: &str = "write_file|replace|run_shell_command";
/// Qwen Code: a `|` list of runtime tool ids, matched entry by entry.
const QWEN_TOOLS: &str = "write_file|edit|notebook_edit|run_shell_command";

const CLAUDE_EVENTS: [HookEvent; 7] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", CLAUDE_TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", CLAUDE_TOOLS, Stage::AfterTool),
    tool_event("PostToolUseFailure", CLAUDE_TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
    event("StopFailure", Stage::TurnFailed),
];

const GEMINI_EVENTS: [HookEvent; 5] = [
    event("SessionStart", Stage::SessionStart),
    event("BeforeAgent", Stage::Prompt),
    tool_event("BeforeTool", GEMINI_TOOLS, Stage::BeforeTool),
    tool_event("AfterTool", GEMINI_TOOLS, Stage::AfterTool),
    event("AfterAgent", Stage::TurnEnd),
];

const QWEN_EVENTS: [HookEvent; 7] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", QWEN_TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", QWEN_TOOLS, Stage::AfterTool),
    tool_event("PostToolUseFailure", QWEN_TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
    event("StopFailure", Stage::TurnFailed),
];

impl Agent {
    /// Every agent, in the order help lists them.
    pub const ALL: [Self; 3] = [Self::ClaudeCode, Self::GeminiCli, Self::QwenCode];

    /// The command-line name: `claude-code`, `gemini-cli`, `qwen-code`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::GeminiCli => "gemini-cli",
            Self::QwenCode => "qwen-code",
        }
    }

    /// The name people know it by.
    pub fn display_name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "Claude Code",
            Self::GeminiCli => "Gemini CLI",
            Self::QwenCode => "Qwen Code",
        }
    }

    /// The agent's directory in a project and in the home directory: `.claude`, `.gemini`,
    /// `.qwen`. Its settings are `settings.json` in there.
    pub fn config_dir(self) -> &'static str {
        match self {
            Self::ClaudeCode => ".claude",
            Self::GeminiCli => ".gemini",
            Self::QwenCode => ".qwen",
        }
    }

    /// The environment variable the agent sets for its hooks to the directory it works in
    /// (the one it was started in): Claude Code's is documented in `hooks.md`; Gemini CLI
    /// 0.61 sets `GEMINI_PROJECT_DIR` (and `GEMINI_CWD`) and Qwen Code 0.24 `QWEN_PROJECT_DIR`
    /// (and Claude's and Gemini's names) to the payload's `cwd` (their hook runners' `env`).
    pub fn project_dir_var(self) -> &'static str {
        match self {
            Self::ClaudeCode => "CLAUDE_PROJECT_DIR",
            Self::GeminiCli => "GEMINI_PROJECT_DIR",
            Self::QwenCode => "QWEN_PROJECT_DIR",
        }
    }

    /// The hook events rewind installs, in the order a turn meets them.
    pub fn events(self) -> &'static [HookEvent] {
        match self {
            Self::ClaudeCode => &CLAUDE_EVENTS,
            Self::GeminiCli => &GEMINI_EVENTS,
            Self::QwenCode => &QWEN_EVENTS,
        }
    }

    /// What the agent's event `name` (a payload's `hook_event_name`) means to rewind, if it is
    /// one rewind installs.
    pub fn stage_of(self, name: &str) -> Option<Stage> {
        self.events()
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.stage)
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
            Stage::SessionStart,
            Stage::Prompt,
            Stage::BeforeTool,
            Stage::AfterTool,
            Stage::TurnEnd,
        ];
        for a in Agent::ALL {
            // Gemini CLI has no failure event: its missing AfterAgent is found at the next
            // BeforeAgent instead.
            assert_eq!(
                a.events().iter().any(|e| e.stage == Stage::TurnFailed),
                a != Agent::GeminiCli
            );
            for stage in stages {
                let found: Vec<_> = a.events().iter().filter(|e| e.stage == stage).collect();
                assert!(!found.is_empty(), "{a} {stage:?}");
                for e in found {
                    assert_eq!(a.stage_of(e.name), Some(stage));
                    let tool_stage = matches!(stage, Stage::BeforeTool | Stage::AfterTool);
                    assert_eq!(e.matcher.is_some(), tool_stage, "{a} {}", e.name);
                }
            }
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
    }
}
