//! Gemini CLI's records (tested: 0.61.0). `~/.gemini/projects.json` maps a workspace path to a
//! project name; its chats are `~/.gemini/tmp/<name>/chats/session-<time>-<id prefix>.jsonl`.
//! A chat file is a log to fold: a header line (`sessionId`, `projectHash`, `kind`), message
//! lines (`id`, `type` `user` / `gemini` / `info` / `error`, `content`, `toolCalls`), where a
//! later line with the same `id` replaces the earlier, and `{"$set": {...}}` lines that replace
//! fields (`messages`: the whole list). One session may span several files (a resume starts a
//! new one): their messages are merged by id. A finished tool call keeps `resultDisplay`, which
//! for `write_file` / `replace` holds `originalContent`, `newContent` and `isNewFile`. The
//! records name no CLI version; entries have no parent, so a prompt's point is the id of the
//! message before it.

use super::build::{Imported, Step, Turn};
use super::{Which, in_workspace, json_lines, read_record};
use crate::CliError;
use rewind_core::ErrorKind;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const AGENT: &str = "gemini-cli";

/// The chat files of the workspace's project, oldest first.
fn chat_files(root: &Path) -> Result<Vec<PathBuf>, CliError> {
    let gemini = super::home()?.join(".gemini");
    let none = || {
        CliError::new(
            ErrorKind::NotFound,
            format!("{AGENT} has no session records for this workspace"),
        )
    };
    let projects = read_record(&gemini.join("projects.json")).map_err(|_| none())?;
    let projects: Value = serde_json::from_slice(&projects).map_err(|_| none())?;
    let name = projects
        .pointer("/projects")
        .and_then(Value::as_object)
        .and_then(|m| m.get(&root.display().to_string()))
        .and_then(Value::as_str)
        .filter(|n| !n.contains('/') && !n.starts_with('.'))
        .ok_or_else(none)?;
    let found = super::sessions_in(&gemini.join("tmp").join(name).join("chats"));
    // Their names begin with the time they were started: that is their order.
    let mut paths: Vec<PathBuf> = found.into_iter().map(|f| f.path).collect();
    paths.sort();
    Ok(paths)
}

/// The same message: a message's id and type (a resumed list reuses a reply's id for the tool
/// results after it).
fn same(a: &Value, b: &Value) -> bool {
    a.get("id") == b.get("id") && a.get("type") == b.get("type")
}

/// One file folded: its session id and its messages in order.
fn fold(lines: Vec<Value>) -> (Option<String>, Vec<Value>) {
    let mut session = None;
    let mut messages: Vec<Value> = Vec::new();
    // Every message line that recorded tool calls (a later rewrite of the list may not).
    let mut rich: Vec<Value> = Vec::new();
    for v in lines {
        // Gemini's own rewind (`/rewind`): the message named and every one after it are gone;
        // an id it does not hold empties the list, as Gemini's loader does.
        if let Some(to) = v.get("$rewindTo").and_then(Value::as_str) {
            match messages
                .iter()
                .position(|m| m.get("id").and_then(Value::as_str) == Some(to))
            {
                Some(i) => messages.truncate(i),
                None => messages.clear(),
            }
            continue;
        }
        if let Some(set) = v.get("$set") {
            if let Some(m) = set.get("messages").and_then(Value::as_array) {
                // A resume rewrites the list from the model's history, which drops the tool
                // calls' records: a message keeps what an earlier line recorded of it.
                messages = m
                    .iter()
                    .map(|n| match rich.iter().find(|o| same(o, n)) {
                        Some(o) if n.get("toolCalls").is_none() => o.clone(),
                        _ => n.clone(),
                    })
                    .collect();
            }
            if let Some(id) = set.get("sessionId").and_then(Value::as_str) {
                session = Some(id.to_owned());
            }
        } else if v.get("projectHash").is_some() {
            session = v
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        } else if v.get("id").is_some() {
            if v.get("toolCalls").is_some() {
                rich.push(v.clone());
            }
            match messages.iter_mut().find(|m| same(m, &v)) {
                Some(m) => *m = v,
                None => messages.push(v),
            }
        }
    }
    (session, messages)
}

