//! Running a tool: the reading ones here (`list_sessions`, `list_turns`, `show_diff`), the
//! rewriting ones in `rewinds`. Each is one or more CLI commands run through
//! [`Server::command`]; a tool that fails returns a result with `isError`, its text saying
//! why and its `structuredContent.error.code` the stable rewind code.

use super::Server;
use super::args::{ArgError, ToolArgs, flag, session_last};
use super::result::{Outcome, ToolError, ToolResult};
use super::turns::turns;
use serde_json::{Value, json};

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
