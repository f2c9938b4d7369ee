//! Reading a call's positional arguments (a JSON array, as a JS method receives them) and the
//! JSON form of bytes.

use super::RpcError;
use base64::Engine as _;
use rewind_core::id::SessionId;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Bytes in JSON: a UTF-8 string, `{"base64": "..."}`, or `null` for an absent file.
pub fn bytes(v: &Value) -> Result<Option<Vec<u8>>, RpcError> {
    const SHAPE: &str = "bytes must be a string, {\"base64\": …} or null";
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone().into_bytes())),
        Value::Object(o) => match (o.get("base64").and_then(Value::as_str), o.len()) {
            (Some(b), 1) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map(Some)
                .map_err(|e| RpcError::input(format!("bad base64: {e}"))),
            _ => Err(RpcError::input(SHAPE)),
        },
        _ => Err(RpcError::input(SHAPE)),
    }
}

/// Bytes as JSON: always `{"base64": …}` (a string would not round-trip bytes that are not
/// UTF-8), `null` for none.
pub fn bytes_json(b: Option<&[u8]>) -> Value {
    match b {
        Some(b) => {
            let mut o = Map::new();
            o.insert(
                "base64".into(),
                Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
            );
            Value::Object(o)
        }
        None => Value::Null,
    }
}

/// The positional arguments of one call, taken in order. A missing argument and `null` are the
/// same (JS `undefined` becomes `null` in a JSON array), as in the wasm `Engine`.
#[derive(Debug)]
pub(super) struct Args {
    method: &'static str,
    items: std::vec::IntoIter<Value>,
}

impl Args {
    /// The arguments of `method`, which takes `arity` of them. More (that are not `null`) is
    /// `invalid_input`: a caller passing one the method does not read has the wrong method or
    /// the wrong shape, and nothing must run on a guess.
    pub(super) fn new(method: &'static str, params: Value, arity: usize) -> Result<Self, RpcError> {
        let items = match params {
            Value::Array(a) => a,
            Value::Null => Vec::new(),
            _ => {
                return Err(RpcError::input(format!(
                    "{method}: params must be an array of the method's arguments"
                )));
            }
        };
        if let Some(i) = items.iter().skip(arity).position(|v| !v.is_null()) {
            return Err(RpcError::input(format!(
                "{method} takes {arity} argument(s); argument {} is extra",
                arity + i + 1
            )));
        }
        Ok(Self {
            method,
            items: items.into_iter(),
        })
    }

    fn next(&mut self) -> Value {
        self.items.next().unwrap_or(Value::Null)
    }

    /// A required session id.
    pub(super) fn session(&mut self) -> Result<SessionId, RpcError> {
        match self.next() {
            Value::String(s) => SessionId::parse(&s).map_err(|e| RpcError::input(e.to_string())),
            v => Err(RpcError::input(format!(
                "{}: sessionId must be a string, not {}",
                self.method,
                type_name(&v)
            ))),
        }
    }

    /// An optional session id (`recover`).
    pub(super) fn opt_session(&mut self) -> Result<Option<SessionId>, RpcError> {
        match self.next() {
            Value::Null => Ok(None),
            Value::String(s) => SessionId::parse(&s)
                .map(Some)
                .map_err(|e| RpcError::input(e.to_string())),
            v => Err(RpcError::input(format!(
                "{}: sessionId must be a string, not {}",
                self.method,
                type_name(&v)
            ))),
        }
    }

    /// An options object as a map; `null` is `{}`.
    pub(super) fn object(&mut self) -> Result<Map<String, Value>, RpcError> {
        match self.next() {
            Value::Null => Ok(Map::new()),
            Value::Object(o) => Ok(o),
            v => Err(RpcError::input(format!(
                "{} options must be an options object, not {}",
                self.method,
                type_name(&v)
            ))),
        }
    }

    /// An options object as a core options type; unknown fields and wrong types are
    /// `invalid_input`.
    pub(super) fn options<T: DeserializeOwned>(&mut self) -> Result<T, RpcError> {
        let o = self.object()?;
        self.parse(o)
    }

    /// A map read as a core options type, with the method in the message.
    pub(super) fn parse<T: DeserializeOwned>(&self, o: Map<String, Value>) -> Result<T, RpcError> {
        serde_json::from_value(Value::Object(o))
            .map_err(|e| RpcError::input(format!("{} options: {e}", self.method)))
    }
}

/// A short name of a JSON value's type, for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
