//! What `tools/list` shows: each tool's name, description, input schema and, where it returns
//! data, its output schema. The descriptions are read by a model: they say plainly which
//! tools rewrite files on disk, and that it must never rewind without the person asking.

use serde_json::{Value, json};

/// Said by every tool that writes the person's files.
const WRITES: &str = "This REWRITES FILES ON DISK in the person's workspace (undoable with \
    undo_rewind). Never call it unless the person explicitly asked for this rewind in this \
    conversation; never to clean up, retry or fix something on your own. The person confirms \
    it: through the client's confirmation prompt when it has one, else by the person telling you \
    to pass confirm: true after seeing preview_rewind.";

fn session() -> Value {
    json!({ "type": "string", "description": "A session id or unique prefix (see list_sessions). \
        Default: the workspace's current session, else its only one." })
}

fn prompt_ref(what: &str) -> Value {
    json!({ "type": "string", "description": format!("{what}: #N (turn N of the active branch, \
        as list_turns numbers them), @ (the latest), @-1, or a message id or unique prefix.") })
}

fn paths() -> Value {
    json!({ "type": "array", "items": { "type": "string" },
        "description": "Only these workspace paths (a directory covers what is below it)." })
}

fn policy() -> Value {
    json!({ "type": "string", "enum": ["block", "skip", "merge", "force"], "default": "block",
        "description": "How to treat files changed after the agent (conflicts): block writes \
        nothing if there is any; skip restores only the safe files; merge keeps the later edits \
        and reverse-applies the agent's change (text files); force overwrites them. Offer only \
        what preview_rewind lists in `policies`, and only as the person chose." })
}

fn confirm() -> Value {
    json!({ "type": "boolean", "description": "true only when the person has seen the preview \
        and told you to go ahead. Ignored when the client asks the person itself." })
}

