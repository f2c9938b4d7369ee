//! Windsurf's Cascade hooks (https://docs.windsurf.com/windsurf/cascade/hooks; the same in
//! `.devin/hooks.json`): each event is about one kind of action, named in `agent_action_name`,
//! with its fields in `tool_info` (`file_path` + `edits`; `command_line` + `cwd`; `user_prompt`;
//! `response`). Session = `trajectory_id`. There is no session-start event: the first event of
//! a trajectory opens it.

use super::{HookEvent, Stage, event, implied_event};

pub(super) const EVENTS: [HookEvent; 6] = [
    event("pre_user_prompt", Stage::Prompt),
    implied_event("pre_write_code", "write_code", Stage::BeforeTool),
    implied_event("post_write_code", "write_code", Stage::AfterTool),
    implied_event("pre_run_command", "run_command", Stage::BeforeTool),
    implied_event("post_run_command", "run_command", Stage::AfterTool),
    event("post_cascade_response", Stage::TurnEnd),
];
