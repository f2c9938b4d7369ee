//! Resources: what rewinding a turn or a checkpoint would write, as a unified diff
//! (`rewind://session/<id>/turn/<n>/diff`, `rewind://session/<id>/checkpoint/<id>/diff`).
//! `resources/list` names the current session's turns; the templates name the rest.

use super::Server;
use super::args::session_last;
use super::call::ToolError;
use super::wire::{self, Failure};
use serde_json::{Value, json};

const SCHEME: &str = "rewind://session/";

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
pub(super) fn find_turn(log: &Value, turns: &[Value], typed: &str) -> Result<usize, ToolError> {
    let not_found = |why: String| {
        ToolError::Engine(crate::CliError::new(rewind_core::ErrorKind::NotFound, why))
    };
    let t = typed.trim();
    let last = turns.len().checked_sub(1);
    let index = if let Some(n) = t.strip_prefix('#') {
        let n: usize = n
            .parse()
            .map_err(|_| super::args::ArgError::new("to", "#N needs a number"))?;
        n.checked_sub(1).filter(|i| *i < turns.len())
    } else if t == "@" {
        last
    } else if let Some(k) = t.strip_prefix("@-") {
        let k: usize = k
            .parse()
            .map_err(|_| super::args::ArgError::new("to", "@-K needs a number"))?;
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
                return Err(ToolError::Engine(crate::CliError::new(
                    rewind_core::ErrorKind::InvalidInput,
                    format!("{t:?} matches several messages: give more of the id"),
                )));
            }
        }
    };
    index.ok_or_else(|| not_found(format!("no turn {t:?} on the session's active branch")))
}

/// `resources/list`: the diff of each turn of the current session (none without one).
pub(super) fn list(server: &Server) -> Value {
    let resources: Vec<Value> = match super::call::turns(server, None) {
        Ok((log, turns)) => {
            let session = log["sessionId"].as_str().unwrap_or_default();
            turns
                .iter()
                .map(|t| {
                    let n = &t["number"];
                    json!({
                        "uri": format!("{SCHEME}{session}/turn/{n}/diff"),
                        "name": format!("turn-{n}-diff"),
                        "title": format!("#{n}: {}", t["prompt"].as_str().unwrap_or_default()),
                        "description": "What rewinding this turn would write (a unified diff).",
                        "mimeType": "text/x-diff",
                    })
                })
                .collect()
        }
        Err(e) => {
            crate::output::warn(&format!("rewind mcp: resources/list: {e}"));
            Vec::new()
        }
    };
    json!({ "resources": resources })
}

/// `resources/templates/list`.
pub(super) fn templates() -> Value {
    json!({ "resourceTemplates": [
        {
            "uriTemplate": format!("{SCHEME}{{session}}/turn/{{turn}}/diff"),
            "name": "turn-diff",
            "title": "A turn's diff",
            "description": "What rewinding turn N (as list_turns numbers it) of a session would \
                write, as a unified diff; conflicts show the person's change and the agent's.",
            "mimeType": "text/x-diff",
        },
        {
            "uriTemplate": format!("{SCHEME}{{session}}/checkpoint/{{checkpoint}}/diff"),
            "name": "checkpoint-diff",
            "title": "A checkpoint's diff",
            "description": "What rewinding one checkpoint would write, as a unified diff.",
            "mimeType": "text/x-diff",
        },
    ] })
}

/// `(session, flag)` a URI names: `turn/<n>` is `--turn=#n`, `checkpoint/<id>` `--checkpoint`.
fn parse_uri(uri: &str) -> Option<(String, String)> {
    let rest = uri.strip_prefix(SCHEME)?;
    let parts: Vec<&str> = rest.split('/').collect();
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    match parts.as_slice() {
        [session, "turn", n, "diff"] if ok(session) && n.parse::<u32>().is_ok_and(|n| n > 0) => {
            Some(((*session).to_owned(), format!("--turn=#{n}")))
        }
        [session, "checkpoint", id, "diff"] if ok(session) && ok(id) => {
            Some(((*session).to_owned(), format!("--checkpoint={id}")))
        }
        _ => None,
    }
}

/// `resources/read`.
pub(super) fn read(server: &Server, params: &Value) -> Result<Value, Failure> {
    let uri = match params.get("uri") {
        Some(Value::String(u)) => u.as_str(),
        Some(_) => return Err(Failure::param("params.uri", "must be a string")),
        None => return Err(Failure::param("params.uri", "is required")),
    };
    let Some((session, target)) = parse_uri(uri) else {
        let mut f = Failure::new(
            wire::RESOURCE_NOT_FOUND,
            format!("Resource not found: {uri} (see resources/templates/list)"),
        );
        f.field = Some("params.uri".to_owned());
        return Err(f);
    };
    let mut argv = vec!["diff".to_owned(), target];
    session_last(&mut argv, Some(&session));
    let report = server.command(&argv).map_err(|e| {
        let code = match e.kind() {
            rewind_core::ErrorKind::NotFound => wire::RESOURCE_NOT_FOUND,
            _ => wire::ENGINE,
        };
        Failure::engine(&e, code)
    })?;
    Ok(json!({ "contents": [
        { "uri": uri, "mimeType": "text/x-diff", "text": report.text },
    ] }))
}
