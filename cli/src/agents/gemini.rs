//! Gemini CLI's hook events (`docs/hooks/reference.md`): tool matchers are unanchored regular
//! expressions. It has no failure event: a missing `AfterAgent` is found at the next
//! `BeforeAgent` instead.

use super::{HookEvent, Stage, event, tool_event};

const TOOLS: &str = "write_file|replace|run_shell_command";

pub(super) const EVENTS: [HookEvent; 5] = [
    event("SessionStart", Stage::SessionStart),
    event("BeforeAgent", Stage::Prompt),
    tool_event("BeforeTool", TOOLS, Stage::BeforeTool),
    tool_event("AfterTool", TOOLS, Stage::AfterTool),
    event("AfterAgent", Stage::TurnEnd),
];
