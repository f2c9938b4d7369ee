//! A session's turns as the MCP tools show them (from `rewind log --json`), and finding the
//! one a `to` argument names.

use super::Server;
use super::args::session_last;
use crate::CliError;
use rewind_core::ErrorKind;
use serde_json::{Value, json};

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
                "prompt": first_line(text, 160),
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

/// The first line of `text`, at most `width` characters.
pub(super) fn first_line(text: &str, width: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > width {
        let cut: String = line.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// The index in `turns` of the turn `typed` names: `#N`, `@`, `@-K`, or a message id or
/// unique prefix (a reply names its turn's prompt).
pub(super) fn find_turn(log: &Value, turns: &[Value], typed: &str) -> Result<usize, CliError> {
    let not_found = |why: String| CliError::new(ErrorKind::NotFound, why);
    let bad = |why: &str| CliError::new(ErrorKind::InvalidInput, format!("to {typed:?}: {why}"));
    let t = typed.trim();
    let last = turns.len().checked_sub(1);
    let index = if let Some(n) = t.strip_prefix('#') {
        let n: usize = n.parse().map_err(|_| bad("#N needs a number"))?;
        n.checked_sub(1).filter(|i| *i < turns.len())
    } else if t == "@" {
        last
    } else if let Some(k) = t.strip_prefix("@-") {
        let k: usize = k.parse().map_err(|_| bad("@-K needs a number"))?;
        last.and_then(|l| l.checked_sub(k))
    } else {
        let matching: Vec<&Value> = log["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| {
                m["onBranch"] == true && m["id"].as_str().is_some_and(|id| id.starts_with(t))
            })
            .collect();
        match matching.as_slice() {
            [m] => turns.iter().position(|x| x["turnId"] == m["turnId"]),
            [] => None,
            _ => {
                return Err(bad("matches several messages: give more of the id"));
            }
        }
    };
    index.ok_or_else(|| not_found(format!("no turn {t:?} on the session's active branch")))
}
