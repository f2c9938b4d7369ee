//! Qwen Code's hook events (`features/hooks.md`): Claude Code's event names; the matcher is a
//! `|` list of runtime tool ids, matched entry by entry.

use super::{HookEvent, Stage, event, tool_event};

const TOOLS: &str = "write_file|edit|notebook_edit|run_shell_command";

pub(super) const EVENTS: [HookEvent; 7] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", TOOLS, Stage::AfterTool),
    tool_event("PostToolUseFailure", TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
    event("StopFailure", Stage::TurnFailed),
];
