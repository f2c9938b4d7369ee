//! Kiro CLI (aws/amazon-q-developer-cli@35b5266 docs/hooks.md; https://kiro.dev/docs/cli/hooks):
//! not an agent `rewind init` installs for, but a host that may run an installed hook. Its
//! payload has `hook_event_name`, `cwd`, `tool_name` (`fs_write`, `execute_bash`) and
//! `tool_input`, and no session id: the hook gives it a synthetic one.

use super::{HookEvent, Stage, event};

pub(super) const EVENTS: [HookEvent; 5] = [
    event("agentSpawn", Stage::SessionStart),
    event("userPromptSubmit", Stage::Prompt),
    event("preToolUse", Stage::BeforeTool),
    event("postToolUse", Stage::AfterTool),
    event("stop", Stage::TurnEnd),
];
