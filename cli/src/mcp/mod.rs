//! `rewind mcp`: a Model Context Protocol server on stdin/stdout, so an MCP client (Claude
//! Code, Gemini CLI, VS Code, any SDK) can list a session's turns, diff them, preview a rewind
//! with its conflicts as data, and, only with the person's confirmation, rewind, undo and fork.
//!
//! It speaks the handshake-era protocol, newest revision 2025-11-25 (and 2025-06-18,
//! 2025-03-26, 2024-11-05 when a client asks for one of those): `initialize`,
//! `notifications/initialized`, `ping`, `tools/*`, `resources/*`, and `elicitation/create`
//! towards clients that declare form elicitation. Each tool runs the CLI command that does the
//! same (`rewind log`, `preview`, `diff`, `apply`, `both`, `conversation`, `undo`, `fork`
//! through the [`Runner`] `commands` gives it), so it opens the store with the one locate rule and
//! the rights table like every other front end, and returns that command's `--json` document.
//! See `wire` (framing), `catalogue` (the tools), `call` and `rewinds` (running them),
//! `consent` (confirmation) and `resources`.

mod args;
mod call;
mod catalogue;
mod consent;
mod resources;
mod result;
mod rewinds;
mod turns;
mod wire;

use crate::CliError;
use serde_json::{Value, json};
use std::path::PathBuf;
use wire::{Failure, Incoming, Wire};

/// The revisions this server speaks, newest first (the first is offered to any other).
const VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// `rewind mcp`'s arguments: none of its own (the global --workspace, --db, --store say where).
#[derive(Debug, clap::Args)]
pub struct Args {}

/// What one CLI command produced: its `--json` document, its text and its exit code.
#[derive(Debug)]
pub struct Ran {
    /// The `--json` document.
    pub json: Value,
    /// The text a person would read.
    pub text: String,
    /// The exit code (1: refused, nothing written).
    pub exit: i32,
}

/// Runs one CLI command: the words after `rewind` (`crate::commands` gives it, so the tools
/// run exactly what the command line runs).
pub type Runner = Box<dyn Fn(&[String]) -> Result<Ran, CliError>>;

/// The server's state across messages.
pub(crate) struct Server {
    runner: Runner,
    wire: Wire,
    /// The global options every command it runs gets: where the workspace and store are.
    globals: Vec<String>,
    /// The negotiated revision, once `initialize` was answered.
    version: Option<&'static str>,
    /// The client declared form elicitation: the person is asked before any rewrite.
    elicitation: bool,
    /// The id of the next request this server sends.
    next_id: u64,
    /// The client cancelled the request being answered: it gets no response.
    cancelled: bool,
}

/// Serve until end of input (or until the client stops reading).
pub fn run(
    _args: &Args,
    workspace: PathBuf,
    db: PathBuf,
    store: Option<String>,
    runner: Runner,
) -> Result<(), CliError> {
    let mut globals = vec![
        "--json".to_owned(),
        "--color=never".to_owned(),
        format!("--workspace={}", workspace.display()),
        format!("--db={}", db.display()),
    ];
    if let Some(url) = store {
        globals.push(format!("--store={url}"));
    }
    crate::output::stderr(&format!(
        "rewind mcp: serving {} over stdio (MCP {})",
        workspace.display(),
        VERSIONS[0]
    ));
    let mut server = Server {
        runner,
        wire: Wire::new(),
        globals,
        version: None,
        elicitation: false,
        next_id: 1,
        cancelled: false,
    };
    while let Some(line) = server.wire.next_line()? {
        server.handle(&line)?;
        if server.wire.closed {
            break;
        }
    }
    Ok(())
}

impl Server {
    fn handle(&mut self, line: &[u8]) -> Result<(), CliError> {
        match wire::parse(line) {
            Incoming::Request { id, method, params } => {
                let reply = match self.answer(&id, &method, &params) {
                    Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
                    Err(f) => f.to_json(&id),
                };
                if std::mem::take(&mut self.cancelled) {
                    return Ok(());
                }
                self.wire.send(&reply)
            }
            // `notifications/initialized`, `notifications/cancelled` (of a request already
            // answered: requests run one at a time) and the rest need no answer.
            Incoming::Notification { .. } => Ok(()),
            Incoming::Response { id, .. } => {
                crate::output::warn(&format!("rewind mcp: a response to no request ({id})"));
                Ok(())
            }
            Incoming::Invalid { id, failure } => self.wire.send(&failure.to_json(&id)),
        }
    }

