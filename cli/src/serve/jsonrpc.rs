//! JSON-RPC 2.0 framing (<https://www.jsonrpc.org/specification>), apart from any transport:
//! one text in (a request, a notification or a batch), at most one text out. Requests are
//! checked here (shape, method name, how many arguments); running one is the caller's
//! [`Run`], so stdio and HTTP share every rule.
//!
//! Errors: the spec's codes for the protocol (`-32700` parse error, `-32600` invalid request,
//! `-32601` method not found, `-32602` invalid params) and [`ENGINE`] for everything the engine
//! or the server refused; every error object carries the stable rewind code in `data.code`
//! (`invalid_input` for the protocol's own), so a client need only read that.

use rewind_core::ErrorKind;
use rewind_host::rpc::{self, RpcError};
use serde_json::{Map, Value, json};

/// The JSON-RPC "server error" code of every failure the engine or the server reports; what
/// failed is `data.code`.
pub(crate) const ENGINE: i64 = -32000;
const PARSE: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// One checked call: the method (one of `rpc::METHODS`), its positional arguments, and the
/// workspace the request named (the `workspace` member, a rewind extension).
#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(crate) method: &'a str,
    pub(crate) params: Value,
    pub(crate) workspace: Option<&'a str>,
}

/// What runs a checked call.
pub(crate) type Run<'r> = dyn Fn(Call<'_>) -> Result<Value, RpcError> + Sync + 'r;

/// A failure as a JSON-RPC error object.
struct Failure {
    code: i64,
    message: String,
    kind: &'static str,
}

impl Failure {
    fn protocol(code: i64, phrase: &str, detail: impl std::fmt::Display) -> Self {
        Self {
            code,
            message: format!("{phrase}: {detail}"),
            kind: ErrorKind::InvalidInput.as_str(),
        }
    }
    fn engine(e: RpcError) -> Self {
        Self {
            code: ENGINE,
            message: e.message,
            kind: e.code,
        }
    }
    fn to_json(&self, id: Value) -> Value {
        json!({
            "jsonrpc": "2.0",
            "error": { "code": self.code, "message": self.message, "data": { "code": self.kind } },
            "id": id,
        })
    }
}

/// Handle one text as it came (an HTTP body, a stdin line): `None` when nothing is to be sent
/// back (notifications only). Bytes that are not UTF-8 are a parse error.
pub(crate) fn handle_bytes(body: &[u8], run: &Run<'_>) -> Option<String> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            let f = Failure::protocol(PARSE, "Parse error", e);
            return Some(f.to_json(Value::Null).to_string());
        }
    };
    handle_value(value, run).map(|v| v.to_string())
}

/// A parsed document: one request, or a batch (answered as an array, in order, without the
/// notifications' entries; an empty batch is one invalid request).
fn handle_value(value: Value, run: &Run<'_>) -> Option<Value> {
    match value {
        Value::Array(items) if items.is_empty() => Some(
            Failure::protocol(INVALID_REQUEST, "Invalid Request", "an empty batch")
                .to_json(Value::Null),
        ),
        Value::Array(items) => {
            let out: Vec<Value> = items.into_iter().filter_map(|r| one(r, run)).collect();
            (!out.is_empty()).then_some(Value::Array(out))
        }
        request => one(request, run),
    }
}

/// One request object; `None` for a notification (no `id` member), whatever its outcome.
fn one(request: Value, run: &Run<'_>) -> Option<Value> {
    let Value::Object(mut o) = request else {
        return Some(
            Failure::protocol(INVALID_REQUEST, "Invalid Request", "not an object")
                .to_json(Value::Null),
        );
    };
    // The id, if it is one: an invalid request is answered with it, or with null when it
    // cannot be read (as the spec's examples do).
    let id = match o.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id),
        Some(_) => {
            return Some(
                Failure::protocol(
                    INVALID_REQUEST,
                    "Invalid Request",
                    "id must be a string, a number or null",
                )
                .to_json(Value::Null),
            );
        }
    };
    let outcome = match checked(&mut o) {
        Ok(call) => run(call).map_err(Failure::engine),
        // A request that is not even well-formed is answered even without an id: the sender
        // cannot have meant it as a notification it expects to work.
        Err(f) if f.code == INVALID_REQUEST => return Some(f.to_json(id.unwrap_or(Value::Null))),
        Err(f) => Err(f),
    };
    let id = id?;
    Some(match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "result": result, "id": id }),
        Err(f) => f.to_json(id),
    })
}

/// The request's members, checked: `jsonrpc` is "2.0", `method` one of ours, `params` an
/// array of at most the method's arguments (or absent), `workspace` a string (or absent).
fn checked(o: &mut Map<String, Value>) -> Result<Call<'_>, Failure> {
    let invalid = |detail: &str| Failure::protocol(INVALID_REQUEST, "Invalid Request", detail);
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("jsonrpc must be \"2.0\""));
    }
    // Taken out first; checked once the method is known (an unknown method is "Method not
    // found" whatever its params, as in the spec's examples).
    let params = o.remove("params");
    let workspace = match o.get("workspace") {
        None | Some(Value::Null) => None,
        Some(Value::String(w)) => Some(w.as_str()),
        Some(_) => return Err(invalid("workspace must be a string (a directory path)")),
    };
    let method = match o.get("method") {
        Some(Value::String(m)) => m.as_str(),
        _ => return Err(invalid("method must be a string")),
    };
    let Some(shape) = rpc::params_of(method) else {
        return Err(Failure::protocol(
            METHOD_NOT_FOUND,
            "Method not found",
            format!("{method:?} is not a rewind method"),
        ));
    };
    let params = match params {
        None | Some(Value::Null) => Value::Array(Vec::new()),
        Some(p @ Value::Array(_)) => p,
        Some(Value::Object(_)) => {
            return Err(Failure::protocol(
                INVALID_PARAMS,
                "Invalid params",
                "params must be the array of the method's positional arguments, not an object",
            ));
        }
        Some(_) => return Err(invalid("params must be an array")),
    };
    // More arguments than the method reads is a caller with the wrong method or shape; a
    // trailing null is JS `undefined` and fine (as in `rpc::call`).
    let given = params.as_array().map_or(0, |a| {
        a.iter().rposition(|v| !v.is_null()).map_or(0, |i| i + 1)
    });
    if given > shape.arity() {
        return Err(Failure::protocol(
            INVALID_PARAMS,
            "Invalid params",
            format!(
                "{method} takes {} argument(s), {given} given",
                shape.arity()
            ),
        ));
    }
    Ok(Call {
        method,
        params,
        workspace,
    })
}