pub(super) fn read(root: &Path, which: &Which<'_>) -> Result<Vec<Imported>, CliError> {
    let mut order: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, Imported> = HashMap::new();
    let mut merged: HashMap<String, Vec<Value>> = HashMap::new();
    for path in chat_files(root)? {
        let mut diagnostics = Vec::new();
        let bytes = read_record(&path).map_err(|e| CliError::new(ErrorKind::InvalidInput, e))?;
        let (session, messages) = fold(json_lines(&bytes, &path, &mut diagnostics));
        let Some(id) = session else {
            continue; // not a chat file this reader knows (no header)
        };
        let s = by_id.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            Imported {
                agent: AGENT,
                session_id: id.clone(),
                transcript: path.clone(),
                version: None,
                turns: Vec::new(),
                diagnostics: Vec::new(),
                refused: None,
            }
        });
        s.diagnostics.extend(diagnostics);
        let all = merged.entry(id).or_default();
        for m in messages {
            match all.iter_mut().find(|o| same(o, &m)) {
                Some(o) if o.get("toolCalls").is_some() && m.get("toolCalls").is_none() => {}
                Some(o) => *o = m,
                None => all.push(m),
            }
        }
    }
    let found: Vec<super::Found> = order
        .iter()
        .map(|id| super::Found {
            id: id.clone(),
            path: by_id[id].transcript.clone(),
        })
        .collect();
    let picked = super::pick(found, which, AGENT)?;
    Ok(picked
        .into_iter()
        .filter_map(|f| {
            let mut s = by_id.remove(&f.id)?;
            let messages = merged.remove(&f.id).unwrap_or_default();
            s.turns = turns(root, &messages, &mut s.diagnostics);
            Some(s)
        })
        .collect())
}

/// A message's text parts (a string, or parts with `text`).
fn text_of(v: &Value) -> Option<String> {
    match v.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

fn turns(root: &Path, messages: &[Value], diagnostics: &mut Vec<String>) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    let mut previous: Option<String> = None;
    for m in messages {
        let kind = m.get("type").and_then(Value::as_str);
        let before = previous.clone();
        previous = m.get("id").and_then(Value::as_str).map(str::to_owned);
        if kind == Some("user") {
            if let Some(text) = text_of(m).filter(|t| !t.starts_with("<session_context>")) {
                turns.push(Turn {
                    prompt: text,
                    before,
                    ..Turn::default()
                });
            }
            continue;
        }
        let Some(turn) = turns.last_mut() else {
            continue;
        };
        if kind != Some("gemini") {
            continue;
        }
        if let Some(text) = text_of(m).filter(|t| !t.trim().is_empty()) {
            turn.reply = Some(text);
        }
        let calls = m.get("toolCalls").and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            if call.get("status").and_then(Value::as_str) == Some("success") {
                turn.steps.extend(step(root, call, diagnostics));
            }
        }
    }
    turns
}

fn step(root: &Path, call: &Value, diagnostics: &mut Vec<String>) -> Option<Step> {
    let tool = call.get("name").and_then(Value::as_str).unwrap_or_default();
    if tool == "run_shell_command" {
        let command = call
            .pointer("/args/command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Some(Step::Notice(format!(
            "run_shell_command ran `{command}`: what it changed is not in Gemini CLI's records"
        )));
    }
    let shown = call.get("resultDisplay")?;
    let file = shown.get("filePath").and_then(Value::as_str)?;
    let path = match in_workspace(root, file) {
        Ok(p) => p,
        Err(why) => {
            diagnostics.push(why);
            return None;
        }
    };
    let get = |k: &str| shown.get(k).and_then(Value::as_str);
    let new_file = shown.get("isNewFile").and_then(Value::as_bool);
    let (Some(old), Some(new), Some(new_file)) =
        (get("originalContent"), get("newContent"), new_file)
    else {
        return Some(Step::Failed {
            tool: tool.to_owned(),
            path,
            reason: "the tool call keeps no originalContent / newContent / isNewFile".into(),
        });
    };
    Some(Step::Change {
        tool: tool.to_owned(),
        call_id: call.get("id").and_then(Value::as_str).map(str::to_owned),
        path,
        before: (!new_file).then(|| old.as_bytes().to_vec()),
        after: Some(new.as_bytes().to_vec()),
    })
}
