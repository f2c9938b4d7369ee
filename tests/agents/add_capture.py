#!/usr/bin/env python3
"""add_capture.py SETTINGS AGENT COMMAND: put COMMAND on every hook event AGENT has (beside
rewind's entries, which it leaves alone), so each payload the agent sends is kept."""
import json
import sys

EVENTS = {
    "claude-code": ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
                    "Stop", "StopFailure", "SubagentStart", "SubagentStop", "Notification", "SessionEnd"],
    "qwen-code": ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
                  "Stop", "StopFailure", "SubagentStart", "SubagentStop", "Notification", "SessionEnd"],
    "gemini-cli": ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "Notification",
                   "SessionEnd"],
    "codex": ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"],
    "continue": ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
                 "Stop", "Notification", "PreCompact", "SessionEnd"],
}
path, agent, command = sys.argv[1:4]
if agent not in EVENTS:  # OpenCode: rewind's plugin is the only hook; nothing to add beside it
    sys.exit(0)
with open(path) as f:
    settings = json.load(f)
hooks = settings.setdefault("hooks", {})
for event in EVENTS[agent]:
    group = {"hooks": [{"type": "command", "command": command}]}
    if "Tool" in event:
        group["matcher"] = "*" if agent != "gemini-cli" else ".*"
    hooks.setdefault(event, []).append(group)
with open(path, "w") as f:
    json.dump(settings, f, indent=2)
