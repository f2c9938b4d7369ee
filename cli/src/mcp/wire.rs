//! The stdio transport of MCP: one JSON-RPC 2.0 message per line each way (the spec's stdio
//! transport: UTF-8, newline-delimited, no embedded newlines; JSON-RPC batches were taken out
//! of the protocol in 2025-06-18, so an array is an invalid request). Replies go through the
//! CLI's one writer; stderr is for logs only.
//!
//! While a tool call waits for the client's answer to an `elicitation/create`, other messages
//! can arrive: they are kept, in order, and handled once the call is over.

use crate::{CliError, output};
use rewind_core::ErrorKind;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{self, BufRead as _};

/// JSON-RPC's own codes, and MCP's "resource not found".
pub(super) const PARSE_ERROR: i64 = -32700;
pub(super) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
pub(super) const INVALID_PARAMS: i64 = -32602;
pub(super) const RESOURCE_NOT_FOUND: i64 = -32002;
/// What the engine or the store refused or failed at (its stable code is `data.code`).
pub(super) const ENGINE: i64 = -32000;

/// A JSON-RPC error: its code, message and the stable rewind code (with the field at fault,
/// when a parameter is).
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) kind: ErrorKind,
    pub(super) field: Option<String>,
}

impl Failure {
    pub(super) fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            kind: ErrorKind::InvalidInput,
            field: None,
        }
    }
    /// Invalid params: `field` (a JSON path such as `params.name`) is what is wrong.
    pub(super) fn param(field: &str, why: impl std::fmt::Display) -> Self {
        Self {
            field: Some(field.to_owned()),
            ..Self::new(INVALID_PARAMS, format!("Invalid params: {field} {why}"))
        }
    }
    pub(super) fn engine(e: &CliError, code: i64) -> Self {
        Self {
            kind: e.kind(),
            ..Self::new(code, e.message())
        }
    }
    pub(super) fn to_json(&self, id: &Value) -> Value {
        let mut data = json!({ "code": self.kind.as_str() });
        if let Some(f) = &self.field {
            data["field"] = json!(f);
        }
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": self.code, "message": self.message, "data": data },
        })
    }
}

/// A message as it came: a request (with an id), a notification, or a response to one of ours.
#[derive(Debug)]
pub(super) enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Value,
        outcome: Result<Value, Value>,
    },
    /// Not a message we can act on: answered with this error (and the id, when it was read).
    Invalid {
        id: Value,
        failure: Failure,
    },
}

/// Classify one line (already known not to be blank).
pub(super) fn parse(line: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                failure: Failure::new(PARSE_ERROR, format!("Parse error: {e}")),
            };
        }
    };
    let invalid = |id: Value, why: &str| Incoming::Invalid {
        id,
        failure: Failure::new(INVALID_REQUEST, format!("Invalid Request: {why}")),
    };
    let Value::Object(mut o) = value else {
        return invalid(
            Value::Null,
            "a message is one JSON object (batches are not part of MCP)",
        );
    };
    let id = o.remove("id");
    if let Some(id) = &id
        && !matches!(id, Value::String(_) | Value::Number(_))
    {
        return invalid(Value::Null, "id must be a string or a number");
    }
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id.unwrap_or(Value::Null), "jsonrpc must be \"2.0\"");
    }
    let params = o.remove("params").unwrap_or(Value::Null);
    match (o.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request { id, method, params },
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(_), id) => invalid(id.unwrap_or(Value::Null), "method must be a string"),
        (None, Some(id)) => match (o.remove("result"), o.remove("error")) {
            (Some(r), None) => Incoming::Response { id, outcome: Ok(r) },
            (None, Some(e)) => Incoming::Response {
                id,
                outcome: Err(e),
            },
            _ => invalid(id, "a response has exactly one of result and error"),
        },
        (None, None) => invalid(Value::Null, "no method"),
    }
}

/// The two directions of stdio: lines in (with those kept for later), lines out.
pub(super) struct Wire {
    input: io::StdinLock<'static>,
    kept: VecDeque<Vec<u8>>,
    /// The reader went away: stop, quietly.
    pub(super) closed: bool,
}

impl Wire {
    pub(super) fn new() -> Self {
        Self {
            input: io::stdin().lock(),
            kept: VecDeque::new(),
            closed: false,
        }
    }

    /// The next non-blank line: a kept one first; `None` at end of input.
    pub(super) fn next_line(&mut self) -> Result<Option<Vec<u8>>, CliError> {
        if let Some(line) = self.kept.pop_front() {
            return Ok(Some(line));
        }
        self.read_line()
    }

    /// The next non-blank line from stdin itself (kept ones are not looked at).
    pub(super) fn read_line(&mut self) -> Result<Option<Vec<u8>>, CliError> {
        loop {
            let mut buf = Vec::new();
            let n = self
                .input
                .read_until(b'\n', &mut buf)
                .map_err(|e| CliError::host(format!("cannot read stdin: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            let line = buf.trim_ascii();
            if !line.is_empty() {
                return Ok(Some(line.to_vec()));
            }
        }
    }

    /// Keep a line read while waiting for something else, to handle after.
    pub(super) fn keep(&mut self, line: Vec<u8>) {
        self.kept.push_back(line);
    }

    /// Send one message (one line: serde_json escapes every newline inside strings).
    pub(super) fn send(&mut self, message: &Value) -> Result<(), CliError> {
        if self.closed {
            return Ok(());
        }
        match output::stdout(&message.to_string()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(CliError::host(format!(
                "cannot write a message: {}",
                rewind_host::disk::describe(&e)
            ))),
        }
    }
}
