//! OpenCode and its fork Kilo Code: in-process plugins (anomalyco/opencode@0d4d22f
//! packages/plugin/src/index.ts; Kilo-Org/kilocode@00cb0d2 the same; V2 `execute.before` /
//! `execute.after`, anomalyco/opencode@5844ec6 packages/plugin/src/v2/promise/tool.ts). The
//! plugin rewind ships forwards each to `rewind hook opencode` (or `kilo`) as one JSON object:
//! `hook_event_name` (the names below), `session_id` (`sessionID`), `tool_name` (`tool`),
//! `tool_use_id` (`callID`), `tool_input` (`args`), `prompt`, `cwd`. The hook also reads
//! OpenCode's own spellings (`sessionID`, `tool`, `callID`, `args`). Tools: `write`, `edit`,
//! `multiedit` (`filePath`), `apply_patch` (`patchText`, a V4A patch), `bash` (`command`).

use super::{HookEvent, Stage, event};

pub(super) const EVENTS: [HookEvent; 6] = [
    event("session.created", Stage::SessionStart),
    event("chat.message", Stage::Prompt),
    event("tool.execute.before", Stage::BeforeTool),
    event("tool.execute.after", Stage::AfterTool),
    event("session.idle", Stage::TurnEnd),
    event("session.error", Stage::TurnFailed),
];

/// The V2 plugin API's tool hooks.
pub(super) const ALSO: [HookEvent; 2] = [
    event("execute.before", Stage::BeforeTool),
    event("execute.after", Stage::AfterTool),
];
