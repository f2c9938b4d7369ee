//! The in-memory constructors and the log/snapshot methods: how a host whose storage is
//! asynchronous (a browser) persists and reloads an engine.
//!
//! Persisting: `onCommit(batch)` hands over every committed batch, in order. From time to time
//! the host stores `engine.snapshot()` and drops the batches it had: every batch `onCommit`
//! delivers after `snapshot()` returned is the tail to keep with it. Reloading:
//! `Engine.fromSnapshot(snapshot, { workspace, batches: tail })` (or `Engine.fromLog(allBatches)`
//! without a snapshot), then `recover()`.

use super::{Engine, Inner, Result, flag, get, memory_options};
use crate::convert;
use crate::error::JsErr;
use js_sys::Uint8Array;
use rewind_core::mem::MemStore;
use rewind_core::{Coded, ErrorKind, replay};
use wasm_bindgen::prelude::*;

/// The batches of an iterable of `Uint8Array`, copied out of JS.
fn batches_of(batches: &JsValue, what: &str) -> Result<Vec<Vec<u8>>, JsErr> {
    let iter = js_sys::try_iter(batches)
        .ok()
        .flatten()
        .ok_or_else(|| JsErr::input(format!("{what} takes an iterable of Uint8Array batches")))?;
    let mut log = Vec::new();
    for (i, item) in iter.enumerate() {
        let item =
            item.map_err(|e| JsErr::input("iterating the batches threw").with_cause(Some(e)))?;
        let bytes = item.dyn_into::<Uint8Array>().map_err(|v| {
            JsErr::input(format!(
                "batch {i} of the log is {}, not a Uint8Array",
                convert::type_name(&v)
            ))
        })?;
        log.push(bytes.to_vec());
    }
    Ok(log)
}

impl Engine {
    /// Replay `log` into `store` and make the engine; a strict replay fails on a damaged batch.
    fn replayed(store: MemStore, log: &[Vec<u8>], opts: &JsValue, what: &str) -> Result<Self> {
        let strict = flag(opts, "strict")?;
        let mem = memory_options(opts, what)?;
        let mut store = store;
        if mem.keep_log {
            store.keep_log();
        }
        // The log's blobs were hashed when first committed and every read checks the hash.
        store.trust_blob_hashes(true);
        let report = replay::replay(&mut store, log, replay::Options { strict })
            .map_err(|e| JsErr::new(e.code(), e.to_string()))?;
        store.trust_blob_hashes(false);
        let mut engine = Self::new_memory(store, mem);
        engine.diagnostics = report.diagnostics;
        Ok(engine)
    }
}

#[wasm_bindgen]
impl Engine {
    /// An engine whose records live in memory; `onCommit(batch)` receives each committed batch.
    #[wasm_bindgen(js_name = inMemory)]
    pub fn in_memory(
        #[wasm_bindgen(unchecked_param_type = "MemoryEngineOptions")] opts: JsValue,
    ) -> Result<Self> {
        let opts = memory_options(&opts, "Engine.inMemory")?;
        Ok(Self::new_memory(MemStore::new(), opts))
    }

    /// An in-memory engine rebuilt from the batches an earlier one handed to `onCommit`.
    #[wasm_bindgen(js_name = fromLog)]
    pub fn from_log(
        #[wasm_bindgen(unchecked_param_type = "Iterable<Uint8Array>")] batches: JsValue,
        #[wasm_bindgen(unchecked_param_type = "MemoryEngineOptions")] opts: JsValue,
    ) -> Result<Self> {
        memory_options(&opts, "Engine.fromLog")?;
        let log = batches_of(&batches, "fromLog")?;
        Self::replayed(MemStore::new(), &log, &opts, "Engine.fromLog")
    }

    /// An in-memory engine loaded from `engine.snapshot()`, then the batches committed after
    /// that snapshot (`batches`, in order; replayed as `fromLog` does). A snapshot that is not
    /// one, or of a format this build does not read, is `invalid_input`; a damaged one is
    /// `corrupt`. Either way nothing is loaded.
    #[wasm_bindgen(js_name = fromSnapshot)]
    pub fn from_snapshot(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] snapshot: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SnapshotEngineOptions")] opts: JsValue,
    ) -> Result<Self> {
        let snapshot = snapshot.dyn_into::<Uint8Array>().map_err(|v| {
            JsErr::input(format!(
                "fromSnapshot takes the Uint8Array engine.snapshot() returned, not {}",
                convert::type_name(&v)
            ))
        })?;
        memory_options(&opts, "Engine.fromSnapshot")?;
        let tail = get(&opts, "batches");
        let log = match tail.is_undefined() || tail.is_null() {
            true => Vec::new(),
            false => batches_of(&tail, "fromSnapshot batches")?,
        };
        let store = MemStore::from_snapshot(&snapshot.to_vec())
            .map_err(|e| JsErr::new(e.code(), e.to_string()))?;
        Self::replayed(store, &log, &opts, "Engine.fromSnapshot")
    }

    /// The whole in-memory store as one compact byte string (versioned and checksummed), for
    /// `Engine.fromSnapshot`. Every batch `onCommit` receives after this returns comes after it.
    /// Engines over a JS store have none (`unavailable`).
    pub fn snapshot(&self) -> Result<Uint8Array> {
        match &self.inner {
            Inner::Memory(e) => Ok(Uint8Array::from(e.store().inner().snapshot().as_slice())),
            Inner::Store(_) => Err(JsErr::new(
                ErrorKind::Unavailable,
                "snapshot: this engine's records are in the JS store host",
            )
            .into()),
        }
    }

    /// What `Engine.fromLog` / `fromSnapshot` left out: one diagnostic per damaged batch (kind
    /// `batch`, id = its index in the log). Empty for a whole log and for the other constructors.
    #[wasm_bindgen(getter, unchecked_return_type = "Diagnostic[]")]
    pub fn diagnostics(&self) -> Result<JsValue> {
        Ok(convert::to_js(&self.diagnostics)?)
    }

    /// Every batch an in-memory engine made with `keepLog: true` committed (replayed and new;
    /// after a snapshot, the batches since it), in commit order. Without `keepLog` the engine
    /// keeps rows, not batches, and this is `unavailable`: persist `snapshot()` instead.
    #[wasm_bindgen(js_name = committedBatches, unchecked_return_type = "Uint8Array[]")]
    pub fn committed_batches(&self) -> Result<JsValue> {
        let unavailable = |why: &str| -> JsValue {
            JsErr::new(ErrorKind::Unavailable, format!("committedBatches: {why}")).into()
        };
        match &self.inner {
            Inner::Memory(e) if e.store().inner().keeps_log() => Ok(e
                .store()
                .inner()
                .committed()
                .iter()
                .map(|b| JsValue::from(Uint8Array::from(b.to_bytes().as_slice())))
                .collect::<js_sys::Array>()
                .into()),
            Inner::Memory(_) => Err(unavailable(
                "this engine keeps no batch log (pass keepLog: true, or persist engine.snapshot())",
            )),
            Inner::Store(_) => Err(unavailable(
                "this engine's records are in the JS store host",
            )),
        }
    }
}
