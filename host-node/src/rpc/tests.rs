//! The dispatcher over the memory hosts (every method, argument checks, error codes) and over
//! the real native engine (a recorded edit rewound on disk).

use super::{METHODS, Params, access, bytes, bytes_json, call, params_of};
use crate::native::{Access, OpenOptions, open_with};
use rewind_core::Engine;
use rewind_core::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
use serde_json::{Value, json};

type Mem = Engine<MemStore, MemWorkspace>;

fn mem() -> Mem {
    Engine::new(
        MemStore::new(),
        MemWorkspace::new(),
        TickClock::new(1_000),
        SeqIds::starting_after(0),
    )
}

fn ok<S: rewind_core::ports::StoreWrite, W: rewind_core::ports::Workspace>(
    e: &mut Engine<S, W>,
    method: &str,
    params: Value,
) -> Value {
    match call(e, method, params) {
        Ok(v) => v,
        Err(err) => panic!("{method} failed: {} {}", err.code, err.message),
    }
}

fn code(e: &mut Mem, method: &str, params: Value) -> &'static str {
    match call(e, method, params) {
        Ok(v) => panic!("{method} succeeded: {v}"),
        Err(err) => err.code,
    }
}

/// A session with one turn that changed `a.txt` from "one" to "two"; (session, prompt id).
fn story(e: &mut Mem) -> (String, String) {
    let s = ok(e, "createSession", json!([{ "title": "demo" }]));
    let id = s["id"].as_str().expect("id").to_owned();
    let p = ok(e, "recordPrompt", json!([id, { "text": "change a" }]));
    let turn = p["turnId"].clone();
    e.workspace_mut().put("a.txt", "two\n");
    ok(
        e,
        "recordEdit",
        json!([id, { "turnId": turn, "path": "a.txt", "before": "one\n",
                     "after": { "base64": "dHdvCg==" }, "toolName": "Edit" }]),
    );
    ok(
        e,
        "recordReply",
        json!([id, { "turnId": turn, "text": "done" }]),
    );
    ok(e, "completeTurn", json!([id, { "turnId": turn }]));
    (id, p["messageId"].as_str().expect("messageId").to_owned())
}

