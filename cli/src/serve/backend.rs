//! What a server may act on, and running one call there. A request names its workspace (the
//! `workspace` member, an absolute directory path); it is accepted only when, once every
//! symlink and `..` is resolved, it is one of the configured roots or lies inside one. A
//! refused request opens nothing, so nothing is created or read outside the roots.
//!
//! Each call opens the store with exactly the rights it needs (`rpc::access`, as the CLI and
//! the Node addon do), runs, and closes it: concurrent calls from several clients are then
//! arbitrated by the store's own locks and preconditions, never by the server.

use super::jsonrpc::Call;
use rewind_core::ErrorKind;
use rewind_host::native::{Opener, Verb, default_db_path};
use rewind_host::rpc::{self, RpcError};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Workspaces whose opener (with its idle connection) is kept at most (see `Backend::openers`).
const KEEPERS: usize = 64;

/// Idle PostgreSQL connections kept per kind (reading, writing) for the next calls: more than
/// the `--workers` usual, so that concurrent clients find theirs waiting instead of each call
/// starting a server process (see `rewind_host::postgres::keep_idle_connections`).
const KEPT_PG_CONNECTIONS: usize = 16;

/// A workspace directory and its database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Served {
    pub(crate) dir: PathBuf,
    pub(crate) db: PathBuf,
}

/// The roots, and the workspace used when a request names none.
#[derive(Debug)]
pub(crate) struct Backend {
    /// Canonical directories.
    roots: Vec<PathBuf>,
    /// The only root when there is exactly one (with its database, which `--db` may move).
    default: Option<Served>,
    /// The opener of each workspace called, keeping its idle connection (`native::Opener`,
    /// as the Node addon does): while one is open no call's connection is the first to open
    /// the SQLite file, so none rebuilds its WAL index (see `native::Opener`).
    openers: Mutex<HashMap<PathBuf, Arc<Opener>>>,
    /// A PostgreSQL store every call opens instead of the workspace's SQLite file (`--store`).
    store: Option<String>,
}

/// `dir` made canonical, or `invalid_input` saying which root is not usable.
fn canonical_root(dir: &Path) -> Result<PathBuf, RpcError> {
    let c = std::fs::canonicalize(dir)
        .map_err(|e| RpcError::input(format!("root {}: {e}", dir.display())))?;
    if !c.is_dir() {
        return Err(RpcError::input(format!(
            "root {} is not a directory",
            dir.display()
        )));
    }
    Ok(c)
}

impl Backend {
    /// A server over these roots (at least one). `db` moves the database of the single root
    /// (`--db`), and is refused with several.
    pub(crate) fn new(roots: &[PathBuf], db: Option<PathBuf>) -> Result<Self, RpcError> {
        let mut canonical = Vec::new();
        for r in roots {
            let c = canonical_root(r)?;
            if !canonical.contains(&c) {
                canonical.push(c);
            }
        }
        let default = match (canonical.as_slice(), db) {
            ([only], db) => Some(Served {
                db: match db {
                    Some(db) => std::path::absolute(&db)
                        .map_err(|e| RpcError::input(format!("--db {}: {e}", db.display())))?,
                    None => default_db_path(only),
                },
                dir: only.clone(),
            }),
            ([], _) => return Err(RpcError::input("a server needs at least one root")),
            (_, Some(_)) => {
                return Err(RpcError::input(
                    "--db (or REWIND_DB) names one workspace's database: it cannot be used with \
                     several roots, where each workspace keeps its own",
                ));
            }
            (_, None) => None,
        };
        Ok(Self {
            roots: canonical,
            default,
            openers: Mutex::new(HashMap::new()),
            store: None,
        })
    }

