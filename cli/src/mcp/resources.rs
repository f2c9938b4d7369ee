//! Resources: what rewinding a turn or a checkpoint would write, as a unified diff
//! (`rewind://session/<id>/turn/<n>/diff`, `rewind://session/<id>/checkpoint/<id>/diff`).
//! `resources/list` names the current session's turns; the templates name the rest.

use super::Server;
use super::args::session_last;
use super::wire::{self, Failure};
use serde_json::{Value, json};

const SCHEME: &str = "rewind://session/";

/// `resources/list`: the diff of each turn of the current session (none without one).
pub(super) fn list(server: &Server) -> Value {
    let resources: Vec<Value> = match super::turns::turns(server, None) {
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
