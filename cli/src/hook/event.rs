//! One hook event as each agent documents it, turned into what rewind does with it. Unknown
//! fields are ignored; an unknown event or tool is `Ignored`, never an error: agents add both
//! over time, and a hook must keep working when they do.
//!
//! Claude Code: `SessionStart`, `UserPromptSubmit` (`prompt`), `PreToolUse` / `PostToolUse`
//! (`tool_name`, `tool_input`, `tool_use_id`), `Stop` (`last_assistant_message`). Gemini CLI:
//! `SessionStart`, `BeforeAgent` (`prompt`), `BeforeTool` / `AfterTool`, `AfterAgent`
//! (`prompt_response`). Qwen Code: Claude's event names with Gemini-style tool names.
//!
//! Quirks of the real payloads: Qwen Code 0.24 sends `UserPromptSubmit` with `prompt: ""`
//! before each tool-result continuation (not a prompt: ignored), and on a resumed session a
//! `prompt` that starts with its `<system-reminder>` while `submitted_prompt` holds what the
//! person typed (preferred). `StopFailure` (Claude Code 2.1, Qwen Code 0.24: `error`,
//! `error_details`, `last_assistant_message`) ends the turn as failed.

use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

/// The agents whose hooks `rewind hook` speaks (their settings tables live with the enum).
pub use crate::agents::Agent;
use crate::agents::Stage;

/// The fields rewind reads; every agent sends more.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Payload {
    #[serde(default)]
    pub(super) session_id: Option<String>,
    #[serde(default)]
    pub(super) cwd: Option<PathBuf>,
    #[serde(default)]
    pub(super) hook_event_name: Option<String>,
    #[serde(default)]
    pub(super) prompt: Option<String>,
    /// Qwen Code: what the person typed, when `prompt` holds more (a resumed session's
    /// `<system-reminder>`).
    #[serde(default)]
    pub(super) submitted_prompt: Option<String>,
    #[serde(default)]
    pub(super) tool_name: Option<String>,
    #[serde(default)]
    pub(super) tool_input: Option<Value>,
    #[serde(default)]
    pub(super) tool_use_id: Option<String>,
    #[serde(default)]
    pub(super) last_assistant_message: Option<String>,
    #[serde(default)]
    pub(super) prompt_response: Option<String>,
    #[serde(default)]
    pub(super) transcript_path: Option<PathBuf>,
    /// Claude Code's Stop: the background work still in flight (`[]`: none).
    #[serde(default)]
    pub(super) background_tasks: Option<Value>,
    /// Claude Code's tool result: an Edit's carries `originalFile`, the file before the edit.
    #[serde(default)]
    pub(super) tool_response: Option<Value>,
    /// `StopFailure`: what went wrong.
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) error_details: Option<String>,
}

impl Payload {
    /// Claude Code's `tool_response.originalFile` (an Edit's file before it): a before-state
    /// when the before event did not run.
    pub(super) fn original_file(&self) -> Option<&str> {
        self.tool_response.as_ref()?.get("originalFile")?.as_str()
    }

    /// `StopFailure`'s `error` (and `error_details`) as text.
    fn error_text(&self) -> Option<String> {
        let error = match self.error.as_ref()? {
            Value::String(s) => s.clone(),
            Value::Null => return None,
            other => other.to_string(),
        };
        Some(match &self.error_details {
            Some(d) if !d.trim().is_empty() => format!("{error}: {d}"),
            _ => error,
        })
    }
}

/// Before or after a tool ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Before,
    After,
}

/// What a tool does to the workspace, as far as rewind cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// It writes these files (paths as the agent gave them: absolute, or relative to `cwd`).
    Files(Vec<String>),
    /// It runs this shell command.
    Shell(String),
}

/// A tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tool {
    pub(super) name: String,
    pub(super) call_id: Option<String>,
    pub(super) action: Action,
}

/// What the event asks of rewind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Event {
    Start,
    Prompt(String),
    Tool(Phase, Tool),
    /// The turn ends: the reply, if the payload has it; `failed` when an error ended it.
    Stop {
        said: Option<String>,
        failed: bool,
    },
    Ignored(String),
}

fn text_field(input: Option<&Value>, key: &str) -> Option<String> {
    input?.get(key)?.as_str().map(str::to_owned)
}

