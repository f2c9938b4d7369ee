//! GitHub Copilot CLI and cloud agent (github/docs@927566b
//! content/copilot/reference/copilot-cli-reference/cli-hooks-reference.md). Installed under the
//! PascalCase event names, which get the "VS Code compatible" payload (`hook_event_name`,
//! `session_id`, `tool_name`, `tool_input`): Claude Code's parser applies. The camelCase names
//! (`preToolUse`, `agentStop`, … with `sessionId`, `toolName`, `toolArgs` as a JSON string) are
//! understood too. Tools: `edit`, `create` (`path`), `bash`, `powershell` (`command`).

use super::{HookEvent, Stage, event, tool_event};

const TOOLS: &str = "edit|create|bash|powershell";

pub(super) const EVENTS: [HookEvent; 7] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", TOOLS, Stage::AfterTool),
    tool_event("PostToolUseFailure", TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
    event("StopFailure", Stage::TurnFailed),
];

/// The camelCase format's names, sent when a hook is configured under them.
pub(super) const ALSO: [HookEvent; 7] = [
    event("sessionStart", Stage::SessionStart),
    event("userPromptSubmitted", Stage::Prompt),
    tool_event("preToolUse", TOOLS, Stage::BeforeTool),
    tool_event("postToolUse", TOOLS, Stage::AfterTool),
    tool_event("postToolUseFailure", TOOLS, Stage::AfterTool),
    event("agentStop", Stage::TurnEnd),
    event("errorOccurred", Stage::TurnFailed),
];
