//! The JavaScript hosts: duck-typed `extern "C"` bindings for the workspace and store objects a
//! caller passes in, and the Rust ports (`Workspace`, `Scan`, `Store`, `StoreWrite`, `Clock`,
//! `IdSource`) implemented over them.
//!
//! A callback that throws becomes a `HostError` (strings only, as the core wants), and the thrown
//! value itself is kept in a shared [`Thrown`] slot so the error the call finally throws to JS
//! carries it as `cause`.

mod dirs;
mod memory;
mod scan;
mod store;

pub(crate) use memory::EmittingStore;
pub(crate) use store::JsStore;

use crate::convert;
use js_sys::Uint8Array;
use rewind_core::error::{HostError, HostErrorKind};
use rewind_core::model::Millis;
use rewind_core::path::WorkPath;
use rewind_core::ports::{Clock, IdSource, Scan, ScanEntry, Workspace};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `{ read(path), write(path, bytes), remove(path) }`, optionally `mode`, `setMode`, `list`,
    /// `stat`, `makeDir`, `removeDir` and `dirEntries`.
    #[wasm_bindgen(typescript_type = "WorkspaceHost")]
    #[derive(Clone, Debug)]
    pub type WorkspaceHost;

    #[wasm_bindgen(structural, method, catch)]
    fn read(this: &WorkspaceHost, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn write(this: &WorkspaceHost, path: &str, bytes: &Uint8Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn remove(this: &WorkspaceHost, path: &str) -> Result<JsValue, JsValue>;

    /// The Store/StoreWrite ports as a JS object.
    #[wasm_bindgen(typescript_type = "StoreHost")]
    #[derive(Clone, Debug)]
    pub type StoreHost;

    #[wasm_bindgen(structural, method, catch)]
    fn session(this: &StoreHost, id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn sessions(this: &StoreHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn messages(this: &StoreHost, session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn turn(this: &StoreHost, session_id: &str, turn_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn turns(this: &StoreHost, session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn checkpoints(this: &StoreHost, session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn operations(this: &StoreHost, session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn journals(this: &StoreHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn blob(this: &StoreHost, hash: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn blobs(this: &StoreHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch, js_name = lastSeq)]
    fn last_seq(this: &StoreHost, session_id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch, js_name = commandFact)]
    fn command_fact(
        this: &StoreHost,
        parent_id: &str,
        command_id: &str,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn version(this: &StoreHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(structural, method, catch)]
    fn commit(this: &StoreHost, batch: &Uint8Array) -> Result<JsValue, JsValue>;
}

/// Check that `host` has every named method, before any call relies on it.
pub(crate) fn require_methods(host: &JsValue, what: &str, names: &[&str]) -> Result<(), String> {
    if !host.is_object() {
        return Err(format!("{what} must be an object"));
    }
    for name in names {
        let f = js_sys::Reflect::get(host, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        if !f.is_function() {
            return Err(format!("{what}.{name} must be a function"));
        }
    }
    Ok(())
}

/// The method names of a [`WorkspaceHost`].
pub(crate) const WORKSPACE_METHODS: &[&str] = &["read", "write", "remove"];
/// The method names of a [`StoreHost`].
pub(crate) const STORE_METHODS: &[&str] = &[
    "session",
    "sessions",
    "messages",
    "turn",
    "turns",
    "checkpoints",
    "operations",
    "journals",
    "blob",
    "blobs",
    "lastSeq",
    "commandFact",
    "version",
    "commit",
];

/// The first value a host callback threw during the current call (the original failure; a
/// rollback that fails afterwards does not replace it). Shared by the hosts of one engine.
#[derive(Clone, Debug, Default)]
pub(crate) struct Thrown(Rc<RefCell<Option<JsValue>>>);

impl Thrown {
    /// Forget what an earlier call left.
    pub(crate) fn clear(&self) {
        self.0.borrow_mut().take();
    }
    /// Take the kept exception.
    pub(crate) fn take(&self) -> Option<JsValue> {
        self.0.borrow_mut().take()
    }
    /// Keep `e` (unless an earlier one is kept) and turn it into a `HostError` with its message.
    /// A thrown `code` of `conflict`, `corrupt` or `invalid_path` keeps its meaning.
    fn host_error(&self, e: JsValue) -> HostError {
        let kind = match js_code(&e).as_deref() {
            Some("conflict") => HostErrorKind::PreconditionFailed,
            Some("corrupt") => HostErrorKind::Corrupt,
            Some("invalid_path") => HostErrorKind::InvalidPath,
            _ => HostErrorKind::Io,
        };
        let message = describe(&e);
        let mut slot = self.0.borrow_mut();
        if slot.is_none() {
            *slot = Some(e);
        }
        HostError::new(kind, message)
    }
    /// A host returned something of the wrong shape: a host error without a thrown value.
    fn bad_shape(what: &str, expected: &str, got: &JsValue) -> HostError {
        HostError::io(format!(
            "{what} returned {}, expected {expected}",
            convert::type_name(got)
        ))
    }
}

/// `e.code` when the thrown value is an object with a string `code`.
fn js_code(e: &JsValue) -> Option<String> {
    if !e.is_object() {
        return None;
    }
    js_sys::Reflect::get(e, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string())
}

/// A readable message for a thrown value: `Error.message`, or the value as a string.
fn describe(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    if let Some(s) = e.as_string() {
        return s;
    }
    js_sys::JSON::stringify(e)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| "a host callback threw a value that is not an Error".to_owned())
}

/// The workspace port over a JS object.
#[derive(Debug)]
pub(crate) struct JsWorkspace {
    host: WorkspaceHost,
    thrown: Thrown,
    /// For a host with `list` but no `stat`: one listing, by path, answering the `stat` calls
    /// of one snapshot (see `scan`).
    stat_index: Option<HashMap<WorkPath, ScanEntry>>,
}

impl JsWorkspace {
    pub(crate) fn new(host: WorkspaceHost, thrown: Thrown) -> Self {
        Self {
            host,
            thrown,
            stat_index: None,
        }
    }
}

impl Workspace for JsWorkspace {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        let v = self
            .host
            .read(path.as_str())
            .map_err(|e| self.thrown.host_error(e))?;
        convert::opt_bytes(&v)
            .ok_or_else(|| Thrown::bad_shape("workspace.read", "a Uint8Array or null", &v))
    }

    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        // A copy: the host may keep the array, and a view into wasm memory would change under it.
        let array = Uint8Array::from(bytes);
        self.host
            .write(path.as_str(), &array)
            .map_err(|e| self.thrown.host_error(e))?;
        Ok(())
    }

    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.host
            .remove(path.as_str())
            .map_err(|e| self.thrown.host_error(e))?;
        Ok(())
    }

    /// The host's optional `mode(path)`: a number, or null/undefined for none.
    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        let Some(f) = self.optional("mode") else {
            return Ok(None);
        };
        let v = f
            .call1(&self.host, &JsValue::from_str(path.as_str()))
            .map_err(|e| self.thrown.host_error(e))?;
        if v.is_null() || v.is_undefined() {
            return Ok(None);
        }
        v.as_f64()
            .filter(|n| n.fract() == 0.0 && (0.0..=f64::from(0o7777)).contains(n))
            .map(|n| Some(n as u32))
            .ok_or_else(|| Thrown::bad_shape("workspace.mode", "a mode number or null", &v))
    }

    /// The host's optional `setMode(path, mode)`; without one, modes are left to the host.
    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        let Some(f) = self.optional("setMode") else {
            return Ok(());
        };
        f.call2(
            &self.host,
            &JsValue::from_str(path.as_str()),
            &JsValue::from(mode),
        )
        .map_err(|e| self.thrown.host_error(e))?;
        Ok(())
    }

    fn node(&mut self, path: &WorkPath) -> Result<Option<rewind_core::node::Node>, HostError> {
        self.node_at(path)
    }

    fn make_dir(&mut self, path: &WorkPath, mode: Option<u32>) -> Result<(), HostError> {
        self.make_dir_at(path, mode)
    }

    fn remove_dir(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.remove_dir_at(path)
    }

    fn dir_entries(&mut self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        self.entries_at(path)
    }

    /// Shell capture needs the host's optional `list()`; without it there is no scanner and
    /// a snapshot is `unavailable`.
    fn scanner(&mut self) -> Option<&mut dyn Scan> {
        match self.can_scan() {
            true => Some(self),
            false => None,
        }
    }
}

impl JsWorkspace {
    /// A method the host may leave out (`mode`, `setMode`, `list`, `stat`, `makeDir`, …).
    fn optional(&self, name: &str) -> Option<js_sys::Function> {
        js_sys::Reflect::get(&self.host, &JsValue::from_str(name))
            .ok()
            .filter(JsValue::is_function)
            .map(JsCast::unchecked_into)
    }
}

/// `Date.now()`.
#[derive(Debug, Default)]
pub(crate) struct JsClock;

impl Clock for JsClock {
    fn now_ms(&self) -> Millis {
        // Whole milliseconds; Date.now() is an integer-valued double far below 2^53.
        #[allow(clippy::cast_possible_truncation)]
        let ms = js_sys::Date::now() as Millis;
        ms
    }
}

/// Random id suffixes: UUID v4 from `crypto.getRandomValues`, as 32 hex digits.
#[derive(Debug, Default)]
pub(crate) struct CryptoIds;

impl IdSource for CryptoIds {
    fn next_suffix(&mut self) -> String {
        uuid::Uuid::new_v4().simple().to_string()
    }
}
