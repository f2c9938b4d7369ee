//! # rewind-node
//!
//! rewind for Node, durable: the native engine (the CLI's SQLite store at
//! `<workspace>/.rewind/rewind.db` and the real workspace directory) as a Node addon. One
//! class, `NativeEngine`, with one generic `call(method, paramsJson)` that runs
//! [`rewind_host::rpc::call`], the JSON dispatcher of the wasm `Engine`'s methods; the JS
//! package in `node/js/` wraps it in an `Engine` class with the wasm package's methods.
//!
//! Each call opens the store the way the CLI opens it for the same verb (`rpc::access`:
//! read-only for reads, recording, or under the apply lock for file-writing verbs), runs, and
//! closes it again. An engine kept open would hold the apply lock for its whole life once it
//! had opened for a rewrite (blocking every CLI `apply` meanwhile), would skip the dead-journal
//! recovery the CLI runs on each open, and would read `config.json` once; opening per call
//! keeps the addon and the CLI under exactly the same rules, for about a millisecond a call
//! (one idle connection kept open makes that possible: see `rewind_host::native::Opener`,
//! the one opener every front end uses).
//!
//! ## What this crate does not do
//!
//! It has no engine, store or rules of its own (all are `rewind-host`'s, so the addon and the
//! CLI cannot disagree), keeps no store open between calls, and compiles none of the CLI's front
//! ends. It is not meant to be used from Rust.
//!
//! ## Which crate instead
//!
//! For a browser, or Node without a store on disk, use `rewind-wasm` (the same methods and
//! types); from Rust, `rewind-host`; from the terminal, `rewind-cli`. The guide: `docs/node.md`.

use napi::bindgen_prelude::Error;
use napi_derive::napi;
use rewind_host::native::{Opener, Verb, locate};
use rewind_host::rpc;
use std::path::{Path, PathBuf};

/// An error for JS: `code` is the stable rewind code (`invalid_input`, `not_found`, …).
fn js_error(code: &str, message: impl Into<String>) -> Error<String> {
    Error::new(code.to_owned(), message.into())
}

/// `open`'s options.
#[napi(object)]
#[derive(Debug)]
pub struct OpenArgs {
    /// The database file (default `<workspace>/.rewind/rewind.db`, as the CLI's).
    pub db: Option<String>,
}

/// A workspace directory and its store, opened per call (see the crate docs).
#[napi]
#[derive(Debug)]
pub struct NativeEngine {
    /// The workspace and its store, with the idle connection held from the first call that
    /// opened it for writing until `close()`.
    opener: Opener,
    closed: bool,
}

/// A path made absolute against the current directory now, so a later `process.chdir` does not
/// move the store.
fn absolute(p: &Path) -> Result<PathBuf, Error<String>> {
    std::path::absolute(p).map_err(|e| {
        js_error(
            "invalid_input",
            format!("cannot resolve {}: {e}", p.display()),
        )
    })
}

#[napi]
impl NativeEngine {
    /// Open a workspace directory. Checks at once that it can be opened (the directory exists,
    /// a store there is readable) without creating anything: the store is made by the first
    /// call that records, as with the CLI.
    #[napi(factory)]
    pub fn open(workspace_dir: String, options: Option<OpenArgs>) -> Result<Self, Error<String>> {
        let workspace = absolute(Path::new(&workspace_dir))?;
        let db = match options.and_then(|o| o.db) {
            Some(db) => Some(absolute(Path::new(&db))?),
            None => None,
        };
        // The workspace is named outright; the store is found by the rule every front end uses.
        let at = locate(&workspace, Some(&workspace), db.as_deref());
        let engine = Self {
            opener: Opener::new(at.workspace, at.db).keeping_idle(),
            closed: false,
        };
        engine.opened(Verb::ListSessions)?;
        Ok(engine)
    }

    /// Run one method: `paramsJson` is the JSON array of its arguments, the result is JSON.
    #[napi]
    pub fn call(&mut self, method: String, params_json: String) -> Result<String, Error<String>> {
        if self.closed {
            return Err(js_error(
                "unavailable",
                format!("{method}: this engine is closed"),
            ));
        }
        let params: serde_json::Value = serde_json::from_str(&params_json).map_err(|e| {
            js_error(
                "invalid_input",
                format!("{method}: params are not JSON: {e}"),
            )
        })?;
        let verb = rpc::verb(&method, &params).map_err(|e| js_error(e.code, e.message))?;
        let mut engine = self.opened(verb)?.engine;
        let value =
            rpc::call(&mut engine, &method, params).map_err(|e| js_error(e.code, e.message))?;
        Ok(value.to_string())
    }

    /// Refuse further calls and let go of the idle connection (the store itself is closed
    /// after every call already). Closing twice is fine.
    #[napi]
    pub fn close(&mut self) {
        self.closed = true;
        self.opener.release();
    }

    /// The workspace directory (absolute).
    #[napi(getter)]
    pub fn workspace(&self) -> String {
        self.opener.workspace().display().to_string()
    }

    /// The database file (absolute).
    #[napi(getter)]
    pub fn db(&self) -> String {
        self.opener.db().display().to_string()
    }
}

impl NativeEngine {
    /// Open for `verb` as the CLI does (see `Opener::open`). What opening settled or found
    /// stuck is left to `recover()`, which reports it.
    fn opened(&self, verb: Verb) -> Result<rewind_host::Opened, Error<String>> {
        self.opener
            .open(verb.access())
            .map_err(|e| js_error(e.kind().as_str(), e.to_string()))
    }
}

/// The method names `call` takes, in the dispatcher's order: the JS wrapper defines one
/// method per name, and the tests compare the list with the wasm declarations.
#[napi]
pub fn methods() -> Vec<String> {
    rpc::METHODS.iter().map(|(m, _)| (*m).to_owned()).collect()
}
