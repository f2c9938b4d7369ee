//! The session argument and the target options of every method accept what the CLI accepts
//! (`#N`, `@`, `@-N`, unique id prefixes) through the core's one resolver
//! ([`rewind_core::refs`]), as the Node addon and JSON-RPC do.

use super::{Engine, Inner};
use crate::convert::{string, to_json};
use crate::error::JsErr;
use rewind_core::Coded;
use rewind_core::id::SessionId;
use rewind_core::ports::Store;
use rewind_core::refs;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

impl Engine {
    fn store(&self) -> &dyn Store {
        match &self.inner {
            Inner::Memory(e) => e.store(),
            Inner::Store(e) => e.store(),
        }
    }

    /// Run a lookup; its error carries what a store callback threw.
    fn resolving<T>(
        &self,
        f: impl FnOnce(&dyn Store) -> Result<T, refs::Error>,
    ) -> Result<T, JsErr> {
        self.thrown.clear();
        f(self.store())
            .map_err(|e| JsErr::new(e.code(), e.to_string()).with_cause(self.thrown.take()))
    }

    /// The session argument of `verb`: a whole id or a unique prefix of one that exists.
    pub(super) fn session(&self, v: &JsValue, verb: &str) -> Result<SessionId, JsErr> {
        let typed = string(v, "sessionId")?;
        self.resolving(|store| refs::resolve_session(store, &typed, verb))
    }

    /// `verb`'s options, its targets resolved to whole ids, as the core options type.
    pub(super) fn target_options<T: DeserializeOwned>(
        &self,
        session: &SessionId,
        verb: &str,
        opts: &JsValue,
        what: &str,
    ) -> Result<T, JsErr> {
        let mut json = to_json(opts, what)?;
        self.resolving(|store| refs::resolve_options(store, session, verb, &mut json))?;
        serde_json::from_value(json).map_err(|e| JsErr::input(format!("{what}: {e}")))
    }
}
