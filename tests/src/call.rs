//! `call(engine, "recordPrompt", {...})`: every verb by its JS name, with named arguments (the
//! JSON scenarios' form: `sessionId` beside the options), run by the host's JSON dispatcher
//! (`rewind_host::rpc`, which the Node addon uses too) after putting the arguments in the
//! positional order its methods take.

use rewind_core::ErrorKind;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::{Coded, Engine};
use rewind_host::rpc::{self, Params, RpcError};
use serde_json::{Map, Value, json};

/// A failed call: the stable code and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    /// `invalid_input`, `not_found`, …
    pub code: String,
    /// Readable message.
    pub message: String,
}

impl CallError {
    fn new(kind: ErrorKind, message: impl std::fmt::Display) -> Self {
        Self {
            code: kind.as_str().to_owned(),
            message: message.to_string(),
        }
    }
    fn input(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
}

impl From<RpcError> for CallError {
    fn from(e: RpcError) -> Self {
        Self {
            code: e.code.to_owned(),
            message: e.message,
        }
    }
}

/// Bytes in JSON: a UTF-8 string, `{"base64": "..."}`, or `null` for an absent file.
pub fn bytes(v: &Value) -> Result<Option<Vec<u8>>, CallError> {
    rpc::bytes(v).map_err(CallError::from)
}

/// Run one verb by its JS name.
pub fn call<S: StoreWrite, W: Workspace>(
    engine: &mut Engine<S, W>,
    name: &str,
    args: Value,
) -> Result<Value, CallError> {
    let mut args = match args {
        Value::Object(o) => o,
        Value::Null => Map::new(),
        _ => return Err(CallError::input("arguments must be an object")),
    };
    if name == "replayLog" {
        return replay_log(args);
    }
    let shape =
        rpc::params_of(name).ok_or_else(|| CallError::input(format!("unknown call {name:?}")))?;
    let session = args.remove("sessionId").unwrap_or(Value::Null);
    let params = match shape {
        Params::None => json!([]),
        Params::Options => json!([args]),
        Params::Session | Params::OptSession => json!([session]),
        Params::SessionOptions => json!([session, args]),
    };
    Ok(rpc::call(engine, name, params)?)
}

/// `Engine.fromLog` of the JS API, on any host: replay `batches` (each a string of the batch's
/// byte form or `{"base64": …}`) into a fresh memory store; the result lists what was left out
/// and the sessions that came back.
fn replay_log(mut args: Map<String, Value>) -> Result<Value, CallError> {
    let batches = match args.remove("batches") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|b| bytes(b)?.ok_or_else(|| CallError::input("a batch cannot be null")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(CallError::input("replayLog needs batches: [...]")),
    };
    let opts: rewind_core::replay::Options =
        serde_json::from_value(Value::Object(args)).map_err(CallError::input)?;
    let mut store = rewind_core::testkit::MemStore::new();
    let report = rewind_core::replay::replay(&mut store, &batches, opts)
        .map_err(|e| CallError::new(e.code(), &e))?;
    let sessions = rewind_core::load::sessions(&store).map_err(|e| CallError::new(e.kind(), &e))?;
    let ids: Vec<String> = sessions.items.iter().map(|s| s.id.to_string()).collect();
    Ok(json!({ "diagnostics": report.diagnostics, "sessions": ids }))
}
