//! Qwen Code's records (tested: 0.24.4). Per workspace, one chat per session:
//! `~/.qwen/projects/<cwd, every non-alphanumeric character a '-'>/chats/<session id>.jsonl`,
//! records chained by `uuid` / `parentUuid`: `user` (the person's prompt when its `provenance`
//! is `real_user`), `assistant` (`message.parts`: text, `functionCall`), `tool_result`
//! (`toolCallResult.resultDisplay`, which for `write_file` / `edit` keeps `filePath`,
//! `originalContent` and `newContent`, the file's text before and after) and `system` records.
//! A file the tool created has `originalContent` `""` and a result saying it created the file;
//! that is how the records tell a new file from an emptied one. The file-history snapshots of
//! `/rewind` (`system` / `file_history_snapshot`, see qwen-spec.md; written only in interactive
//! sessions with checkpointing on) make exact a change whose contents the chat does not keep
//! (`qwen_history`); a shell command's changes, which Qwen Code does not track, are a notice.

use super::build::{Imported, Step, Turn};
use super::{Found, Which, in_workspace, major_minor, pick};
use crate::CliError;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const AGENT: &str = "qwen-code";

/// The Qwen Code versions whose records this reader knows (0.x).
const KNOWN_MAJOR: u64 = 0;

pub(super) fn read(root: &Path, which: &Which<'_>) -> Result<Vec<Imported>, CliError> {
    let dir = super::home()?
        .join(".qwen/projects")
        .join(super::munged(root))
        .join("chats");
    let found = pick(super::sessions_in(&dir), which, AGENT)?;
    found.into_iter().map(|f| session(root, f)).collect()
}

fn session(root: &Path, f: Found) -> Result<Imported, CliError> {
    let (mut s, lines) = super::open_jsonl(AGENT, f)?;
    s.refused = match s.version.as_deref() {
        None => Some("no record names its Qwen Code version: not a chat this reader knows".into()),
        Some(v) if major_minor(v).map(|m| m.0) != Some(KNOWN_MAJOR) => Some(format!(
            "unknown record version {v} (known: Qwen Code {KNOWN_MAJOR}.x, tested 0.24.4): not \
             imported"
        )),
        Some(_) => lines
            .iter()
            .find_map(|v| v.get("cwd").and_then(Value::as_str))
            .filter(|cwd| Path::new(cwd) != root)
            .map(|cwd| format!("the session ran in {cwd}, not this workspace: not imported")),
    };
    if s.refused.is_none() {
        s.turns = turns(root, &lines, &mut s.diagnostics);
        let home = super::home()?;
        let id = s.session_id.clone();
        super::qwen_history::apply(&home, &id, &lines, &mut s.turns, &mut s.diagnostics);
    }
    Ok(s)
}

fn texts(v: &Value) -> Vec<&str> {
    let parts = v.pointer("/message/parts").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter(|p| p.get("thought") != Some(&Value::Bool(true)))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

fn turns(root: &Path, lines: &[Value], diagnostics: &mut Vec<String>) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    let mut calls: HashMap<String, (String, Value)> = HashMap::new();
    for v in lines {
        let kind = v.get("type").and_then(Value::as_str);
        if kind == Some("user") && v.get("provenance").and_then(Value::as_str) == Some("real_user")
        {
            let text = texts(v).join("\n");
            if !text.is_empty() {
                turns.push(Turn {
                    prompt: text,
                    before: v
                        .get("parentUuid")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    ..Turn::default()
                });
            }
            continue;
        }
        let Some(turn) = turns.last_mut() else {
            continue;
        };
        match kind {
            Some("assistant") => {
                let said = texts(v);
                if !said.is_empty() {
                    turn.reply = Some(said.join("\n"));
                }
                let parts = v.pointer("/message/parts").and_then(Value::as_array);
                for call in parts
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.get("functionCall"))
                {
                    let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
                    let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                    let args = call.get("args").cloned().unwrap_or(Value::Null);
                    calls.insert(id.to_owned(), (name.to_owned(), args));
                }
            }
            Some("tool_result") => {
                let r = v.get("toolCallResult").unwrap_or(&Value::Null);
                if r.get("status").and_then(Value::as_str) != Some("success") {
                    continue;
                }
                let id = r.get("callId").and_then(Value::as_str).unwrap_or_default();
                let Some((tool, args)) = calls.get(id) else {
                    continue;
                };
                turn.steps
                    .extend(step(root, v, r, (id, tool, args), diagnostics));
            }
            _ => {}
        }
    }
    turns
}

/// What one successful tool call did.
fn step(
    root: &Path,
    v: &Value,
    r: &Value,
    (id, tool, args): (&str, &str, &Value),
    diagnostics: &mut Vec<String>,
) -> Option<Step> {
    let shown = r.get("resultDisplay").unwrap_or(&Value::Null);
    if tool == "run_shell_command" {
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Some(Step::Notice(format!(
            "run_shell_command ran `{command}`: what it changed is not in Qwen Code's records"
        )));
    }
    let file = shown.get("filePath").and_then(Value::as_str)?;
    let path = match in_workspace(root, file) {
        Ok(p) => p,
        Err(why) => {
            diagnostics.push(why);
            return None;
        }
    };
    let get = |k: &str| shown.get(k).and_then(Value::as_str);
    let (Some(old), Some(new)) = (get("originalContent"), get("newContent")) else {
        return Some(Step::Failed {
            tool: tool.to_owned(),
            path,
            reason: "the tool result keeps no originalContent / newContent".into(),
        });
    };
    let output = v
        .pointer("/message/parts/0/functionResponse/response/output")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let created = old.is_empty()
        && (output.starts_with("Successfully created") || output.starts_with("Created new file"));
    Some(Step::Change {
        tool: tool.to_owned(),
        call_id: Some(id.to_owned()),
        path,
        before: (!created).then(|| old.as_bytes().to_vec()),
        after: Some(new.as_bytes().to_vec()),
    })
}
