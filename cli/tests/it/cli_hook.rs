//! `rewind hook <agent>` end to end: the documented example payloads of each agent (kept in
//! tests/fixtures/hooks/), filled in with a real workspace, fed to the real binary one process
//! per event, the way the agents run hooks; then preview / apply / undo through the CLI.
#![cfg(unix)]

use crate::common;

use common::{Bench, fixture, s};
use serde_json::{Value, json};
use std::io::Write as _;
use std::process::{Command, Stdio};

/// Run one hook process as an agent does: payload on stdin, from some other directory, with
/// no rewind options.
fn send(_b: &Bench, agent: &str, payload: &Value) {
    let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
    hook.args(["hook", agent]);
    common::expect_hook_continues(hook, payload);
}

/// The documented payload `name` of `agent` with `fields` set on top (and the workspace as cwd).
fn event(b: &Bench, agent: &str, name: &str, fields: Value) -> Value {
    let mut v = fixture(agent, name);
    let o = v.as_object_mut().expect("an object");
    o.insert("cwd".into(), json!(b.ws().canonicalize().expect("ws")));
    o.insert("session_id".into(), json!("agent-session-1"));
    for (k, val) in fields.as_object().expect("fields") {
        o.insert(k.clone(), val.clone());
    }
    v
}

/// A documented payload of `agent` sent as event `name` (with the `timestamp` Gemini CLI and
/// Qwen Code add): they document one example payload each, which the other events share.
fn renamed(b: &Bench, agent: &str, fixture: &str, name: &str, fields: Value) -> Value {
    let mut v = event(b, agent, fixture, fields);
    v["hook_event_name"] = json!(name);
    v["timestamp"] = json!("2026-12-01T12:00:00Z");
    v
}

fn abs(b: &Bench, rel: &str) -> String {
    b.ws()
        .canonicalize()
        .expect("ws")
        .join(rel)
        .display()
        .to_string()
}

fn current(b: &Bench) -> String {
    let id = std::fs::read_to_string(b.path(".rewind/current-session")).expect("current session");
    id.trim().to_owned()
}

fn sh(b: &Bench, script: &str) {
    let ok = Command::new("sh")
        .args(["-c", script])
        .current_dir(b.ws())
        .status()
        .expect("sh");
    assert!(ok.success());
}

/// The prompt message id of the session's first turn.
fn first_prompt(b: &Bench, session: &str) -> String {
    let log = b.ok(&["log", session]);
    let msgs = log["messages"].as_array().expect("messages");
    let p = msgs
        .iter()
        .find(|m| m["kind"] == "prompt")
        .expect("a prompt");
    s(p, "id")
}

