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
//! (one idle connection kept open makes that possible: see `NativeEngine::keeper`).
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
use rewind_host::{OpenOptions, config::Config, default_db_path, open_with, rpc};
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
    workspace: PathBuf,
    db: PathBuf,
    closed: bool,
    /// An idle connection to the store, held from the first call that opened it for writing
    /// until `close()`. SQLite checkpoints the WAL and fsyncs the database whenever the last
    /// connection to it closes, which with a connection per call made every recording call
    /// take ~20 ms instead of ~1 ms; while this one is open no call's connection is the last.
    /// It never reads or writes, so it holds no lock that could block the CLI.
    keeper: Option<rewind_host::SqliteStore>,
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
            Some(db) => absolute(Path::new(&db))?,
            None => default_db_path(&workspace),
        };
        let engine = Self {
            workspace,
            db,
            closed: false,
            keeper: None,
        };
        engine.opened(rewind_host::Access::Read)?;
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
        let access = rpc::access(&method, &params).map_err(|e| js_error(e.code, e.message))?;
        let mut engine = self.opened(access)?.engine;
        if self.keeper.is_none() && access != rewind_host::Access::Read {
            // Only a speed-up (see `keeper`): a failure to open it changes nothing else.
            self.keeper = rewind_host::SqliteStore::open(&self.db).ok();
        }
        let value =
            rpc::call(&mut engine, &method, params).map_err(|e| js_error(e.code, e.message))?;
        Ok(value.to_string())
    }

    /// Refuse further calls and let go of the idle connection (the store itself is closed
    /// after every call already). Closing twice is fine.
    #[napi]
    pub fn close(&mut self) {
        self.closed = true;
        self.keeper = None;
    }

    /// The workspace directory (absolute).
    #[napi(getter)]
    pub fn workspace(&self) -> String {
        self.workspace.display().to_string()
    }

    /// The database file (absolute).
    #[napi(getter)]
    pub fn db(&self) -> String {
        self.db.display().to_string()
    }
}

impl NativeEngine {
    /// Open as the CLI does: `config.json` beside the database, then `open_with`. What opening
    /// settled or found stuck is left to `recover()`, which reports it.
    fn opened(&self, access: rewind_host::Access) -> Result<rewind_host::Opened, Error<String>> {
        let config =
            Config::load(&self.db).map_err(|e| js_error(e.error_kind().as_str(), e.to_string()))?;
        open_with(&self.workspace, &self.db, OpenOptions { access, config })
            .map_err(|e| js_error(e.kind().as_str(), e.to_string()))
    }
}

/// The method names `call` takes, in the dispatcher's order: the JS wrapper defines one
/// method per name, and the tests compare the list with the wasm declarations.
#[napi]
pub fn methods() -> Vec<String> {
    rpc::METHODS.iter().map(|(m, _)| (*m).to_owned()).collect()
}
