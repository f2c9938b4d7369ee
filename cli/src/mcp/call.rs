//! Running a tool: the reading ones here (`list_sessions`, `list_turns`, `show_diff`), the
//! rewriting ones in `rewinds`. Each is one or more CLI commands run through
//! [`Server::command`]; a tool that fails returns a result with `isError`, its text saying
//! why and its `structuredContent.error.code` the stable rewind code.

use super::Server;
use super::args::{ArgError, ToolArgs, flag, session_last};
use crate::CliError;
use serde_json::{Value, json};

/// What a tool call returns.
#[derive(Debug)]
pub(super) struct ToolResult {
    text: String,
    structured: Value,
    is_error: bool,
}

impl ToolResult {
    pub(super) fn ok(structured: Value, text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            structured,
            is_error: false,
        }
    }

    /// The same result, marked as a failure (a rewind the engine refused, nothing written).
    pub(super) fn failed(mut self) -> Self {
        self.is_error = true;
        self
    }

    /// A failed call: `code` is the stable rewind code; `extra` members join the error object.
    pub(super) fn error(code: &str, message: impl Into<String>, extra: Value) -> Self {
        let message = message.into();
        let mut error = json!({ "code": code, "message": message });
        if let (Value::Object(e), Value::Object(more)) = (&mut error, extra) {
            e.extend(more);
        }
        Self {
            text: format!("error ({code}): {message}"),
            structured: json!({ "error": error }),
            is_error: true,
        }
    }

    /// The `tools/call` result. For clients that read only `content`, the structured data is
    /// also there as JSON text, after the human text (as the spec recommends).
    pub(super) fn to_result(&self) -> Value {
        let mut content = vec![json!({ "type": "text", "text": self.text })];
        content.push(json!({ "type": "text", "text": self.structured.to_string() }));
        json!({ "content": content, "structuredContent": self.structured, "isError": self.is_error })
    }
}

/// Why a call failed.
#[derive(Debug)]
pub(super) enum ToolError {
    Arg(ArgError),
    Engine(CliError),
    /// Refused before anything was written (no confirmation, a conflict under `block`): the
    /// message says why and what to do, `detail` what would have been written.
    Refused {
        code: &'static str,
        message: String,
        detail: Value,
    },
}

impl From<ArgError> for ToolError {
    fn from(e: ArgError) -> Self {
        Self::Arg(e)
    }
}

impl From<CliError> for ToolError {
    fn from(e: CliError) -> Self {
        Self::Engine(e)
    }
}

impl ToolError {
    fn into_result(self) -> ToolResult {
        match self {
            Self::Arg(e) => ToolResult::error(
                "invalid_input",
                format!("{} {}", e.field, e.why),
                json!({ "field": e.field }),
            ),
            Self::Engine(e) => ToolResult::error(e.kind().as_str(), e.message(), json!({})),
            Self::Refused {
                code,
                message,
                detail,
            } => ToolResult::error(code, message, json!({ "wouldWrite": detail })),
        }
    }
}

pub(super) type Outcome = Result<ToolResult, ToolError>;

/// Run tool `name` (known to the catalogue) with `arguments` (an object).
pub(super) fn call(server: &mut Server, id: &Value, name: &str, arguments: &Value) -> ToolResult {
    let run = |server: &mut Server| -> Outcome {
        let a = ToolArgs::new(name, arguments)?;
        match name {
            "list_sessions" => list_sessions(server),
            "list_turns" => list_turns(server, &a),
            "show_diff" => show_diff(server, &a),
            "preview_rewind" => super::rewinds::preview(server, &a),
            "apply_rewind" => super::rewinds::apply(server, id, &a),
            "undo_rewind" => super::rewinds::undo(server, id, &a),
            _ => super::rewinds::fork(server, id, &a),
        }
    };
    run(server).unwrap_or_else(ToolError::into_result)
}

fn list_sessions(server: &Server) -> Outcome {
    let report = server.command(&["session".into(), "list".into()])?;
    Ok(ToolResult::ok(
        json!({ "sessions": report.json }),
        report.text,
    ))
}