#[test]
fn a_claude_code_session_is_recorded_and_rewound_byte_exact() {
    let b = Bench::new();
    b.write("src/lib.rs", b"fn old() {}\n");
    b.write("notes.md", b"mine\n");
    b.write("sed.txt", b"colour\ncolour\n");
    let cc = "claude-code";
    send(&b, cc, &event(&b, cc, "SessionStart", json!({})));
    send(
        &b,
        cc,
        &event(
            &b,
            cc,
            "UserPromptSubmit",
            json!({ "prompt": "rename and add" }),
        ),
    );
    // Write of a new file (the documented PostToolUse example is a Write).
    let write = json!({ "tool_name": "Write", "tool_input": { "file_path": abs(&b, "src/new.rs"), "content": "// new\n" }, "tool_use_id": "toolu_1" });
    send(&b, cc, &event(&b, cc, "PreToolUse.Bash", write.clone()));
    b.write("src/new.rs", b"// new\n");
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", write));
    // Edit of an existing file.
    let edit = json!({ "tool_name": "Edit", "tool_input": { "file_path": abs(&b, "src/lib.rs"), "old_string": "old", "new_string": "new" }, "tool_use_id": "toolu_2" });
    send(&b, cc, &event(&b, cc, "PreToolUse.Bash", edit.clone()));
    b.write("src/lib.rs", b"fn new() {}\n");
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", edit));
    // MultiEdit: several edits of one file.
    let multi = json!({ "tool_name": "MultiEdit", "tool_input": { "file_path": abs(&b, "src/lib.rs"), "edits": [] }, "tool_use_id": "toolu_3" });
    send(&b, cc, &event(&b, cc, "PreToolUse.Bash", multi.clone()));
    b.write("src/lib.rs", b"fn newer() {}\n// more\n");
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", multi));
    // A shell command: sed -i.
    let bash = json!({ "tool_name": "Bash", "tool_input": { "command": "sed -i s/colour/color/ sed.txt" }, "tool_use_id": "toolu_4" });
    send(&b, cc, &event(&b, cc, "PreToolUse.Bash", bash.clone()));
    sh(&b, "sed -i s/colour/color/ sed.txt");
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", bash));
    send(
        &b,
        cc,
        &event(
            &b,
            cc,
            "Stop",
            // The documented example lists a `tail -f` in flight; this turn started none.
            json!({ "last_assistant_message": "renamed, added, spelled", "background_tasks": [] }),
        ),
    );
    // The person edits between turns; a second turn edits again.
    b.write("notes.md", b"mine, edited by me\n");
    send(
        &b,
        cc,
        &event(&b, cc, "UserPromptSubmit", json!({ "prompt": "one more" })),
    );
    let again = json!({ "tool_name": "Edit", "tool_input": { "file_path": abs(&b, "src/new.rs") }, "tool_use_id": "toolu_5" });
    send(&b, cc, &event(&b, cc, "PreToolUse.Bash", again.clone()));
    b.write("src/new.rs", b"// newer\n");
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", again));
    send(
        &b,
        cc,
        &event(
            &b,
            cc,
            "Stop",
            json!({ "last_assistant_message": "done", "background_tasks": [] }),
        ),
    );

    let session = current(&b);
    let list = b.ok(&["session", "list"]);
    assert_eq!(
        list.as_array().expect("list").len(),
        1,
        "one session, bound to the agent's"
    );
    assert_eq!(list[0]["id"], session.as_str());
    assert_eq!(list[0]["agent"]["agent"], "claude-code");
    assert_eq!(list[0]["agent"]["sessionId"], "agent-session-1");
    assert_eq!(list[0]["current"], true);
    let cps = b.ok(&["checkpoints", &session]);
    let tools: Vec<String> = cps
        .as_array()
        .expect("list")
        .iter()
        .map(|c| s(c, "toolName"))
        .collect();
    assert_eq!(
        tools,
        ["Write", "Edit", "MultiEdit", "Bash", "external", "Edit"],
        "{cps}"
    );
    let p1 = first_prompt(&b, &session);
    let applied = b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("src/lib.rs").as_deref(), Some(&b"fn old() {}\n"[..]));
    assert_eq!(b.read("src/new.rs"), None);
    assert_eq!(b.read("sed.txt").as_deref(), Some(&b"colour\ncolour\n"[..]));
    assert_eq!(
        b.read("notes.md").as_deref(),
        Some(&b"mine, edited by me\n"[..]),
        "the person's edit is kept"
    );
    b.ok(&["undo", &session, &s(&applied, "operationId")]);
    assert_eq!(
        b.read("src/lib.rs").as_deref(),
        Some(&b"fn newer() {}\n// more\n"[..])
    );
    assert_eq!(b.read("src/new.rs").as_deref(), Some(&b"// newer\n"[..]));
    assert_eq!(b.read("sed.txt").as_deref(), Some(&b"color\ncolor\n"[..]));
}