    /// The result of one request, or its error.
    fn answer(&mut self, id: &Value, method: &str, params: &Value) -> Result<Value, Failure> {
        if !matches!(params, Value::Object(_) | Value::Null) {
            return Err(Failure::param("params", "must be an object"));
        }
        match method {
            "initialize" => return self.initialize(params),
            "ping" => return Ok(json!({})),
            _ => {}
        }
        let known = matches!(
            method,
            "tools/list"
                | "tools/call"
                | "resources/list"
                | "resources/read"
                | "resources/templates/list"
        );
        if !known {
            return Err(Failure::new(
                wire::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            ));
        }
        if self.version.is_none() {
            return Err(Failure::new(
                wire::INVALID_REQUEST,
                format!("Invalid Request: {method} before initialize"),
            ));
        }
        match method {
            "tools/list" => Ok(json!({ "tools": catalogue::tools() })),
            "tools/call" => self.call_tool(id, params),
            "resources/list" => Ok(resources::list(self)),
            "resources/templates/list" => Ok(resources::templates()),
            _ => resources::read(self, params),
        }
    }

    /// `initialize`: agree on a revision (the client's when we speak it, else our newest) and
    /// note whether the client can ask its person (form elicitation).
    fn initialize(&mut self, params: &Value) -> Result<Value, Failure> {
        let asked = match params.get("protocolVersion") {
            Some(Value::String(v)) => v.as_str(),
            Some(_) => return Err(Failure::param("params.protocolVersion", "must be a string")),
            None => return Err(Failure::param("params.protocolVersion", "is required")),
        };
        let version = VERSIONS
            .iter()
            .copied()
            .find(|v| *v == asked)
            .unwrap_or(VERSIONS[0]);
        // `{}` (2025-06-18) means form; 2025-11-25 may name the modes, and URL mode alone is no
        // way to ask for a yes.
        self.elicitation = match params.pointer("/capabilities/elicitation") {
            Some(Value::Object(modes)) => modes.is_empty() || modes.contains_key("form"),
            _ => false,
        };
        self.version = Some(version);
        Ok(json!({
            "protocolVersion": version,
            "capabilities": {
                "tools": { "listChanged": false },
                "resources": { "listChanged": false, "subscribe": false },
            },
            "serverInfo": {
                "name": "rewind",
                "title": "rewind: checkpoints, rewinds and undo for agent sessions",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": "rewind records every turn of the agent sessions in this \
                workspace. Use list_turns, show_diff and preview_rewind freely: they only read. \
                apply_rewind, undo_rewind and a restoring fork_session rewrite files on disk: \
                call them only when the person asked for that rewind, after showing them the \
                preview.",
        }))
    }

    /// `tools/call`: a tool's result (a failing tool is a result with `isError`, so the model
    /// reads why); an unknown tool or malformed params are protocol errors.
    fn call_tool(&mut self, id: &Value, params: &Value) -> Result<Value, Failure> {
        let name = match params.get("name") {
            Some(Value::String(n)) => n.clone(),
            Some(_) => return Err(Failure::param("params.name", "must be a string")),
            None => return Err(Failure::param("params.name", "is required")),
        };
        if !catalogue::known(&name) {
            return Err(Failure::param(
                "params.name",
                format!("is not a tool of this server: {name:?} (see tools/list)"),
            ));
        }
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => json!({}),
            Some(a @ Value::Object(_)) => a.clone(),
            Some(_) => return Err(Failure::param("params.arguments", "must be an object")),
        };
        Ok(call::call(self, id, &name, &arguments).to_result())
    }

    /// Run one CLI command (`argv` after `rewind` and the global options).
    pub(crate) fn command(&self, argv: &[String]) -> Result<Ran, CliError> {
        let mut words = self.globals.clone();
        words.extend(argv.iter().cloned());
        (self.runner)(&words)
    }
}
