//! The engine's maintenance methods: recovery, listings, storage statistics and gc.

use super::{Engine, GcOptionsArg, Inner, Result, SessionIdArg};
use crate::convert::options;
use wasm_bindgen::prelude::*;

/// `gc` options: the retention settings plus `dryRun`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct GcArgs {
    #[serde(default)]
    keep: Option<usize>,
    #[serde(default)]
    older_than_days: Option<u64>,
    #[serde(default)]
    older_than_ms: Option<u64>,
    #[serde(default)]
    dry_run: bool,
}

#[wasm_bindgen]
impl Engine {
    /// Settle the journals a crash left (one session's, or every session's without an id).
    #[wasm_bindgen(unchecked_return_type = "RecoverOutcome")]
    pub fn recover(
        &mut self,
        #[wasm_bindgen(js_name = sessionId)] session: Option<SessionIdArg>,
    ) -> Result<JsValue> {
        let s = match session {
            Some(v) => Some(self.session(&v.into(), "recover")?),
            None => None,
        };
        self.run(|i| with!(i, e => e.recover(s.as_ref())))
    }

    /// Every checkpoint of a session, with undone files marked.
    #[wasm_bindgen(unchecked_return_type = "CheckpointSummary[]")]
    pub fn checkpoints(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "checkpoints")?;
        self.run(|i| with!(i, e => e.checkpoints(&s)))
    }

    /// A session's operation log.
    #[wasm_bindgen(unchecked_return_type = "Operation[]")]
    pub fn operations(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "operations")?;
        self.run(|i| with!(i, e => e.operations(&s).map(|d| d.items)))
    }

    /// Retention then garbage collection: drop checkpoints past the newest `keep` (default 100)
    /// per session (the active branch's first) and sessions idle for `olderThanDays` or
    /// `olderThanMs` (default never; 0 is refused, under one hour counts as one hour, a running
    /// turn protects its session), then every blob nothing references. `dryRun` only plans.
    #[wasm_bindgen(unchecked_return_type = "GcOutcome")]
    pub fn gc(&mut self, opts: Option<GcOptionsArg>) -> Result<JsValue> {
        // Absent (`undefined` or `null`) reads as `{}`: every field has a default.
        let opts: JsValue = opts.map_or(JsValue::UNDEFINED, Into::into);
        let args: GcArgs = options(&opts, "gc options")?;
        let defaults = rewind_core::gc::Options::default();
        let o = rewind_core::gc::Options {
            keep: args.keep.unwrap_or(defaults.keep),
            older_than_days: args.older_than_days.or(defaults.older_than_days),
            older_than_ms: args.older_than_ms.or(defaults.older_than_ms),
        };
        self.run(|i| with!(i, e => e.gc(o, args.dry_run)))
    }

    /// Bytes recorded versus bytes stored.
    #[wasm_bindgen(unchecked_return_type = "StorageStats")]
    pub fn stats(&mut self) -> Result<JsValue> {
        self.run(|i| with!(i, e => e.stats()))
    }
}
