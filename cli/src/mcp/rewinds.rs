//! The tools that preview and rewrite: `preview_rewind`, `apply_rewind`, `undo_rewind`,
//! `fork_session`. Every rewrite is first previewed, then confirmed by the person (see
//! `consent`); a refused call writes nothing.

use super::Server;
use super::args::{ArgError, ToolArgs, flag, session_last};
use super::consent::{self, Consent};
use super::result::{Outcome, ToolError, ToolResult};
use serde_json::{Value, json};

/// What a rewind tool was asked to do.
struct Plan {
    scope: String,
    session: Option<String>,
    to: Option<String>,
    turn: Option<String>,
    checkpoint: Option<String>,
    paths: Vec<String>,
    include_external: bool,
    policy: String,
}

fn plan(a: &ToolArgs<'_>) -> Result<Plan, ArgError> {
    let Some(scope) = a.choice("scope", &["code", "conversation", "both"])? else {
        return Err(ArgError::new(
            "scope",
            "is required: code, conversation or both",
        ));
    };
    let p = Plan {
        session: a.string("session")?,
        to: a.string("to")?,
        turn: a.string("turn")?,
        checkpoint: a.string("checkpoint")?,
        paths: a.strings("paths")?,
        include_external: a.boolean("includeExternal")?.unwrap_or(false),
        policy: a
            .choice("policy", &["block", "skip", "merge", "force"])?
            .unwrap_or_else(|| "block".to_owned()),
        scope,
    };
    let targets = [
        ("to", &p.to),
        ("turn", &p.turn),
        ("checkpoint", &p.checkpoint),
    ];
    let given: Vec<&str> = targets
        .iter()
        .filter(|t| t.1.is_some())
        .map(|t| t.0)
        .collect();
    if p.scope == "code" {
        match given.as_slice() {
            [] => return Err(ArgError::new("to", "is required (or turn, or checkpoint)")),
            [_] => {}
            [_, second, ..] => {
                return Err(ArgError::new(
                    second,
                    "cannot be given with another of to, turn, checkpoint",
                ));
            }
        }
    } else {
        let only = |k: &str| ArgError::new(k, format!("is for scope code, not {}", p.scope));
        if p.turn.is_some() {
            return Err(only("turn"));
        }
        if p.checkpoint.is_some() {
            return Err(only("checkpoint"));
        }
        if p.include_external {
            return Err(only("includeExternal"));
        }
        if p.to.is_none() {
            return Err(ArgError::new("to", "is required: the prompt to go back to"));
        }
        if p.scope == "conversation" && !p.paths.is_empty() {
            return Err(ArgError::new("paths", "is for scopes that rewind files"));
        }
    }
    Ok(p)
}

/// `rewind preview` of the files the plan rewinds (`--since` for `to`).
fn file_preview(server: &Server, p: &Plan) -> Result<Value, ToolError> {
    let mut argv = vec!["preview".to_owned()];
    flag(&mut argv, "since", p.to.as_deref());
    flag(&mut argv, "turn", p.turn.as_deref());
    flag(&mut argv, "checkpoint", p.checkpoint.as_deref());
    for path in &p.paths {
        flag(&mut argv, "path", Some(path));
    }
    if p.include_external {
        argv.push("--include-external".to_owned());
    }
    session_last(&mut argv, p.session.as_deref());
    Ok(server.command(&argv)?.json)
}

/// The turns a conversation rewind to before `to` takes off the active branch.
fn conversation_preview(server: &Server, p: &Plan) -> Result<Value, ToolError> {
    let (log, turns) = super::turns::turns(server, p.session.as_deref())?;
    let to = p.to.as_deref().unwrap_or("@");
    let at = super::turns::find_turn(&log, &turns, to)?;
    let dropped: Vec<Value> = turns[at..].iter().map(|t| t["number"].clone()).collect();
    Ok(json!({
        "sessionId": log["sessionId"],
        "toMessageId": turns[at]["messageId"],
        "toTurn": turns[at]["number"],
        "turnsDropped": dropped,
        "prompt": turns[at]["prompt"],
    }))
}