#[test]
fn a_session_records_previews_applies_and_undoes() {
    let mut e = mem();
    let (id, prompt) = story(&mut e);
    let sessions = ok(&mut e, "listSessions", json!([]));
    assert_eq!(sessions[0]["id"], json!(id));
    let preview = ok(
        &mut e,
        "previewFileRewind",
        json!([id, { "since": prompt }]),
    );
    assert_eq!(preview["canApply"], json!(true));
    assert_eq!(preview["safeFiles"][0]["path"], json!("a.txt"));
    let diff = ok(&mut e, "diffFileRewind", json!([id, { "since": prompt }]));
    assert_eq!(diff["files"][0]["path"], json!("a.txt"));
    assert_eq!(
        diff["files"][0]["hunks"][0]["lines"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let done = ok(
        &mut e,
        "applyFileRewind",
        json!([id, { "since": prompt, "policy": "block" }]),
    );
    assert_eq!(done["applied"], json!(true));
    assert_eq!(e.workspace().get("a.txt"), Some(&b"one\n"[..]));
    ok(
        &mut e,
        "undo",
        json!([id, { "operationId": done["operationId"] }]),
    );
    assert_eq!(e.workspace().get("a.txt"), Some(&b"two\n"[..]));
    let ops = ok(&mut e, "operations", json!([id]));
    assert_eq!(ops.as_array().map(Vec::len), Some(2));
    let resumed = ok(&mut e, "resume", json!([id]));
    assert!(resumed.is_object());
    assert!(ok(&mut e, "checkpoints", json!([id])).is_array());
    assert!(ok(&mut e, "activeBranch", json!([id])).is_object());
    assert!(ok(&mut e, "stats", Value::Null).is_object());
    assert!(ok(&mut e, "recover", json!([])).is_object());
    assert!(ok(&mut e, "recover", json!([id])).is_object());
    let gc = ok(&mut e, "gc", json!([{ "dryRun": true, "keep": 5 }]));
    assert!(gc.is_object());
    let conv = ok(
        &mut e,
        "rewind",
        json!([id, { "scope": "conversation", "to": prompt }]),
    );
    assert!(conv.is_object());
}

#[test]
fn undo_without_an_operation_takes_back_the_latest_and_redo_reapplies_it() {
    let mut e = mem();
    let (id, prompt) = story(&mut e);
    let both = ok(
        &mut e,
        "rewind",
        json!([id, { "scope": "both", "to": prompt }]),
    );
    assert_eq!(both["rewound"], json!(true));
    assert_eq!(e.workspace().get("a.txt"), Some(&b"one\n"[..]));
    // No options at all: the latest rewind, files and conversation.
    let undone = ok(&mut e, "undo", json!([id]));
    assert_eq!(undone["undoneOperationId"], both["operationId"]);
    assert_eq!(undone["conversation"]["rewoundTo"], Value::Null);
    assert_eq!(e.workspace().get("a.txt"), Some(&b"two\n"[..]));
    let redone = ok(&mut e, "redo", json!([id, {}]));
    assert_eq!(redone["redo"], json!(true));
    assert_eq!(redone["redoneOperationId"], both["operationId"]);
    assert_eq!(redone["conversation"]["rewoundTo"], json!(prompt));
    assert_eq!(e.workspace().get("a.txt"), Some(&b"one\n"[..]));
    let err = call(&mut e, "redo", json!([id])).expect_err("nothing left to redo");
    assert_eq!(err.code, "not_found");
    assert!(
        err.message.contains(&id),
        "names the session: {}",
        err.message
    );
}

#[test]
fn every_method_has_an_arm_and_reads_its_arguments() {
    // Called with a well-formed but unknown session id, each method either runs (the ones
    // without a session) or reports the session missing: never "unknown method".
    let mut e = mem();
    let ghost = "ses_0123456789abcdef0123456789abcdef";
    for (m, p) in METHODS {
        let params = match p {
            Params::None => json!([]),
            Params::Options | Params::OptSession => json!([null]),
            Params::Session => json!([ghost]),
            Params::SessionOptions => json!([ghost, {}]),
        };
        if let Err(err) = call(&mut e, m, params) {
            assert!(
                !err.message.contains("unknown method"),
                "{m}: {}",
                err.message
            );
            assert!(
                ["not_found", "invalid_input"].contains(&err.code),
                "{m}: {} {}",
                err.code,
                err.message
            );
        }
        assert_eq!(params_of(m), Some(*p));
    }
}

#[test]
fn bad_calls_are_invalid_input_and_change_nothing() {
    let mut e = mem();
    let (id, _) = story(&mut e);
    let before = ok(&mut e, "resume", json!([id]));
    assert_eq!(code(&mut e, "nope", json!([])), "invalid_input");
    assert_eq!(
        code(&mut e, "recordPrompt", json!({ "text": "x" })),
        "invalid_input"
    );
    assert_eq!(
        code(&mut e, "recordPrompt", json!(["bogus", { "text": "x" }])),
        "invalid_input"
    );
    assert_eq!(
        code(&mut e, "recordPrompt", json!([7, { "text": "x" }])),
        "invalid_input"
    );
    assert_eq!(
        code(&mut e, "recordPrompt", json!([id, "text"])),
        "invalid_input"
    );
    assert_eq!(
        code(&mut e, "recordPrompt", json!([id, { "txt": "x" }])),
        "invalid_input"
    );
    // An extra argument is refused before the verb runs.
    assert_eq!(
        code(
            &mut e,
            "recordPrompt",
            json!([id, { "text": "x" }, { "more": 1 }])
        ),
        "invalid_input"
    );
    // A forgotten side of an edit is not taken as an absent file.
    let p = ok(&mut e, "recordPrompt", json!([id, { "text": "again" }]));
    let edit = json!([id, { "turnId": p["turnId"], "path": "b.txt", "after": "x" }]);
    assert_eq!(code(&mut e, "recordEdit", edit), "invalid_input");
    assert_eq!(
        code(&mut e, "gc", json!([{ "dryRun": "yes" }])),
        "invalid_input"
    );
    let ghost = "ses_0123456789abcdef0123456789abcdef";
    assert_eq!(code(&mut e, "resume", json!([ghost])), "not_found");
    let after = ok(&mut e, "resume", json!([id]));
    // Only the one good recordPrompt above changed the session.
    assert_ne!(before, after);
    assert_eq!(trailing_nulls_are_absent(&mut e), "ok");
}

/// `[id, undefined]` from JS arrives as `[id, null]`: the same as leaving it out.
fn trailing_nulls_are_absent(e: &mut Mem) -> &'static str {
    let s = ok(e, "createSession", json!([null, null]));
    ok(e, "resume", json!([s["id"], null]));
    "ok"
}

#[test]
fn bytes_are_strings_base64_or_null() {
    assert_eq!(bytes(&json!("hi")).ok(), Some(Some(b"hi".to_vec())));
    assert_eq!(
        bytes(&json!({ "base64": "aGk=" })).ok(),
        Some(Some(b"hi".to_vec()))
    );
    assert_eq!(bytes(&Value::Null).ok(), Some(None));
    assert!(bytes(&json!({ "base64": "!!" })).is_err());
    assert!(bytes(&json!({ "base64": "aGk=", "x": 1 })).is_err());
    assert!(bytes(&json!(3)).is_err());
    let raw = [0u8, 255, 10];
    assert_eq!(
        bytes(&bytes_json(Some(&raw))).ok(),
        Some(Some(raw.to_vec()))
    );
    assert_eq!(bytes_json(None), Value::Null);
}

#[test]
fn access_follows_the_cli() {
    let a = |m: &str, p: Value| access(m, &p).map_err(|e| e.code);
    assert_eq!(a("resume", json!(["s"])), Ok(Access::Read));
    assert_eq!(a("recordPrompt", json!([])), Ok(Access::Record));
    assert_eq!(a("applyFileRewind", json!([])), Ok(Access::Rewrite));
    assert_eq!(
        a("rewind", json!(["s", { "scope": "conversation" }])),
        Ok(Access::Record)
    );
    assert_eq!(
        a("rewind", json!(["s", { "scope": "both" }])),
        Ok(Access::Rewrite)
    );
    assert_eq!(a("editLastPrompt", json!(["s", {}])), Ok(Access::Record));
    assert_eq!(
        a("editLastPrompt", json!(["s", { "workspace": "rewind" }])),
        Ok(Access::Rewrite)
    );
    assert_eq!(
        a("fork", json!(["s", { "workspaceMode": "restore" }])),
        Ok(Access::Rewrite)
    );
    assert_eq!(a("gc", json!([])), Ok(Access::Maintain));
    assert_eq!(a("nope", json!([])), Err("invalid_input"));
}

#[test]
fn the_native_engine_rewinds_a_real_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = crate::native::default_db_path(dir.path());
    let open = |access| {
        let opts = OpenOptions {
            access,
            config: crate::config::Config::default(),
        };
        open_with(dir.path(), &db, opts).expect("open").engine
    };
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "two\n").expect("write");
    let mut e = open(Access::Record);
    let s = ok(&mut e, "createSession", json!([]));
    let id = s["id"].clone();
    let p = ok(&mut e, "recordPrompt", json!([id, { "text": "change a" }]));
    let edit = json!([id, { "turnId": p["turnId"], "path": "a.txt", "before": "one\n",
                            "after": "two\n", "toolName": "Write" }]);
    ok(&mut e, "recordEdit", edit);
    ok(
        &mut e,
        "completeTurn",
        json!([id, { "turnId": p["turnId"] }]),
    );
    drop(e);
    let mut e = open(Access::Read);
    let preview = ok(
        &mut e,
        "previewFileRewind",
        json!([id, { "since": p["messageId"] }]),
    );
    assert_eq!(preview["canApply"], json!(true));
    // A read-only engine refuses to write files, with the stable code.
    let apply = json!([id, { "since": p["messageId"], "policy": "block" }]);
    assert!(call(&mut e, "applyFileRewind", apply.clone()).is_err());
    drop(e);
    let mut e = open(Access::Rewrite);
    let done = ok(&mut e, "applyFileRewind", apply);
    assert_eq!(done["applied"], json!(true));
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "one\n");
}