#[test]
fn a_gemini_cli_session_with_relative_paths_is_recorded_and_rewound() {
    let b = Bench::new();
    b.write("test.txt", b"before\n");
    b.write("list.txt", b"a\nb\n");
    let g = "gemini-cli";
    // Gemini documents one payload (a BeforeTool test input); the others share its fields.
    let at = |name: &str, fields| renamed(&b, g, "BeforeTool.write_file.test-input", name, fields);
    send(&b, g, &at("SessionStart", json!({ "source": "startup" })));
    send(
        &b,
        g,
        &at("BeforeAgent", json!({ "prompt": "update the files" })),
    );
    // The documented example: write_file with a path relative to the workspace.
    send(&b, g, &at("BeforeTool", json!({})));
    b.write("test.txt", b"Test content");
    send(
        &b,
        g,
        &at(
            "AfterTool",
            json!({ "tool_response": { "llmContent": "ok" } }),
        ),
    );
    let replace = json!({ "tool_name": "replace", "tool_input": { "file_path": abs(&b, "list.txt"), "old_string": "a", "new_string": "A", "instruction": "capitalise" } });
    send(&b, g, &at("BeforeTool", replace.clone()));
    b.write("list.txt", b"A\nb\n");
    send(&b, g, &at("AfterTool", replace));
    let shell = json!({ "tool_name": "run_shell_command", "tool_input": { "command": "rm list.txt", "dir_path": "." } });
    send(&b, g, &at("BeforeTool", shell.clone()));
    sh(&b, "rm list.txt");
    send(&b, g, &at("AfterTool", shell));
    send(
        &b,
        g,
        &at(
            "AfterAgent",
            json!({ "prompt": "update the files", "prompt_response": "updated", "stop_hook_active": false }),
        ),
    );

    let session = current(&b);
    let cps = b.ok(&["checkpoints", &session]);
    let tools: Vec<String> = cps
        .as_array()
        .expect("list")
        .iter()
        .map(|c| s(c, "toolName"))
        .collect();
    assert_eq!(
        tools,
        ["write_file", "replace", "run_shell_command"],
        "{cps}"
    );
    let p1 = first_prompt(&b, &session);
    let log = b.ok(&["log", &session]);
    assert!(
        log["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .any(|m| m["text"] == "updated")
    );
    b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(b.read("test.txt").as_deref(), Some(&b"before\n"[..]));
    assert_eq!(b.read("list.txt").as_deref(), Some(&b"a\nb\n"[..]));
}

#[test]
fn a_qwen_code_session_is_recorded_and_rewound() {
    let b = Bench::new();
    b.write("main.py", b"print('hi')\n");
    let q = "qwen-code";
    // Qwen documents field lists and one inline payload (a run_shell_command PreToolUse).
    let at =
        |name: &str, fields| renamed(&b, q, "PreToolUse.run_shell_command.inline", name, fields);
    send(&b, q, &at("SessionStart", json!({ "source": "startup" })));
    send(
        &b,
        q,
        &at("UserPromptSubmit", json!({ "prompt": "greet louder" })),
    );
    let edit = json!({ "tool_name": "edit", "tool_input": { "file_path": abs(&b, "main.py"), "old_string": "hi", "new_string": "HI" }, "tool_use_id": "call_1" });
    send(&b, q, &at("PreToolUse", edit.clone()));
    b.write("main.py", b"print('HI')\n");
    send(&b, q, &at("PostToolUse", edit));
    let shell = json!({ "tool_name": "run_shell_command", "tool_input": { "command": "touch made.txt" }, "tool_use_id": "call_2" });
    send(&b, q, &at("PreToolUse", shell.clone()));
    sh(&b, "touch made.txt");
    send(&b, q, &at("PostToolUse", shell));
    send(
        &b,
        q,
        &at("Stop", json!({ "last_assistant_message": "louder now" })),
    );
    let session = current(&b);
    let p1 = first_prompt(&b, &session);
    b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(b.read("main.py").as_deref(), Some(&b"print('hi')\n"[..]));
    assert_eq!(b.read("made.txt"), None);
}

#[test]
fn unknown_events_tools_and_fields_are_ignored_and_bad_payloads_only_logged() {
    let b = Bench::new();
    b.write("a.txt", b"a\n");
    let cc = "claude-code";
    send(
        &b,
        cc,
        &event(
            &b,
            cc,
            "UserPromptSubmit",
            json!({ "prompt": "p", "brand_new_field": { "x": 1 } }),
        ),
    );
    let read = json!({ "tool_name": "Read", "tool_input": { "file_path": abs(&b, "a.txt") }, "tool_use_id": "t" });
    send(&b, cc, &event(&b, cc, "PreToolUse.Bash", read.clone()));
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", read));
    let mut odd = event(&b, cc, "Stop", json!({}));
    odd["hook_event_name"] = json!("SomethingNew");
    send(&b, cc, &odd);
    let session = current(&b);
    assert_eq!(
        b.ok(&["checkpoints", &session])
            .as_array()
            .expect("list")
            .len(),
        0
    );
    let log = std::fs::read_to_string(b.path(".rewind/hook.log")).unwrap_or_default();
    assert!(log.is_empty(), "ignoring is not an error: {log}");

    // Not JSON at all, and JSON without a session: still `{}` and exit 0, and logged.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rewind"))
        .args(["--workspace", b.ws().to_str().expect("utf8"), "hook", cc])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{not json")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        (out.status.code(), out.stdout.as_slice(), out.stderr.len()),
        (Some(0), &b"{}\n"[..], 0)
    );
    let mut no_session = event(&b, cc, "UserPromptSubmit", json!({ "prompt": "x" }));
    no_session
        .as_object_mut()
        .expect("object")
        .remove("session_id");
    send(&b, cc, &no_session);
    let log = std::fs::read_to_string(b.path(".rewind/hook.log")).expect("logged");
    assert!(
        log.contains("not JSON") && log.contains("no session_id"),
        "{log}"
    );
}

#[test]
fn an_after_event_without_its_before_event_is_still_recorded_exactly() {
    let b = Bench::new();
    b.write("a.txt", b"one\n");
    let cc = "claude-code";
    send(
        &b,
        cc,
        &event(&b, cc, "UserPromptSubmit", json!({ "prompt": "p" })),
    );
    // The PreToolUse hook never ran (disabled, timed out): the turn's snapshot knows a.txt.
    b.write("a.txt", b"two\n");
    let edit = json!({ "tool_name": "Edit", "tool_input": { "file_path": abs(&b, "a.txt") }, "tool_use_id": "t9" });
    send(&b, cc, &event(&b, cc, "PostToolUse.Write", edit));
    let session = current(&b);
    let p1 = first_prompt(&b, &session);
    b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"one\n"[..]));
}
