//! Values across the boundary: plain objects in and out through serde (the core types' own serde
//! forms, so the JS API, the CLI's `--json` and the JSON scenarios share one vocabulary), and
//! `Uint8Array` for bytes.

use crate::error::JsErr;
use js_sys::Uint8Array;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};

/// A Rust value as a plain JS object (`null` for `None`, objects rather than `Map`s, numbers).
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsErr> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsErr::internal(format!("the result could not be converted: {e}")))
}

/// JS options as a JSON value; `undefined`/`null` is `{}`. Going through `serde_json::Value`
/// means the options are read by exactly the deserialisers the JSON dispatcher uses.
pub(crate) fn to_json(value: &JsValue, what: &str) -> Result<serde_json::Value, JsErr> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    if !value.is_object() || value.is_instance_of::<Uint8Array>() || js_sys::Array::is_array(value)
    {
        return Err(JsErr::input(format!(
            "{what} must be an options object, not {}",
            type_name(value)
        )));
    }
    serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| JsErr::input(format!("{what} is not plain data: {e}")))
}

/// JS options as a core options type; unknown fields and wrong types are `invalid_input`.
pub(crate) fn options<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsErr> {
    let json = to_json(value, what)?;
    serde_json::from_value(json).map_err(|e| JsErr::input(format!("{what}: {e}")))
}

/// A string argument (ids), as `invalid_input` when it is not a string.
pub(crate) fn string(value: &JsValue, what: &str) -> Result<String, JsErr> {
    value
        .as_string()
        .ok_or_else(|| JsErr::input(format!("{what} must be a string, not {}", type_name(value))))
}

/// `Uint8Array` → bytes, `null`/`undefined` → absent; anything else → `None`.
pub(crate) fn opt_bytes(value: &JsValue) -> Option<Option<Vec<u8>>> {
    if value.is_null() || value.is_undefined() {
        return Some(None);
    }
    value.dyn_ref::<Uint8Array>().map(|a| Some(a.to_vec()))
}

/// A short name of a JS value's type, for messages.
pub(crate) fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        return "null".into();
    }
    if js_sys::Array::is_array(value) {
        return "an array".into();
    }
    if value.is_instance_of::<Uint8Array>() {
        return "a Uint8Array".into();
    }
    match value.js_typeof().as_string().as_deref() {
        Some("object") => "an object".into(),
        Some(
            t @ ("undefined" | "string" | "number" | "boolean" | "bigint" | "symbol" | "function"),
        ) => format!("a {t}").replace("a undefined", "undefined"),
        _ => "a value of unknown type".into(),
    }
}
