//! One JSON dispatcher for every host that speaks JSON: `call(engine, "recordPrompt",
//! [sessionId, { text }])` runs the verb the wasm `Engine` method of that name runs, with the
//! same positional arguments and the same result objects (the core's serde forms, camelCase),
//! over any store and workspace. The Node addon (`node/`) and the scenario tests call it;
//! `rewind serve --stdio` will too. Which rights a native engine needs for a call is
//! [`access`], kept apart so the dispatcher itself stays host-agnostic.

mod access;
mod args;
mod targets;
#[cfg(test)]
mod tests;

pub use access::{access, verb};
pub use args::{bytes, bytes_json};

use crate::agent_copy::Settle;
use args::Args;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::record::FileEdit;
use rewind_core::{Coded, Engine, ErrorKind};
use serde_json::Value;

/// A failed call: the stable code (an [`ErrorKind`] wire word) and a readable message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RpcError {
    /// `invalid_input`, `not_found`, …
    pub code: &'static str,
    /// What went wrong, for a person.
    pub message: String,
}

impl RpcError {
    /// An error of this kind.
    pub fn new(kind: ErrorKind, message: impl std::fmt::Display) -> Self {
        Self {
            code: kind.as_str(),
            message: message.to_string(),
        }
    }
    /// `invalid_input`.
    pub fn input(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
}

/// The arguments a method takes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Params {
    /// `()`.
    None,
    /// `(opts?)`.
    Options,
    /// `(sessionId)`.
    Session,
    /// `(sessionId, opts)`.
    SessionOptions,
    /// `(sessionId?)`.
    OptSession,
}

/// Every method, by its JS name, with its arguments: exactly the wasm `Engine`'s verbs (the
/// in-memory constructors and log methods aside), so code moves between the packages unchanged.
pub const METHODS: &[(&str, Params)] = &[
    ("createSession", Params::Options),
    ("listSessions", Params::None),
    ("recordPrompt", Params::SessionOptions),
    ("recordReply", Params::SessionOptions),
    ("recordNotice", Params::SessionOptions),
    ("recordCompaction", Params::SessionOptions),
    ("recordEdit", Params::SessionOptions),
    ("recordFailedCapture", Params::SessionOptions),
    ("snapshotWorkspace", Params::SessionOptions),
    ("completeTurn", Params::SessionOptions),
    ("activeBranch", Params::Session),
    ("previewFileRewind", Params::SessionOptions),
    ("diffFileRewind", Params::SessionOptions),
    ("applyFileRewind", Params::SessionOptions),
    ("rewindConversation", Params::SessionOptions),
    ("rewind", Params::SessionOptions),
    ("undo", Params::SessionOptions),
    ("redo", Params::SessionOptions),
    ("editLastPrompt", Params::SessionOptions),
    ("retryLastReply", Params::SessionOptions),
    ("fork", Params::SessionOptions),
    ("sideChat", Params::SessionOptions),
    ("resume", Params::Session),
    ("recover", Params::OptSession),
    ("checkpoints", Params::Session),
    ("operations", Params::Session),
    ("gc", Params::Options),
    ("stats", Params::None),
    ("renameSession", Params::SessionOptions),
    ("removeSession", Params::SessionOptions),
];

/// The arguments of a method, or `None` for a name that is not one.
pub fn params_of(method: &str) -> Option<Params> {
    METHODS.iter().find(|(m, _)| *m == method).map(|(_, p)| *p)
}

impl Params {
    /// How many arguments.
    pub fn arity(self) -> usize {
        match self {
            Self::None => 0,
            Self::Options | Self::Session | Self::OptSession => 1,
            Self::SessionOptions => 2,
        }
    }
}

/// The method's own `&'static` name (for messages) and arguments, or `invalid_input` naming the
/// unknown one.
fn known(method: &str) -> Result<(&'static str, Params), RpcError> {
    METHODS
        .iter()
        .find(|(m, _)| *m == method)
        .copied()
        .ok_or_else(|| RpcError::input(format!("unknown method {method:?}")))
}

fn out<T: serde::Serialize, E: Coded>(r: Result<T, E>) -> Result<Value, RpcError> {
    match r {
        // The outcome types are plain data (strings, numbers, maps with string keys), which
        // serde_json always serialises; a failure would be a bug, reported as `corrupt`.
        Ok(v) => serde_json::to_value(v)
            .map_err(|e| RpcError::new(ErrorKind::Corrupt, format!("unserialisable result: {e}"))),
        Err(e) => Err(RpcError::new(e.code(), &e)),
    }
}

/// `recordEdit`: the options plus the two sides' bytes.
fn record_edit<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    a: &mut Args,
) -> Result<Value, RpcError> {
    let s = a.session()?;
    let mut o = a.object()?;
    // As in the wasm API: only an explicit null means "absent"; a forgotten side must
    // not record a creation (whose rewind would delete a file that existed) or a
    // deletion.
    let mut side = |key: &str| match o.remove(key) {
        Some(v) => bytes(&v),
        None => Err(RpcError::input(format!(
            "recordEdit {key} is missing: pass the bytes, or null for an absent file"
        ))),
    };
    let before = side("before")?;
    let after = side("after")?;
    let edit: FileEdit = a.parse(o)?;
    out(e.record_edit(&s, edit.with_bytes(before, after)))
}

