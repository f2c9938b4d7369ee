//! Cline's hooks (cline/cline@21cb8d2 sdk/packages/shared/src/hooks/events.ts): one executable
//! per event, named after it; the payload says `hookName`, `taskId` (the session),
//! `workspaceRoots`, and `preToolUse{toolName, parameters}` with every parameter a string.
//! Lifecycle hooks (`UserPromptSubmit`, `TaskComplete`) run detached, so a tool event may come
//! before its turn's prompt: the turn is opened by the first tool event. Tools: `editor`
//! (`path`), `apply_patch` (`input`, a V4A patch), `run_commands` (`commands`), and the legacy
//! `write_to_file`, `replace_in_file`, `delete_file` (`path`), `execute_command` (`command`).

use super::{HookEvent, Stage, event};

pub(super) const EVENTS: [HookEvent; 7] = [
    event("TaskStart", Stage::SessionStart),
    event("TaskResume", Stage::SessionStart),
    event("UserPromptSubmit", Stage::Prompt),
    event("PreToolUse", Stage::BeforeTool),
    event("PostToolUse", Stage::AfterTool),
    event("TaskComplete", Stage::TurnEnd),
    event("TaskCancel", Stage::TurnFailed),
];
