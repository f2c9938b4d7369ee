//! One hook event as each agent documents it (read by the front door, `payload`), turned into
//! what rewind does with it. Unknown fields are ignored; an unknown event or tool is
//! `Ignored`, never an error: agents add both over time, and a hook must keep working when
//! they do. An event's name is looked up in the installed agent's table, then in that of the
//! host that sent it; a tool's in `tools`.
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

use super::payload::Host;
pub(super) use super::payload::Payload;
use serde_json::Value;

/// The agents whose hooks `rewind hook` speaks (their settings tables live with the enum).
pub use crate::agents::Agent;
use crate::agents::{HookEvent, KIRO_EVENTS, Stage};

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

pub(super) use super::tools::Action;

/// A tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tool {
    pub(super) name: String,
    pub(super) call_id: Option<String>,
    pub(super) action: Action,
    /// How it was read, for `hook.log` (a patch that could not be read).
    pub(super) note: Option<String>,
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
    /// Not one rewind records: nothing to do, nothing to tell.
    Ignored(String),
    /// One rewind should record but cannot read (no event name, a file tool without a path):
    /// told in `hook.log`.
    Unreadable(String),
}

/// The event named `name`: the installed agent's, else that of the host that sent it (a
/// Claude Code install run by Cursor, a Kiro payload).
fn event_named(agent: Agent, host: Host, name: &str) -> Option<&'static HookEvent> {
    let hosts = match host {
        Host::Installed => None,
        Host::VsCode | Host::CopilotCli => Some(Agent::Copilot),
        Host::Cursor => Some(Agent::Cursor),
        Host::Codex => Some(Agent::Codex),
        Host::Windsurf => Some(Agent::Windsurf),
        Host::Cline => Some(Agent::Cline),
        Host::OpenCode => Some(Agent::OpenCode),
        Host::Kiro => {
            return agent
                .event_named(name)
                .or_else(|| KIRO_EVENTS.iter().find(|e| e.name == name));
        }
    };
    agent
        .event_named(name)
        .or_else(|| hosts.and_then(|h| h.event_named(name)))
}

/// What `p` means for `agent`; `event` (from `--event`) wins over the payload's own name.
pub(super) fn event(agent: Agent, p: &Payload, event: Option<&str>) -> Event {
    let Some(name) = event.or(p.hook_event_name.as_deref()) else {
        return Event::Unreadable("the payload names no event (pass --event)".into());
    };
    let host = p.host.unwrap_or(Host::Installed);
    let found = event_named(agent, host, name);
    let implied = found.and_then(|e| e.implied_tool);
    let tool = |phase| {
        let Some(tool) = p.tool_name.as_deref().or(implied) else {
            return Event::Ignored(format!("{name} without tool_name"));
        };
        // An event about one kind of action (Cursor's shell events) has its fields at the top.
        let input = p.tool_input.as_ref().or(implied.map(|_| &p.raw));
        match super::tools::action(agent, host, tool, input) {
            Ok(Some((action, note))) => Event::Tool(
                phase,
                Tool {
                    name: tool.to_owned(),
                    call_id: p.tool_use_id.clone(),
                    action,
                    note,
                },
            ),
            Ok(None) => Event::Ignored(format!("tool {tool} changes no files")),
            Err(why) => Event::Unreadable(why),
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
    match found.map(|e| e.stage) {
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

    /// Every event `rewind init` installs, with every tool its matcher names (or its agent's
    /// tools, where events take no matcher), means to the hook what the agents table says.
    #[test]
    fn the_hook_records_every_event_and_tool_init_installs() {
        let input = serde_json::json!({
            "file_path": "a", "notebook_path": "a", "command": "ls", "command_line": "ls",
            "commands": "[\"ls\"]",
            "patchText": "*** Begin Patch\n*** Delete File: a\n*** End Patch",
            "input": "*** Begin Patch\n*** Delete File: a\n*** End Patch",
        });
        for agent in Agent::ALL {
            for e in agent.events() {
                let tool_stage = matches!(e.stage, Stage::BeforeTool | Stage::AfterTool);
                let tools: Vec<Option<&str>> = match (e.matcher, e.implied_tool) {
                    (Some(m), _) => m.split('|').map(Some).collect(),
                    (None, Some(_)) => vec![None],
                    (None, None) if tool_stage => super::super::tools::names(agent)
                        .into_iter()
                        .map(Some)
                        .collect(),
                    (None, None) => vec![None],
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
