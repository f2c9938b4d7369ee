//! Errors as real JS `Error`s: `name` `RewindError`, a stable `code` (the core's `ErrorKind`
//! wire word) and, when a host callback threw, the thrown value as `cause`.

use rewind_core::ErrorKind;
use wasm_bindgen::JsValue;

/// A failure on its way to JS. A crate-local type because the orphan rule forbids
/// `From<core error> for JsValue`.
#[derive(Debug)]
pub(crate) struct JsErr {
    code: ErrorKind,
    message: String,
    cause: Option<JsValue>,
}

impl JsErr {
    pub(crate) fn new(code: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            cause: None,
        }
    }
    /// `invalid_input`.
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
    /// A conversion of a result failed: a bug, reported as `corrupt` data rather than a panic.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Corrupt, message)
    }
    /// Attach what a host callback threw.
    #[must_use]
    pub(crate) fn with_cause(mut self, cause: Option<JsValue>) -> Self {
        self.cause = cause;
        self
    }
}

impl From<JsErr> for JsValue {
    fn from(e: JsErr) -> Self {
        let err = js_sys::Error::new(&e.message);
        err.set_name("RewindError");
        let set = |k: &str, v: &Self| {
            // Setting a property on a fresh Error object cannot fail.
            let _ = js_sys::Reflect::set(&err, &Self::from_str(k), v);
        };
        set("code", &Self::from_str(e.code.as_str()));
        if let Some(cause) = &e.cause {
            set("cause", cause);
        }
        err.into()
    }
}
