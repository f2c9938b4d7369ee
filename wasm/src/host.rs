//! The JavaScript hosts: duck-typed `extern "C"` bindings for the workspace and store objects a
//! caller passes in, and the Rust ports (`Workspace`, `Store`, `StoreWrite`, `Clock`, `IdSource`)
//! implemented over them.
//!
//! A callback that throws becomes a `HostError` (strings only, as the core wants), and the thrown
//! value itself is kept in a shared [`Thrown`] slot so the error the call finally throws to JS
//! carries it as `cause`.

use crate::convert;
use js_sys::{Function, Uint8Array};
use rewind_core::batch::Batch;
use rewind_core::error::{HostError, HostErrorKind};
use rewind_core::hash::ContentHash;
use rewind_core::id::{CommandId, SessionId, TurnId};
use rewind_core::model::Millis;
use rewind_core::path::WorkPath;
use rewind_core::ports::{BlobInfo, Clock, IdSource, Row, Store, StoreWrite, Workspace};
use rewind_core::testkit::MemStore;
use serde::Deserialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `{ read(path), write(path, bytes), remove(path) }`.
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
}

impl JsWorkspace {
    pub(crate) fn new(host: WorkspaceHost, thrown: Thrown) -> Self {
        Self { host, thrown }
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
}

impl JsWorkspace {
    /// A method the host may leave out (`mode`, `setMode`).
    fn optional(&self, name: &str) -> Option<js_sys::Function> {
        js_sys::Reflect::get(&self.host, &JsValue::from_str(name))
            .ok()
            .filter(JsValue::is_function)
            .map(JsCast::unchecked_into)
    }
}

/// A row as a JS store returns it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowIn {
    id: String,
    seq: u64,
    body: String,
}

impl From<RowIn> for Row {
    fn from(r: RowIn) -> Self {
        Self {
            id: r.id,
            seq: r.seq,
            body: r.body,
        }
    }
}

/// A blob entry as a JS store returns it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BlobIn {
    hash: String,
    size: u64,
    stored: u64,
}

/// The store ports over a JS object.
#[derive(Debug)]
pub(crate) struct JsStore {
    host: StoreHost,
    thrown: Thrown,
}

impl JsStore {
    pub(crate) fn new(host: StoreHost, thrown: Thrown) -> Self {
        Self { host, thrown }
    }

    fn call(
        &self,
        f: impl FnOnce(&StoreHost) -> Result<JsValue, JsValue>,
    ) -> Result<JsValue, HostError> {
        f(&self.host).map_err(|e| self.thrown.host_error(e))
    }

    fn decode<T: serde::de::DeserializeOwned>(
        what: &str,
        expected: &str,
        v: &JsValue,
    ) -> Result<T, HostError> {
        serde_wasm_bindgen::from_value(v.clone()).map_err(|e| {
            HostError::io(format!(
                "{what} returned {expected} of the wrong shape: {e}"
            ))
        })
    }

    fn row(&self, what: &str, v: &JsValue) -> Result<Option<Row>, HostError> {
        let row: Option<RowIn> = Self::decode(what, "a row ({ id, seq, body }) or null", v)?;
        Ok(row.map(Row::from))
    }

    fn rows(&self, what: &str, v: &JsValue) -> Result<Vec<Row>, HostError> {
        let rows: Vec<RowIn> = Self::decode(what, "an array of rows ({ id, seq, body })", v)?;
        Ok(rows.into_iter().map(Row::from).collect())
    }
}

