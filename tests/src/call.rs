//! `call(engine, "recordPrompt", {...})`: every verb by its JS name, JSON in, JSON out.

use base64::Engine as _;
use rewind_core::conversation;
use rewind_core::edit;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::id::SessionId;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::record::FileEdit;
use rewind_core::undo;
use rewind_core::{Coded, Engine, ErrorKind};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// A failed call: the stable code and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    /// `invalid_input`, `not_found`, …
    pub code: String,
    /// Readable message.
    pub message: String,
}

impl CallError {
    fn new(kind: ErrorKind, message: impl std::fmt::Display) -> Self {
        Self {
            code: kind.as_str().to_owned(),
            message: message.to_string(),
        }
    }
    fn input(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
}

/// Bytes in JSON: a UTF-8 string, `{"base64": "..."}`, or `null` for an absent file.
pub fn bytes(v: &Value) -> Result<Option<Vec<u8>>, CallError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone().into_bytes())),
        Value::Object(o) => match o.get("base64").and_then(Value::as_str) {
            Some(b) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map(Some)
                .map_err(|e| CallError::input(format!("bad base64: {e}"))),
            None => Err(CallError::input(
                "bytes must be a string, {\"base64\": …} or null",
            )),
        },
        _ => Err(CallError::input(
            "bytes must be a string, {\"base64\": …} or null",
        )),
    }
}

fn take_session(args: &mut Map<String, Value>) -> Result<SessionId, CallError> {
    let v = args
        .remove("sessionId")
        .ok_or_else(|| CallError::input("sessionId is required"))?;
    serde_json::from_value(v).map_err(CallError::input)
}

fn opts<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, CallError> {
    serde_json::from_value(Value::Object(args)).map_err(CallError::input)
}

fn out<T: serde::Serialize, E: Coded>(r: Result<T, E>) -> Result<Value, CallError> {
    match r {
        Ok(v) => Ok(serde_json::to_value(v).expect("outcomes serialise")),
        Err(e) => Err(CallError::new(e.code(), &e)),
    }
}