/// A session's turns on its active branch, from `rewind log`: number, prompt, checkpoints,
/// files (all but the newest `limit` dropped).
pub(super) fn turns(
    server: &Server,
    session: Option<&str>,
) -> Result<(Value, Vec<Value>), CliError> {
    let mut argv = vec!["log".to_owned()];
    session_last(&mut argv, session);
    let log = server.command(&argv)?.json;
    let mut turns: Vec<Value> = Vec::new();
    for m in log["messages"].as_array().into_iter().flatten() {
        if let Some(n) = m["turnNumber"].as_u64() {
            let text = m["text"].as_str().unwrap_or_default();
            turns.push(json!({
                "number": n,
                "ref": format!("#{n}"),
                "messageId": m["id"],
                "turnId": m["turnId"],
                "prompt": super::resources::first_line(text, 160),
                "checkpoints": [],
                "files": [],
            }));
        }
        let Some(turn) = turns.last_mut() else {
            continue;
        };
        for c in m["checkpoints"].as_array().into_iter().flatten() {
            push_unique(&mut turn["checkpoints"], &c["checkpointId"]);
            for f in c["files"].as_array().into_iter().flatten() {
                push_unique(&mut turn["files"], &f["path"]);
            }
        }
    }
    Ok((log, turns))
}

fn push_unique(list: &mut Value, item: &Value) {
    if let Value::Array(items) = list
        && !item.is_null()
        && !items.contains(item)
    {
        items.push(item.clone());
    }
}

fn list_turns(server: &Server, a: &ToolArgs<'_>) -> Outcome {
    let session = a.string("session")?;
    let limit = a.integer("limit", 1, 200)?.unwrap_or(20);
    let (log, mut turns) = turns(server, session.as_deref())?;
    let count = turns.len();
    let skip = count.saturating_sub(usize::try_from(limit).unwrap_or(usize::MAX));
    let mut turns: Vec<Value> = turns.drain(skip..).collect();
    let session_id = log["sessionId"].as_str().unwrap_or_default().to_owned();
    let mut text = format!("session {session_id}: {count} turn(s)\n");
    for t in &mut turns {
        // + and − are the agent's: what the preview of rewinding the turn counts.
        let mut argv = vec![
            "preview".to_owned(),
            format!("--turn={}", t["ref"].as_str().unwrap_or("@")),
        ];
        session_last(&mut argv, Some(&session_id));
        let stats = server.command(&argv).map(|r| r.json["stats"].clone()).ok();
        let lines = |k: &str| stats.as_ref().and_then(|s| s[k].as_u64());
        t["additions"] = json!(lines("additions"));
        t["deletions"] = json!(lines("deletions"));
        let files = t["files"].as_array().map_or(0, Vec::len);
        text.push_str(&format!(
            "{:<5} +{} −{} {} file(s)  {}\n",
            t["ref"].as_str().unwrap_or_default(),
            lines("additions").unwrap_or(0),
            lines("deletions").unwrap_or(0),
            files,
            t["prompt"].as_str().unwrap_or_default()
        ));
    }
    let doc = json!({
        "sessionId": session_id,
        "generation": log["generation"],
        "turnCount": count,
        "turns": turns,
    });
    Ok(ToolResult::ok(doc, text))
}

fn show_diff(server: &Server, a: &ToolArgs<'_>) -> Outcome {
    let given: Vec<(&str, String)> = ["turn", "checkpoint", "since"]
        .into_iter()
        .filter_map(|k| a.string(k).transpose().map(|v| v.map(|v| (k, v))))
        .collect::<Result<_, _>>()?;
    let (key, value) = match given.as_slice() {
        [one] => one.clone(),
        [] => return Err(ArgError::new("turn", "is required (or checkpoint, or since)").into()),
        [_, (second, _), ..] => {
            return Err(ArgError::new(
                second,
                "cannot be given with another of turn, checkpoint, since",
            )
            .into());
        }
    };
    let mut argv = vec!["diff".to_owned()];
    flag(&mut argv, key, Some(&value));
    for p in a.strings("paths")? {
        flag(&mut argv, "path", Some(&p));
    }
    session_last(&mut argv, a.string("session")?.as_deref());
    let report = server.command(&argv)?;
    Ok(ToolResult::ok(report.json, report.text))
}