    /// The canonical roots.
    pub(crate) fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn inside(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r))
    }

    /// The workspace a request names (see the module docs).
    pub(crate) fn resolve(&self, named: Option<&str>) -> Result<Served, RpcError> {
        let Some(named) = named else {
            return self.default.clone().ok_or_else(|| {
                RpcError::input(
                    "this server has several roots: name the workspace in the request's \
                     \"workspace\" member (an absolute directory path)",
                )
            });
        };
        let path = Path::new(named);
        if !path.is_absolute() {
            return Err(RpcError::input(format!(
                "workspace {named:?} must be an absolute path"
            )));
        }
        let outside = || {
            RpcError::input(format!(
                "workspace {named} is outside the roots this server serves (--root, or \"roots\" \
                 in --config)"
            ))
        };
        let dir = match std::fs::canonicalize(path) {
            Ok(dir) => dir,
            // Only a path that would be inside is told apart as missing: nothing is said about
            // what exists elsewhere.
            Err(_) if !self.inside(&lexical(path)) => return Err(outside()),
            Err(e) => {
                return Err(RpcError::new(
                    ErrorKind::NotFound,
                    format!("workspace {named}: {e}"),
                ));
            }
        };
        if !self.inside(&dir) {
            return Err(outside());
        }
        if !dir.is_dir() {
            return Err(RpcError::input(format!(
                "workspace {named} is not a directory"
            )));
        }
        if let Some(d) = self.default.as_ref().filter(|d| d.dir == dir) {
            return Ok(d.clone());
        }
        // A `.rewind` that is a link counts, as everywhere (`native::locate`), but one that
        // leads out of the roots would put the store (and its writes) outside them.
        let store = dir.join(".rewind");
        if let Ok(target) = std::fs::canonicalize(&store)
            && !self.inside(&target)
        {
            return Err(RpcError::new(
                ErrorKind::Untrusted,
                format!(
                    "{} is a symbolic link out of the roots: this server keeps stores inside them",
                    store.display()
                ),
            ));
        }
        let at = rewind_host::native::locate(&dir, Some(&dir), None);
        Ok(Served {
            db: at.db,
            dir: at.workspace,
        })
    }

    /// Run one checked call in the workspace it names.
    pub(crate) fn call(&self, call: Call<'_>) -> Result<Value, RpcError> {
        let ws = self.resolve(call.workspace)?;
        let mut params = call.params;
        bytes_in(call.method, &mut params);
        let verb = rpc::verb(call.method, &params)?;
        self.run_on(&ws, verb, call.method, params)
    }

    /// Serve from the PostgreSQL store at `url` (`--store`) instead of each SQLite file.
    #[must_use]
    pub(crate) fn with_store(mut self, url: Option<String>) -> Self {
        if url.is_some() {
            rewind_host::postgres::keep_idle_connections(KEPT_PG_CONNECTIONS);
        }
        self.store = url;
        self
    }

    /// Open `ws` for `verb`, run the method, close it again: the one place that chooses the
    /// store (the SQLite file at `ws.db`, or the PostgreSQL store of `--store`).
    fn run_on(
        &self,
        ws: &Served,
        verb: Verb,
        method: &str,
        params: Value,
    ) -> Result<Value, RpcError> {
        let opened = self
            .opener(ws)
            .open(verb.access())
            .map_err(|e| RpcError::new(e.kind(), e.to_string()))?;
        for w in &opened.warnings {
            crate::output::warn(&format!("{}: {w}", ws.dir.display()));
        }
        let mut engine = opened.engine;
        // A rewind's resume of the agent is bound to the session it left, as the CLI does.
        let session = params.get(0).and_then(Value::as_str).map(str::to_owned);
        let answer = rpc::call(&mut engine, method, params)?;
        rewind_host::agent_copy::bind::expect_answer(&ws.db, session.as_deref(), &answer);
        Ok(answer)
    }

    /// The opener of `ws`: the one kept for it (up to [`KEEPERS`] workspaces), else a new one.
    fn opener(&self, ws: &Served) -> Arc<Opener> {
        let made = || {
            Arc::new(
                Opener::new(&ws.dir, &ws.db)
                    .on_store(self.store.clone())
                    .keeping_idle(),
            )
        };
        // A poisoned map only loses the speed-up.
        let Ok(mut openers) = self.openers.lock() else {
            return made();
        };
        if let Some(o) = openers.get(&ws.db) {
            return Arc::clone(o);
        }
        let o = made();
        if openers.len() < KEEPERS {
            openers.insert(ws.db.clone(), Arc::clone(&o));
        }
        o
    }
}

/// `p` without `.` and with each `..` taking the component before it away, as text (for the
/// message of a path that does not exist; a real check always canonicalises).
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The JSON-RPC form of the JS API's bytes (`Uint8Array`) is a base64 string: the edit's
/// `before`/`after` are handed to the dispatcher as `{"base64": …}` (which it also takes
/// as it is; `null` is an absent file).
fn bytes_in(method: &str, params: &mut Value) {
    if method != "recordEdit" {
        return;
    }
    let Some(opts) = params.get_mut(1).and_then(Value::as_object_mut) else {
        return;
    };
    for key in ["before", "after"] {
        if let Some(v) = opts.get_mut(key)
            && let Value::String(s) = v
        {
            *v = serde_json::json!({ "base64": std::mem::take(s) });
        }
    }
}