/// Where a rewind goes back to, for the tools that take a scope.
fn rewind_target(extra: &[(&str, Value)]) -> Value {
    let mut properties = json!({
        "session": session(),
        "scope": { "type": "string", "enum": ["code", "conversation", "both"],
            "description": "code: files only; conversation: the chat only (no file is touched); \
            both: files and conversation together, as one unit." },
        "to": prompt_ref("Back to before this prompt, its turn and every later one"),
        "turn": prompt_ref("scope code only: just this one turn's changes"),
        "checkpoint": { "type": "string",
            "description": "scope code only: just this checkpoint (an id or unique prefix)." },
        "paths": paths(),
        "includeExternal": { "type": "boolean", "default": false,
            "description": "scope code only: also undo changes the person made between turns \
            (recorded by snapshots); by default they are kept and shown as conflicts." },
    });
    for (k, v) in extra {
        properties[*k] = v.clone();
    }
    json!({ "type": "object", "properties": properties, "required": ["scope"],
        "additionalProperties": false })
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

fn tool(name: &str, title: &str, description: &str, input: Value, output: Value) -> Value {
    let writes = description.contains("REWRITES FILES");
    json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": input,
        "outputSchema": output,
        "annotations": {
            "title": title,
            "readOnlyHint": !writes && !name.starts_with("fork"),
            "destructiveHint": writes,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

/// Every tool, in the order `tools/list` shows them.
pub(super) fn tools() -> Value {
    let mut all = reading();
    all.extend(rewriting());
    Value::Array(all)
}

/// The tools that only read.
fn reading() -> Vec<Value> {
    let none = json!({ "type": "object", "properties": {}, "additionalProperties": false });
    let any_object = json!({ "type": "object" });
    let nullable_object = json!({ "type": ["object", "null"] });
    let array = json!({ "type": "array" });
    vec![
        tool(
            "list_sessions",
            "List sessions",
            "The agent sessions rewind recorded in this workspace (forks under their parent; \
             `current` marks the workspace's current one). Reads only.",
            none,
            object(json!({ "sessions": array }), &["sessions"]),
        ),
        tool(
            "list_turns",
            "List turns",
            "A session's turns on its active branch, oldest first: #N, the prompt's first \
             line, the checkpoints and files each changed, and lines added (+) and removed (−). \
             Reads only.",
            json!({ "type": "object", "additionalProperties": false, "properties": {
                "session": session(),
                "limit": { "type": "integer", "minimum": 1, "maximum": 200, "default": 20,
                    "description": "At most this many turns, the latest ones." } } }),
            object(
                json!({ "sessionId": { "type": "string" }, "generation": { "type": "integer" },
                "turnCount": { "type": "integer" }, "turns": array }),
                &["sessionId", "turns"],
            ),
        ),
        tool(
            "show_diff",
            "Show a diff",
            "The unified diff of what rewinding a turn, a checkpoint, or everything since a \
             prompt would write: the files on disk now against what they would be, i.e. the \
             agent's change reversed. A file changed after the agent is a conflict, shown with \
             the person's change and the agent's. Give exactly one of turn, checkpoint, since. \
             Reads only.",
            json!({ "type": "object", "additionalProperties": false, "properties": {
                "session": session(),
                "turn": prompt_ref("This turn"),
                "checkpoint": { "type": "string", "description": "This checkpoint." },
                "since": prompt_ref("Everything since this prompt"),
                "paths": paths() } }),
            object(
                json!({ "sessionId": { "type": "string" }, "files": array,
                "stats": any_object }),
                &["sessionId", "files"],
            ),
        ),
        tool(
            "preview_rewind",
            "Preview a rewind",
            "What a rewind would do, writing nothing: the files it would restore, every \
             conflict (a file changed after the agent) as data, the turns the conversation \
             would drop, and the policies that apply. Show this to the person before any \
             apply_rewind.",
            rewind_target(&[]),
            object(
                json!({ "scope": { "type": "string" }, "sessionId": { "type": "string" },
                "files": nullable_object, "conversation": nullable_object,
                "conflicts": array, "canApply": { "type": "boolean" },
                "policies": array }),
                &["scope", "sessionId", "conflicts", "canApply", "policies"],
            ),
        ),
    ]
}

/// The tools that rewrite files (a shared fork aside), each behind the person's confirmation.
fn rewriting() -> Vec<Value> {
    let any_object = json!({ "type": "object" });
    vec![
        tool(
            "apply_rewind",
            "Apply a rewind",
            &format!(
                "Rewind code, conversation or both to before a prompt (or one turn or \
             checkpoint, code only), as preview_rewind showed. {WRITES}"
            ),
            rewind_target(&[("policy", policy()), ("confirm", confirm())]),
            object(
                json!({ "scope": { "type": "string" }, "sessionId": { "type": "string" },
                "applied": { "type": "boolean" }, "outcome": any_object }),
                &["scope", "sessionId", "applied", "outcome"],
            ),
        ),
        tool(
            "undo_rewind",
            "Undo a rewind",
            &format!(
                "Take back the session's latest rewind still in effect (or the operation \
             given): its files get back what they held before it. {WRITES}"
            ),
            json!({ "type": "object", "additionalProperties": false, "properties": {
                "session": session(),
                "operation": { "type": "string",
                    "description": "An operation id or unique prefix (default: the latest rewind \
                    still in effect)." },
                "policy": policy(), "confirm": confirm() } }),
            object(
                json!({ "sessionId": { "type": "string" }, "operationId": { "type": "string" },
                "applied": { "type": "boolean" }, "outcome": any_object }),
                &["sessionId", "applied", "outcome"],
            ),
        ),
        tool(
            "fork_session",
            "Fork a session",
            &format!(
                "Start a new session that copies this one up to a point (a message's turn, a \
             checkpoint, or a completed turn). With workspaceMode shared (the default) no file \
             is touched. With workspaceMode restore: {WRITES}"
            ),
            json!({ "type": "object", "additionalProperties": false, "properties": {
                "session": session(),
                "at": prompt_ref("Fork through the turn of this message"),
                "checkpoint": { "type": "string", "description": "Fork right after this \
                    checkpoint." },
                "turn": prompt_ref("Fork at this completed turn's end (conversation only)"),
                "workspaceMode": { "type": "string", "enum": ["shared", "restore"],
                    "default": "shared" },
                "commandId": { "type": "string", "description": "Idempotency key: the same key \
                    returns the same child and writes nothing." },
                "confirm": confirm() } }),
            object(json!({ "childId": { "type": "string" } }), &["childId"]),
        ),
    ]
}

/// Whether `name` is one of ours.
pub(super) fn known(name: &str) -> bool {
    tools()
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == name))
}
