//! Cursor's `hooks.json` v1 events (https://cursor.com/docs/agent/hooks; typed mirror
//! johnlindquist/cursor-hooks@3dd9f6f src/types.ts). Session = `conversation_id`, turn =
//! `generation_id`. File tools come through `preToolUse` / `postToolUse` (`Write`,
//! `StrReplace`, `Delete`, `EditNotebook`, with `tool_input.file_path`); shell commands through
//! their own events (`command`, `cwd` at the top level), so the tool events do not match
//! `Shell` (it would be bracketed twice). `afterFileEdit` (no before event) is a fallback. Tab
//! completions (`afterTabFileEdit`) are not agent turns: not listened to.

use super::{HookEvent, Stage, event, implied_event, tool_event};

const TOOLS: &str = "Write|StrReplace|Delete|EditNotebook|MultiEdit|Edit";

pub(super) const EVENTS: [HookEvent; 9] = [
    event("sessionStart", Stage::SessionStart),
    event("beforeSubmitPrompt", Stage::Prompt),
    tool_event("preToolUse", TOOLS, Stage::BeforeTool),
    tool_event("postToolUse", TOOLS, Stage::AfterTool),
    tool_event("postToolUseFailure", TOOLS, Stage::AfterTool),
    implied_event("beforeShellExecution", "Shell", Stage::BeforeTool),
    implied_event("afterShellExecution", "Shell", Stage::AfterTool),
    implied_event("afterFileEdit", "afterFileEdit", Stage::AfterTool),
    event("stop", Stage::TurnEnd),
];