/// The tool's effect, by its documented name and input fields.
fn action(agent: Agent, name: &str, input: Option<&Value>) -> Option<Action> {
    let file = |key: &str| text_field(input, key).map(|p| Action::Files(vec![p]));
    let shell = || text_field(input, "command").map(Action::Shell);
    match (agent, name) {
        (Agent::ClaudeCode, "Write" | "Edit" | "MultiEdit") => file("file_path"),
        (Agent::ClaudeCode, "NotebookEdit") => file("notebook_path"),
        (Agent::ClaudeCode, "Bash" | "PowerShell") => shell(),
        (Agent::GeminiCli, "write_file" | "replace") => file("file_path"),
        (Agent::GeminiCli, "run_shell_command") => shell(),
        (Agent::QwenCode, "write_file" | "edit" | "Write" | "Edit") => file("file_path"),
        (Agent::QwenCode, "notebook_edit" | "NotebookEdit") => file("notebook_path"),
        (Agent::QwenCode, "run_shell_command" | "Bash") => shell(),
        _ => None,
    }
}

/// What `p` means for `agent`; `event` (from `--event`) wins over the payload's own name.
pub(super) fn event(agent: Agent, p: &Payload, event: Option<&str>) -> Event {
    let Some(name) = event.or(p.hook_event_name.as_deref()) else {
        return Event::Ignored("the payload names no event (pass --event)".into());
    };
    let tool = |phase| {
        let Some(tool) = p.tool_name.as_deref() else {
            return Event::Ignored(format!("{name} without tool_name"));
        };
        match action(agent, tool, p.tool_input.as_ref()) {
            Some(action) => Event::Tool(
                phase,
                Tool {
                    name: tool.to_owned(),
                    call_id: p.tool_use_id.clone(),
                    action,
                },
            ),
            None => Event::Ignored(format!("tool {tool} changes no files")),
        }
    };
    let typed = p.submitted_prompt.as_ref().filter(|t| !t.trim().is_empty());
    let prompt = || match typed.or(p.prompt.as_ref()) {
        // Qwen Code's continuation after a tool result: no prompt, no new turn.
        Some(text) if text.trim().is_empty() => {
            Event::Ignored(format!("{name} with an empty prompt"))
        }
        Some(text) => Event::Prompt(text.clone()),
        None => Event::Ignored(format!("{name} without prompt")),
    };
    let said = || {
        p.last_assistant_message
            .clone()
            .or_else(|| p.prompt_response.clone())
    };
    // The agents table (what `rewind init` installs) says what each event name means.
    match agent.stage_of(name) {
        Some(Stage::SessionStart) => Event::Start,
        Some(Stage::Prompt) => prompt(),
        Some(Stage::BeforeTool) => tool(Phase::Before),
        // A failed tool (Claude Code's and Qwen Code's PostToolUseFailure) may still have
        // written part of its change.
        Some(Stage::AfterTool) => tool(Phase::After),
        // Claude Code and Qwen Code send the reply as `last_assistant_message`, Gemini CLI as
        // `prompt_response`.
        Some(Stage::TurnEnd) => Event::Stop {
            said: said(),
            failed: false,
        },
        // The error is what the turn ended with (shown as an error reply); without one, the
        // partial reply.
        Some(Stage::TurnFailed) => Event::Stop {
            said: p.error_text().or_else(said),
            failed: true,
        },
        None => Event::Ignored(format!("event {name} is not one rewind records")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event `rewind init` installs, with every tool its matcher names, means to the hook
    /// what the agents table says it means.
    #[test]
    fn the_hook_records_every_event_and_tool_init_installs() {
        let input = serde_json::json!({ "file_path": "a", "notebook_path": "a", "command": "ls" });
        for agent in [Agent::ClaudeCode, Agent::GeminiCli, Agent::QwenCode] {
            for e in agent.events() {
                let tools: Vec<Option<&str>> = match e.matcher {
                    Some(m) => m.split('|').map(Some).collect(),
                    None => vec![None],
                };
                for tool in tools {
                    let p = Payload {
                        hook_event_name: Some(e.name.to_owned()),
                        prompt: Some("p".to_owned()),
                        tool_name: tool.map(str::to_owned),
                        tool_input: Some(input.clone()),
                        ..Payload::default()
                    };
                    let ev = event(agent, &p, None);
                    let ok = match e.stage {
                        Stage::SessionStart => matches!(ev, Event::Start),
                        Stage::Prompt => matches!(ev, Event::Prompt(_)),
                        Stage::BeforeTool => matches!(ev, Event::Tool(Phase::Before, _)),
                        Stage::AfterTool => matches!(ev, Event::Tool(Phase::After, _)),
                        Stage::TurnEnd => matches!(ev, Event::Stop { failed: false, .. }),
                        Stage::TurnFailed => matches!(ev, Event::Stop { failed: true, .. }),
                    };
                    assert!(ok, "{agent} {} {tool:?}: {ev:?}", e.name);
                }
            }
        }
    }
}
