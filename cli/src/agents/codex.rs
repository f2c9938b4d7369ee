//! OpenAI Codex CLI's hook events (openai/codex@0082977 codex-rs/hooks/src/events/*.rs,
//! schemas at codex-rs/hooks/schema/generated/): Claude Code's names and fields, plus
//! `turn_id`. The matcher is a `|` list; `Write` and `Edit` are aliases of `apply_patch`
//! (codex-rs/core/src/tools/hook_names.rs), whose `tool_input.command` is a V4A patch naming
//! its files. Codex has no failure event: a failed call fires no `PostToolUse`, so a before
//! event left open is closed at `Stop`.

use super::{HookEvent, Stage, event, tool_event};

const TOOLS: &str = "Bash|apply_patch";

pub(super) const EVENTS: [HookEvent; 5] = [
    event("SessionStart", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    tool_event("PreToolUse", TOOLS, Stage::BeforeTool),
    tool_event("PostToolUse", TOOLS, Stage::AfterTool),
    event("Stop", Stage::TurnEnd),
];
