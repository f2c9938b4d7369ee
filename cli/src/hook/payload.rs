//! The one front door: every Claude-like dialect's payload read into one `Payload`. Hosts
//! spell the same fields differently, and several run a hook installed for another agent (VS
//! Code's Copilot agent and Continue's `cn` run `.claude/settings.json`'s, Cursor does when
//! third-party hooks are on), so each field is taken from whichever spelling the payload
//! has, and `Host` says which host sent it (what its tool names and events mean):
//!
//! - session: `session_id`, `sessionId` (VS Code, Copilot camelCase), `conversation_id`
//!   (Cursor), `trajectory_id` (Windsurf), `taskId` (Cline), `sessionID` (OpenCode);
//! - event: `hook_event_name`, `hookEventName`, `hookName` (Cline), `agent_action_name`
//!   (Windsurf);
//! - tool: `tool_name`, `toolName`, `tool`; its input `tool_input`, `toolArgs` (Copilot, a
//!   JSON string), `toolInput`, `args`, Cline's `preToolUse.parameters`, Windsurf's
//!   `tool_info`; the turn: `turn_id` (Codex), `generation_id` (Cursor).
//!
//! Sources: ../shared/reference/agent-integrations.md, sections 2.1, 2.4 and 3.

use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

/// Who sent the payload, as far as it says: what its tool names and event names mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Host {
    /// Nothing says otherwise: the agent the hook was installed for.
    Installed,
    /// VS Code's Copilot agent (`hookEventName`, its own tool names, `filePath`).
    VsCode,
    /// Copilot CLI's camelCase format (`toolArgs`).
    CopilotCli,
    Cursor,
    Codex,
    Windsurf,
    Cline,
    OpenCode,
    /// Kiro CLI: no session id, `fs_write` / `execute_bash`.
    Kiro,
}

impl Host {
    /// The name `hook.log` and `rewind doctor` use.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Installed => "installed",
            Self::VsCode => "vscode",
            Self::CopilotCli => "copilot-cli",
            Self::Cursor => "cursor",
            Self::Codex => "codex",
            Self::Windsurf => "windsurf",
            Self::Cline => "cline",
            Self::OpenCode => "opencode",
            Self::Kiro => "kiro",
        }
    }
}

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
    /// Codex's `turn_id`, Cursor's `generation_id`.
    #[serde(skip)]
    pub(super) turn_id: Option<String>,
    #[serde(skip)]
    pub(super) host: Option<Host>,
    /// The whole payload, for a tool the event implies (Cursor's shell events carry `command`
    /// at the top level).
    #[serde(skip)]
    pub(super) raw: Value,
}

/// The payload `raw` in any dialect; fails only when it is not a JSON object of the known
/// fields' types.
pub(super) fn parse(raw: &[u8]) -> Result<Payload, String> {
    let v: Value =
        serde_json::from_slice(raw).map_err(|e| format!("the payload is not JSON: {e}"))?;
    let mut p: Payload = Payload::deserialize(&v)
        .map_err(|e| format!("the payload is not an agent's hook event: {e}"))?;
    fill(&mut p, &v);
    p.host = Some(host(&v, &p));
    p.raw = v;
    Ok(p)
}

fn text(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k)?.as_str().filter(|s| !s.is_empty()))
        .map(str::to_owned)
}

/// The first string of a list field (`workspace_roots`).
fn first_of(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k)?.as_array()?.first()?.as_str())
        .map(str::to_owned)
}

/// Cline nests an event's fields under the event (`preToolUse{toolName, parameters}`).
fn nested(v: &Value) -> impl Iterator<Item = &Value> {
    [
        "preToolUse",
        "postToolUse",
        "userPromptSubmit",
        "taskStart",
        "taskComplete",
    ]
    .into_iter()
    .filter_map(|k| v.get(k))
}

/// The other dialects' spellings, where the canonical field is missing.
fn fill(p: &mut Payload, v: &Value) {
    let or = |field: &mut Option<String>, found: Option<String>| {
        if field.is_none() {
            *field = found;
        }
    };
    let sessions = [
        "sessionId",
        "conversation_id",
        "trajectory_id",
        "taskId",
        "sessionID",
    ];
    or(&mut p.session_id, text(v, &sessions));
    let events = ["hookEventName", "hookName", "agent_action_name"];
    or(&mut p.hook_event_name, text(v, &events));
    or(&mut p.tool_name, text(v, &["toolName", "tool"]));
    or(
        &mut p.tool_use_id,
        text(v, &["toolUseId", "tool_call_id", "callID", "execution_id"]),
    );
    p.turn_id = text(v, &["turn_id", "generation_id"]);
    let info = v.get("tool_info");
    if p.cwd.is_none() {
        p.cwd = text(v, &["workingDirectory", "working_dir"])
            .or_else(|| first_of(v, &["workspace_roots", "workspaceRoots"]))
            .or_else(|| info.and_then(|i| text(i, &["cwd"])))
            .map(PathBuf::from);
    }
    for inner in nested(v) {
        or(&mut p.tool_name, text(inner, &["toolName", "tool_name"]));
        or(&mut p.prompt, text(inner, &["prompt"]));
        if p.tool_input.is_none() {
            p.tool_input = inner.get("parameters").cloned();
        }
    }
    if p.tool_input.is_none() {
        p.tool_input = ["toolArgs", "toolInput", "args"]
            .into_iter()
            .find_map(|k| v.get(k))
            .or(info)
            .cloned();
    }
    // Copilot's camelCase `toolArgs` is JSON in a string.
    if let Some(Value::String(s)) = &p.tool_input
        && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(s)
    {
        p.tool_input = Some(parsed);
    }
    if let Some(i) = info {
        or(&mut p.prompt, text(i, &["user_prompt"]));
        or(&mut p.last_assistant_message, text(i, &["response"]));
    }
}

/// VS Code's Copilot agent's tools, which no other host has (microsoft/vscode-docs@00a75e3
/// docs/agent-customization/hooks.md and the agent's tool ids).
pub(super) const VSCODE_TOOLS: [&str; 10] = [
    "create_file",
    "replace_string_in_file",
    "multi_replace_string_in_file",
    "insert_edit_into_file",
    "edit_notebook_file",
    "editFiles",
    "createFile",
    "run_in_terminal",
    "runTerminalCommand",
    "runInTerminal",
];

/// What the payload says about its host.
fn host(v: &Value, p: &Payload) -> Host {
    let has = |k: &str| v.get(k).is_some();
    let tool = p.tool_name.as_deref().unwrap_or("");
    if has("clineVersion") || has("hookName") {
        Host::Cline
    } else if has("agent_action_name") || has("trajectory_id") {
        Host::Windsurf
    } else if has("cursor_version") || has("conversation_id") || has("generation_id") {
        Host::Cursor
    } else if has("hookEventName") || VSCODE_TOOLS.contains(&tool) {
        Host::VsCode
    } else if has("toolArgs") {
        Host::CopilotCli
    } else if has("turn_id") {
        Host::Codex
    } else if has("sessionID") || has("callID") {
        Host::OpenCode
    } else if p.session_id.is_none() && matches!(tool, "fs_write" | "execute_bash" | "") {
        Host::Kiro
    } else {
        Host::Installed
    }
}