/// Run one verb by its JS name.
pub fn call<S: StoreWrite, W: Workspace>(
    engine: &mut Engine<S, W>,
    name: &str,
    args: Value,
) -> Result<Value, CallError> {
    let mut args = match args {
        Value::Object(o) => o,
        Value::Null => Map::new(),
        _ => return Err(CallError::input("arguments must be an object")),
    };
    match name {
        "createSession" => out(engine.create_session(opts(args)?)),
        "listSessions" => {
            let d = engine
                .sessions()
                .map_err(|e| CallError::new(e.kind(), &e))?;
            Ok(json!(d.items))
        }
        "recordPrompt" => {
            let s = take_session(&mut args)?;
            out(engine.record_prompt(&s, opts(args)?))
        }
        "recordReply" => {
            let s = take_session(&mut args)?;
            out(engine.record_reply(&s, opts(args)?))
        }
        "recordNotice" => {
            let s = take_session(&mut args)?;
            out(engine.record_notice(&s, opts(args)?))
        }
        "recordCompaction" => {
            let s = take_session(&mut args)?;
            out(engine.record_compaction(&s, opts(args)?))
        }
        "recordEdit" => {
            let s = take_session(&mut args)?;
            // As in JS: only an explicit null means "absent"; a missing side is an error.
            let mut side = |key: &str| match args.remove(key) {
                Some(v) => bytes(&v),
                None => Err(CallError::input(format!(
                    "recordEdit {key} is missing: pass the bytes, or null for an absent file"
                ))),
            };
            let before = side("before")?;
            let after = side("after")?;
            let edit: FileEdit = opts(args)?;
            out(engine.record_edit(&s, edit.with_bytes(before, after)))
        }
        "recordFailedCapture" => {
            let s = take_session(&mut args)?;
            out(engine.record_failed_capture(&s, opts(args)?))
        }
        "snapshotWorkspace" => {
            let s = take_session(&mut args)?;
            out(engine.snapshot_workspace(&s, opts(args)?))
        }
        "completeTurn" => {
            let s = take_session(&mut args)?;
            out(engine.complete_turn(&s, opts(args)?))
        }
        "activeBranch" => {
            let s = take_session(&mut args)?;
            out(engine.active_branch(&s))
        }
        "previewFileRewind" => {
            let s = take_session(&mut args)?;
            let o: TargetOptions = opts(args)?;
            out(engine.preview_file_rewind(&s, o))
        }
        "applyFileRewind" => {
            let s = take_session(&mut args)?;
            let o: ApplyOptions = opts(args)?;
            out(engine.apply_file_rewind(&s, o))
        }
        "rewindConversation" => {
            let s = take_session(&mut args)?;
            let o: conversation::Options = opts(args)?;
            out(engine.rewind_conversation(&s, o))
        }
        "rewind" => {
            let s = take_session(&mut args)?;
            out(engine.rewind(&s, opts(args)?))
        }
        "undo" => {
            let s = take_session(&mut args)?;
            let o: undo::Options = opts(args)?;
            out(engine.undo(&s, o))
        }
        "editLastPrompt" => {
            let s = take_session(&mut args)?;
            let o: edit::EditOptions = opts(args)?;
            out(engine.edit_last_prompt(&s, o))
        }
        "retryLastReply" => {
            let s = take_session(&mut args)?;
            let o: edit::RetryOptions = opts(args)?;
            out(engine.retry_last_reply(&s, o))
        }
        "fork" => {
            let s = take_session(&mut args)?;
            let o: rewind_core::fork::Options = opts(args)?;
            out(engine.fork(&s, o))
        }
        "sideChat" => {
            let s = take_session(&mut args)?;
            let o: rewind_core::fork::SideChatOptions = opts(args)?;
            out(engine.side_chat(&s, o))
        }
        "gc" => {
            let dry_run = args
                .remove("dryRun")
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let o: rewind_core::gc::Options = opts(args)?;
            out(engine.gc(o, dry_run))
        }
        "stats" => out(engine.stats()),
        "replayLog" => replay_log(args),
        "resume" => {
            let s = take_session(&mut args)?;
            out(engine.resume(&s))
        }
        "recover" => {
            let s = match args.remove("sessionId") {
                Some(v) => Some(serde_json::from_value::<SessionId>(v).map_err(CallError::input)?),
                None => None,
            };
            out(engine.recover(s.as_ref()))
        }
        "checkpoints" => {
            let s = take_session(&mut args)?;
            out(engine.checkpoints(&s))
        }
        "operations" => {
            let s = take_session(&mut args)?;
            let d = engine
                .operations(&s)
                .map_err(|e| CallError::new(e.kind(), &e))?;
            Ok(json!(d.items))
        }
        other => Err(CallError::input(format!("unknown call {other:?}"))),
    }
}

/// `Engine.fromLog` of the JS API, on any host: replay `batches` (each a string of the batch's
/// byte form or `{"base64": …}`) into a fresh memory store; the result lists what was left out
/// and the sessions that came back.
fn replay_log(mut args: Map<String, Value>) -> Result<Value, CallError> {
    let batches = match args.remove("batches") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|b| bytes(b)?.ok_or_else(|| CallError::input("a batch cannot be null")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(CallError::input("replayLog needs batches: [...]")),
    };
    let opts: rewind_core::replay::Options = opts(args)?;
    let mut store = rewind_core::testkit::MemStore::new();
    let report = rewind_core::replay::replay(&mut store, &batches, opts)
        .map_err(|e| CallError::new(e.code(), &e))?;
    let sessions = rewind_core::load::sessions(&store).map_err(|e| CallError::new(e.kind(), &e))?;
    let ids: Vec<String> = sessions.items.iter().map(|s| s.id.to_string()).collect();
    Ok(json!({ "diagnostics": report.diagnostics, "sessions": ids }))
}