/// The structured preview of a plan: the files part, the conversation part, conflicts, and
/// the policies that apply.
fn preview_of(server: &Server, p: &Plan) -> Result<Value, ToolError> {
    let files = match p.scope.as_str() {
        "conversation" => Value::Null,
        _ => file_preview(server, p)?,
    };
    let conversation = match p.scope.as_str() {
        "code" => Value::Null,
        _ => conversation_preview(server, p)?,
    };
    let unsafe_files = files["unsafeFiles"].as_array().cloned().unwrap_or_default();
    let safe = files["safeFiles"].as_array().map_or(0, Vec::len);
    let conflicts: Vec<Value> = unsafe_files
        .iter()
        .map(|f| {
            json!({ "path": f["path"], "reason": f["reason"], "message": f["message"],
                "mergeable": f["mergeable"], "forceable": f["forceable"] })
        })
        .collect();
    let mut policies = vec!["block"];
    if !conflicts.is_empty() {
        if safe > 0 {
            policies.push("skip");
        }
        if conflicts.iter().any(|c| c["mergeable"] == true) {
            policies.push("merge");
        }
        if conflicts.iter().any(|c| c["forceable"] == true) {
            policies.push("force");
        }
    }
    let can_apply = match p.scope.as_str() {
        "code" => files["canApply"] == true,
        "conversation" => true,
        _ => conflicts.is_empty(),
    };
    let session_id = match &files {
        Value::Null => conversation["sessionId"].clone(),
        f => f["sessionId"].clone(),
    };
    Ok(json!({
        "scope": p.scope,
        "sessionId": session_id,
        "files": files,
        "conversation": conversation,
        "conflicts": conflicts,
        "canApply": can_apply,
        "policies": policies,
    }))
}

/// One line per thing the rewind would do, for the person to read.
fn summary(preview: &Value, policy: &str) -> String {
    let mut lines = vec![format!(
        "Rewind {} of session {}:",
        match preview["scope"].as_str() {
            Some("code") => "the files",
            Some("conversation") => "the conversation (no file is touched)",
            _ => "files and conversation",
        },
        preview["sessionId"].as_str().unwrap_or("?")
    )];
    for f in preview["files"]["safeFiles"]
        .as_array()
        .into_iter()
        .flatten()
    {
        lines.push(format!(
            "  {} {}",
            f["action"].as_str().unwrap_or("restore"),
            f["path"].as_str().unwrap_or_default()
        ));
    }
    for c in preview["conflicts"].as_array().into_iter().flatten() {
        lines.push(format!(
            "  CONFLICT {} ({}): with policy {policy} {}",
            c["path"].as_str().unwrap_or_default(),
            c["message"].as_str().unwrap_or("changed after the agent"),
            match policy {
                "merge" if c["mergeable"] == true =>
                    "the later edits are kept and the agent's change reversed",
                "force" if c["forceable"] == true => "it is overwritten",
                _ => "it is left as it is",
            }
        ));
    }
    if let Some(turns) = preview["conversation"]["turnsDropped"].as_array() {
        let n: Vec<String> = turns.iter().map(|t| format!("#{t}")).collect();
        lines.push(format!(
            "  conversation: drop turn(s) {} from the active branch",
            n.join(", ")
        ));
    }
    lines.join("\n")
}

pub(super) fn preview(server: &Server, a: &ToolArgs<'_>) -> Outcome {
    let p = plan(a)?;
    let doc = preview_of(server, &p)?;
    let mut text = summary(&doc, "block");
    text.push_str(&format!(
        "\ncan apply with policy block: {}; policies that apply: {}",
        doc["canApply"], doc["policies"]
    ));
    Ok(ToolResult::ok(doc, text))
}

pub(super) fn apply(server: &mut Server, id: &Value, a: &ToolArgs<'_>) -> Outcome {
    let p = plan(a)?;
    let preview = preview_of(server, &p)?;
    let conflicted = preview["conflicts"]
        .as_array()
        .is_some_and(|c| !c.is_empty());
    if conflicted && p.policy == "block" {
        return Err(ToolError::Refused {
            code: "conflict",
            message: format!(
                "nothing was written: files changed after the agent block this rewind. \
                 {}\nAsk the person which policy they want (of {}) and call again with it.",
                summary(&preview, "block"),
                preview["policies"]
            ),
            detail: preview,
        });
    }
    let what = summary(&preview, &p.policy);
    if let Consent::No(why) = consent::obtain(server, id, a.boolean("confirm")?, &what)? {
        return Err(ToolError::Refused {
            code: "invalid_input",
            message: why,
            detail: preview,
        });
    }
    let mut argv = match p.scope.as_str() {
        "code" => vec!["apply".to_owned()],
        "conversation" => vec!["conversation".to_owned()],
        _ => vec!["both".to_owned()],
    };
    if p.scope == "code" {
        flag(&mut argv, "since", p.to.as_deref());
        flag(&mut argv, "turn", p.turn.as_deref());
        flag(&mut argv, "checkpoint", p.checkpoint.as_deref());
        if p.include_external {
            argv.push("--include-external".to_owned());
        }
    } else {
        flag(&mut argv, "to", p.to.as_deref());
    }
    if p.scope != "conversation" {
        flag(&mut argv, "policy", Some(&p.policy));
        for path in &p.paths {
            flag(&mut argv, "path", Some(path));
        }
    }
    session_last(&mut argv, p.session.as_deref());
    let report = server.command(&argv)?;
    let applied = report.exit == 0;
    let doc = json!({ "scope": p.scope, "sessionId": preview["sessionId"], "applied": applied,
        "outcome": report.json });
    let mut result = ToolResult::ok(doc, report.text);
    if !applied {
        result = result.failed();
    }
    Ok(result)
}

