//! Continue's `cn` CLI (continuedev/continue@2032c3d extensions/cli/src/hooks/): Claude Code's
//! events and tool names; it reads `.claude/settings.json` beside `.continue/settings.json`.
//! Its `Write` tool sends `filepath`, not `file_path` (…@2822c5b
//! extensions/cli/src/tools/writeFile.ts). The IDE extensions have no hooks.

use super::{HookEvent, Stage, event, tool_event};

const TOOLS: &str = "Write|Edit|MultiEdit|Bash";

pub(super) const EVENTS: [HookEvent; 5] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
];