#[test]
fn targets_are_typed_as_the_cli_takes_them_and_errors_name_the_thing() {
    let dir = tempfile::tempdir().expect("dir");
    let db = crate::native::default_db_path(dir.path());
    let opts = OpenOptions {
        access: Access::Rewrite,
        config: crate::config::Config::default(),
    };
    let mut e = open_with(dir.path(), &db, opts).expect("open").engine;
    let id = ok(&mut e, "createSession", json!([]))["id"].clone();
    let mut prompts = Vec::new();
    for n in 1..=3 {
        let p = ok(
            &mut e,
            "recordPrompt",
            json!([id, { "text": format!("turn {n}") }]),
        );
        ok(&mut e, "completeTurn", json!([id, { "turnId": "@" }]));
        prompts.push(p["messageId"].clone());
    }
    let rewound = ok(&mut e, "rewindConversation", json!([id, { "to": "@-1" }]));
    assert_eq!(rewound["targetMessageId"], prompts[1]);
    // The branch keeps turn 1 only now: `#2` is gone, `@` is turn 1.
    let err = call(&mut e, "rewindConversation", json!([id, { "to": "#2" }])).expect_err("refused");
    assert_eq!(err.code, "not_found");
    assert!(
        err.message.contains("it has 1 turn, #1 (also @)"),
        "{}",
        err.message
    );
    // The session by a prefix, the prompt without `msg_`.
    let short = &id.as_str().expect("id")[..12];
    let bare = &prompts[0].as_str().expect("id")[4..];
    let back = ok(&mut e, "rewindConversation", json!([short, { "to": bare }]));
    assert_eq!(back["targetMessageId"], prompts[0]);
    let unknown = call(&mut e, "resume", json!(["ses_0123456789abcdef"])).expect_err("refused");
    assert_eq!(
        (unknown.code, unknown.message.as_str()),
        ("not_found", "session ses_0123456789abcdef was not found")
    );
}