pub(super) fn undo(server: &mut Server, id: &Value, a: &ToolArgs<'_>) -> Outcome {
    let session = a.string("session")?;
    let operation = a.string("operation")?;
    let policy = a
        .choice("policy", &["block", "skip", "merge", "force"])?
        .unwrap_or_else(|| "block".to_owned());
    let what = format!(
        "Undo {} of session {}: the files it wrote get back what they held before it \
         (policy {policy} for files changed since).",
        operation
            .as_deref()
            .map_or("the latest rewind still in effect".to_owned(), |o| format!(
                "operation {o}"
            )),
        session.as_deref().unwrap_or("(the current one)")
    );
    let detail = json!({ "operation": operation, "session": session, "policy": policy });
    if let Consent::No(why) = consent::obtain(server, id, a.boolean("confirm")?, &what)? {
        return Err(ToolError::Refused {
            code: "invalid_input",
            message: why,
            detail,
        });
    }
    let mut argv = vec![
        "undo".to_owned(),
        format!("--policy={policy}"),
        "--".to_owned(),
    ];
    // `undo SESSION OP`; a lone operation is the operation (see `rewind undo`).
    argv.extend(session.clone());
    argv.extend(operation);
    let report = server.command(&argv)?;
    let applied = report.exit == 0;
    let session_id = match &report.json["preview"]["sessionId"] {
        Value::String(s) => json!(s),
        _ => json!(session.unwrap_or_default()),
    };
    let doc = json!({ "sessionId": session_id, "operationId": report.json["operationId"],
        "applied": applied, "outcome": report.json });
    let result = ToolResult::ok(doc, report.text);
    Ok(if applied { result } else { result.failed() })
}

pub(super) fn fork(server: &mut Server, id: &Value, a: &ToolArgs<'_>) -> Outcome {
    let points = [
        ("at", a.string("at")?),
        ("checkpoint", a.string("checkpoint")?),
        ("turn", a.string("turn")?),
    ];
    let given: Vec<&(&str, Option<String>)> = points.iter().filter(|p| p.1.is_some()).collect();
    let mode = a
        .choice("workspaceMode", &["shared", "restore"])?
        .unwrap_or_else(|| "shared".to_owned());
    let session = a.string("session")?;
    let mut argv = vec!["fork".to_owned(), format!("--workspace-mode={mode}")];
    match given.as_slice() {
        [] => return Err(ArgError::new("at", "is required (or checkpoint, or turn)").into()),
        [(k, v)] => flag(&mut argv, k, v.as_deref()),
        [_, (k, _), ..] => {
            return Err(
                ArgError::new(k, "cannot be given with another of at, checkpoint, turn").into(),
            );
        }
    }
    flag(&mut argv, "command-id", a.string("commandId")?.as_deref());
    let confirm = a.boolean("confirm")?;
    if mode == "restore" {
        let what = format!(
            "Fork session {} and restore the workspace's files to the fork point ({}).",
            session.as_deref().unwrap_or("(the current one)"),
            argv[2]
        );
        if let Consent::No(why) = consent::obtain(server, id, confirm, &what)? {
            return Err(ToolError::Refused {
                code: "invalid_input",
                message: why,
                detail: json!({ "fork": argv }),
            });
        }
    }
    session_last(&mut argv, session.as_deref());
    let report = server.command(&argv)?;
    Ok(ToolResult::ok(report.json, report.text))
}
