//! # rewind-wasm
//!
//! rewind for JavaScript, in Node and in browsers: the [`rewind_core`] engine behind
//! wasm-bindgen. One `Engine` class with one camelCase method per verb; plain objects in and
//! out, `Uint8Array` for bytes, full TypeScript declarations, and errors that are real JS
//! `Error`s with a stable `code` (and, when a host callback threw, that exception as `cause`).
//!
//! The hosts are JS objects: the workspace `{ read, write, remove }` (optionally `mode`,
//! `setMode`, and `list`/`stat` for shell capture), and either an in-memory
//! store whose committed batches go to `onCommit(bytes)` (persist them, replay them with
//! `Engine.fromLog`; or persist `engine.snapshot()` plus the batches after it and reload with
//! `Engine.fromSnapshot`), or a JS store object mirroring the core's `Store`/`StoreWrite` ports
//! (with optional range-read callbacks, and `workspaceSnapshot` for shell capture).
//! Time is `Date.now()`; ids are random from `crypto.getRandomValues`.
//!
//! ## What this crate does not do
//!
//! It touches no file and no database of its own: every byte goes through the JS hosts it is
//! given, and durability is the host's (`onCommit`, a store object, or `rewind-wasm/persist`'s
//! IndexedDB). It is not meant to be used from Rust.
//!
//! ## Which crate instead
//!
//! For a Node program that should share its store with the `rewind` CLI (SQLite, real files,
//! the same locks and recovery), use `rewind-node`; from Rust, `rewind-host` (native) or
//! `rewind-core` (the engine alone). The JS guide: `docs/js.md`; the package's README:
//! `wasm/js/README.md`.
//!
//! Module map: [`engine`] (the class), `host` (the JS hosts as core ports), `convert` (serde
//! across the boundary), `error` (`RewindError`), `types` (the TypeScript declarations).

pub mod engine;

mod convert;
mod error;
mod host;
mod types;

pub use engine::Engine;

/// Rust-side access to the JS hosts, for this crate's contract tests (`tests/`); not part of
/// the JS API and not exported to JS.
#[doc(hidden)]
pub mod testing {
    use wasm_bindgen::JsCast as _;

    /// A JS store object as the core's store port, exactly as `new Engine({ store })` uses it.
    pub fn js_store(host: wasm_bindgen::JsValue) -> impl rewind_core::ports::StoreWrite {
        crate::host::JsStore::new(host.unchecked_into(), crate::host::Thrown::default())
    }
}

/// Panics print their message to `console.error` instead of a bare `unreachable`. A panic
/// aborts the call; the engine it happened in is unusable afterwards (its methods then throw).
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}
