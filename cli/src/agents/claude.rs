//! Claude Code's hook events (`hooks.md`): a matcher of letters and `|` is a list of exact tool
//! names. `MultiEdit` is gone from current releases but older ones still send it;
//! `PowerShell` is `Bash` on Windows.

use super::{HookEvent, Stage, event, tool_event};

const TOOLS: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell";

pub(super) const EVENTS: [HookEvent; 7] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", TOOLS, Stage::AfterTool),
    tool_event("PostToolUseFailure", TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
    event("StopFailure", Stage::TurnFailed),
];
