//! The person's yes before anything is rewritten. A client that declared form elicitation is
//! asked (`elicitation/create`, a yes/no form showing what would be written) whatever the
//! model passed: the model cannot answer for the person. Any other client must pass
//! `confirm: true`, which the tool descriptions tell the model to do only once the person
//! said so. Without a yes nothing is written, and the refusal says what would have been and
//! how to confirm.

use super::Server;
use super::wire::{self, Incoming};
use crate::CliError;
use serde_json::{Value, json};

/// The answer.
pub(super) enum Consent {
    Yes,
    /// No: why, for the tool's error.
    No(String),
}

/// Ask for (or check) the person's yes to `what`, during the `tools/call` with id `call_id`.
pub(super) fn obtain(
    server: &mut Server,
    call_id: &Value,
    confirm: Option<bool>,
    what: &str,
) -> Result<Consent, CliError> {
    if server.elicitation {
        return elicit(server, call_id, what);
    }
    if confirm == Some(true) {
        return Ok(Consent::Yes);
    }
    Ok(Consent::No(format!(
        "not confirmed, nothing was written. This would be written:\n{what}\nShow this to the \
         person; only if they tell you to go ahead, call the tool again with the same arguments \
         and \"confirm\": true."
    )))
}

/// Send `elicitation/create` and wait for its answer. Other messages that come meanwhile are
/// kept for after this call; the call's own cancellation, or end of input, is a no.
fn elicit(server: &mut Server, call_id: &Value, what: &str) -> Result<Consent, CliError> {
    let request_id = json!(format!("rewind-{}", server.next_id));
    server.next_id += 1;
    let mut params = json!({
        "message": format!("{what}\n\nRewrite these files on disk now?"),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "confirm": {
                    "type": "boolean",
                    "title": "Rewind files on disk",
                    "description": "Yes: write what is listed above (undoable with undo_rewind).",
                    "default": false,
                },
            },
            "required": ["confirm"],
        },
    });
    if server.version == Some("2025-11-25") {
        params["mode"] = json!("form");
    }
    server.wire.send(&json!({
        "jsonrpc": "2.0", "id": request_id, "method": "elicitation/create", "params": params,
    }))?;
    loop {
        let Some(line) = server.wire.read_line()? else {
            return Ok(Consent::No(
                "the client closed the connection before the person answered; nothing was \
                 written"
                    .to_owned(),
            ));
        };
        match wire::parse(&line) {
            Incoming::Response { id, outcome } if id == request_id => return Ok(answer(outcome)),
            Incoming::Notification { method, params }
                if method == "notifications/cancelled" && params["requestId"] == *call_id =>
            {
                // The spec: a cancelled request gets no response (see `Server::handle`).
                server.cancelled = true;
                return Ok(Consent::No(
                    "the client cancelled the call; nothing was written".to_owned(),
                ));
            }
            _ => server.wire.keep(line),
        }
    }
}

/// The person's answer to the form.
fn answer(outcome: Result<Value, Value>) -> Consent {
    let no = |why: &str| Consent::No(format!("{why}; nothing was written"));
    match outcome {
        Err(e) => Consent::No(format!(
            "the client could not ask the person ({}); nothing was written",
            e["message"].as_str().unwrap_or("an error")
        )),
        Ok(r) => match r["action"].as_str() {
            Some("accept") if r["content"]["confirm"] == true => Consent::Yes,
            Some("accept") => no("the person answered no"),
            Some("decline") => no("the person declined"),
            Some("cancel") => no("the person dismissed the question"),
            _ => no("the client's answer was not accept, decline or cancel"),
        },
    }
}