impl Store for JsStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        let v = self.call(|h| h.session(id.as_str()))?;
        self.row("store.session", &v)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        let v = self.call(StoreHost::sessions)?;
        self.rows("store.sessions", &v)
    }
    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.messages(session.as_str()))?;
        self.rows("store.messages", &v)
    }
    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        let v = self.call(|h| h.turn(session.as_str(), turn.as_str()))?;
        self.row("store.turn", &v)
    }
    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.turns(session.as_str()))?;
        self.rows("store.turns", &v)
    }
    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.checkpoints(session.as_str()))?;
        self.rows("store.checkpoints", &v)
    }
    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.operations(session.as_str()))?;
        self.rows("store.operations", &v)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        let v = self.call(StoreHost::journals)?;
        self.rows("store.journals", &v)
    }
    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        let v = self.call(|h| h.blob(hash.as_str()))?;
        convert::opt_bytes(&v)
            .ok_or_else(|| Thrown::bad_shape("store.blob", "a Uint8Array or null", &v))
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        let v = self.call(StoreHost::blobs)?;
        let list: Vec<BlobIn> =
            Self::decode("store.blobs", "an array of { hash, size, stored }", &v)?;
        list.into_iter()
            .map(|b| {
                let hash = ContentHash::parse(&b.hash).ok_or_else(|| {
                    HostError::new(
                        HostErrorKind::Corrupt,
                        format!(
                            "store.blobs returned {:?}, which is not a content hash",
                            b.hash
                        ),
                    )
                })?;
                Ok(BlobInfo {
                    hash,
                    size: b.size,
                    stored: b.stored,
                    base: None,
                })
            })
            .collect()
    }
    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        let v = self.call(|h| h.last_seq(session.as_str()))?;
        Self::decode("store.lastSeq", "a number", &v)
    }
    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError> {
        let v = self.call(|h| h.command_fact(parent.as_str(), command.as_str()))?;
        self.row("store.commandFact", &v)
    }
    fn version(&self) -> Result<u64, HostError> {
        let v = self.call(StoreHost::version)?;
        Self::decode("store.version", "a number", &v)
    }
}

impl StoreWrite for JsStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        let bytes = Uint8Array::from(batch.to_bytes().as_slice());
        self.call(|h| h.commit(&bytes))?;
        Ok(())
    }
}

/// `MemStore` that hands every committed batch to the host's `onCommit(bytes)`.
///
/// The batch is committed in memory before the callback runs, so the engine never sees a
/// half-committed state. If the callback throws, the commit still stands (the verb goes on and
/// completes), and the exception is kept in `hook_failed` so the call then throws `host_error`.
#[derive(Debug)]
pub(crate) struct EmittingStore {
    inner: MemStore,
    on_commit: Option<Function>,
    hook_failed: Thrown,
}

impl EmittingStore {
    pub(crate) fn new(inner: MemStore, on_commit: Option<Function>, hook_failed: Thrown) -> Self {
        Self {
            inner,
            on_commit,
            hook_failed,
        }
    }

    /// Every batch committed so far (including replayed ones), in order.
    pub(crate) fn committed(&self) -> &[Batch] {
        self.inner.committed()
    }
}

macro_rules! delegate_store {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Store for EmittingStore {
            $(fn $name(&self, $($arg: $ty),*) -> Result<$ret, HostError> { self.inner.$name($($arg),*) })*
        }
    };
}

delegate_store! {
    session(id: &SessionId) -> Option<Row>;
    sessions() -> Vec<Row>;
    messages(s: &SessionId) -> Vec<Row>;
    turn(s: &SessionId, t: &TurnId) -> Option<Row>;
    turns(s: &SessionId) -> Vec<Row>;
    checkpoints(s: &SessionId) -> Vec<Row>;
    operations(s: &SessionId) -> Vec<Row>;
    journals() -> Vec<Row>;
    blob(h: &ContentHash) -> Option<Vec<u8>>;
    blobs() -> Vec<BlobInfo>;
    last_seq(s: &SessionId) -> u64;
    command_fact(p: &SessionId, c: &CommandId) -> Option<Row>;
    version() -> u64;
}

impl StoreWrite for EmittingStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        self.inner.commit(batch)?;
        if let (Some(f), Some(done)) = (&self.on_commit, self.inner.committed().last()) {
            let bytes = Uint8Array::from(done.to_bytes().as_slice());
            if let Err(e) = f.call1(&JsValue::UNDEFINED, &bytes) {
                // Deliberately not an Err: the batch is committed and the engine must see that.
                let _ = self.hook_failed.host_error(e);
            }
        }
        Ok(())
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