/// `gc`: the wasm `gc` options, the retention settings plus `dryRun`.
fn gc<S: StoreWrite, W: Workspace>(e: &mut Engine<S, W>, a: &mut Args) -> Result<Value, RpcError> {
    let mut o = a.object()?;
    let dry_run = match o.remove("dryRun") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err(RpcError::input("gc options: dryRun must be a boolean")),
    };
    let opts: rewind_core::gc::Options = a.parse(o)?;
    out(e.gc(opts, dry_run))
}

/// `renameSession` and `removeSession`: a session and its options.
fn manage<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    method: &str,
    a: &mut Args,
) -> Result<Value, RpcError> {
    let s = a.session()?;
    match method {
        "renameSession" => out(e.rename_session(&s, a.options()?)),
        _ => out(e.remove_session(&s, a.options()?)),
    }
}

/// Run one method. `params` is the JSON array of the JS method's arguments (`null` for none).
/// Every argument is read and checked before the verb runs, so a refused call changed nothing;
/// ids in it may be typed as people type them (`#N`, `@`, `@-N`, unique prefixes: see
/// [`rewind_core::refs`]).
pub fn call<S: StoreWrite, W: Workspace>(
    engine: &mut Engine<S, W>,
    method: &str,
    params: Value,
) -> Result<Value, RpcError> {
    let (method, mut a) = targets::args(engine.store(), method, params)?;
    let e = engine;
    match method {
        "createSession" => out(e.create_session(a.options()?)),
        "listSessions" => out(e.sessions().map(|d| d.items)),
        "recordPrompt" => {
            let s = a.session()?;
            out(e.record_prompt(&s, a.options()?))
        }
        "recordReply" => {
            let s = a.session()?;
            out(e.record_reply(&s, a.options()?))
        }
        "recordNotice" => {
            let s = a.session()?;
            out(e.record_notice(&s, a.options()?))
        }
        "recordCompaction" => {
            let s = a.session()?;
            out(e.record_compaction(&s, a.options()?))
        }
        "recordEdit" => record_edit(e, &mut a),
        "recordFailedCapture" => {
            let s = a.session()?;
            out(e.record_failed_capture(&s, a.options()?))
        }
        "snapshotWorkspace" => {
            let s = a.session()?;
            let o: rewind_core::shell::Options = a.options()?;
            out(e.snapshot_workspace(&s, o))
        }
        "completeTurn" => {
            let s = a.session()?;
            out(e.complete_turn(&s, a.options()?))
        }
        "activeBranch" => out(e.active_branch(&a.session()?)),
        "previewFileRewind" => {
            let s = a.session()?;
            out(e.preview_file_rewind(&s, a.options()?))
        }
        "diffFileRewind" => {
            let s = a.session()?;
            out(e.diff_file_rewind(&s, a.options()?))
        }
        "applyFileRewind" => {
            let s = a.session()?;
            out(e.apply_file_rewind(&s, a.options()?))
        }
        "rewindConversation" => {
            let s = a.session()?;
            out(e.rewind_conversation(&s, a.options()?).map(Settle::settled))
        }
        "rewind" => {
            let s = a.session()?;
            out(e.rewind(&s, a.options()?).map(Settle::settled))
        }
        "undo" => {
            let s = a.session()?;
            out(e.undo(&s, a.options()?).map(Settle::settled))
        }
        "redo" => {
            let s = a.session()?;
            out(e.redo(&s, a.options()?).map(Settle::settled))
        }
        "editLastPrompt" => {
            let s = a.session()?;
            out(e.edit_last_prompt(&s, a.options()?).map(Settle::settled))
        }
        "retryLastReply" => {
            let s = a.session()?;
            out(e.retry_last_reply(&s, a.options()?).map(Settle::settled))
        }
        "fork" => {
            let s = a.session()?;
            out(e.fork(&s, a.options()?).map(Settle::settled))
        }
        "sideChat" => {
            let s = a.session()?;
            out(e.side_chat(&s, a.options()?).map(Settle::settled))
        }
        "resume" => out(e.resume(&a.session()?)),
        "recover" => out(e.recover(a.opt_session()?.as_ref())),
        "checkpoints" => out(e.checkpoints(&a.session()?)),
        "operations" => out(e.operations(&a.session()?).map(|d| d.items)),
        "gc" => gc(e, &mut a),
        "stats" => out(e.stats()),
        "renameSession" | "removeSession" => manage(e, method, &mut a),
        // `known` only returns names of METHODS, and every one has an arm above (a unit test
        // calls each).
        other => Err(RpcError::input(format!("unknown method {other:?}"))),
    }
}
