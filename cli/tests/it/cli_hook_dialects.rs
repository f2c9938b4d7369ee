//! `rewind hook` fed the other agents' documented payloads (tests/fixtures/hooks/, sources in
//! SOURCES.md): VS Code's Copilot agent and Continue's `cn` running a Claude Code install,
//! Cursor, Codex's `apply_patch` (add, update, delete, move, and as a shell heredoc),
//! Windsurf, Cline (a tool event before its prompt) and a session-less Kiro payload. Each
//! session is then rewound with `apply`, which restores every byte, and `undo`.
#![cfg(unix)]

use crate::common;

use common::{Bench, expect_hook_continues, fixture, s};
use serde_json::{Value, json};

/// Fixture `name` of `agent`, with `fields` set (`/repo` in its strings is the workspace).
fn payload(b: &Bench, agent: &str, name: &str, fields: Value) -> Value {
    let text = fixture(agent, name).to_string();
    let ws = b.ws().display().to_string();
    let mut v: Value = serde_json::from_str(&text.replace("/repo", &ws)).expect("json");
    for (k, val) in fields.as_object().expect("fields") {
        v[k] = val.clone();
    }
    v
}

fn send(b: &Bench, agent: &str, payload: &Value) {
    let mut hook = b.command();
    hook.args(["hook", agent]).env_remove("CURSOR_PROJECT_DIR");
    expect_hook_continues(hook, payload);
}

fn hook_log(b: &Bench) -> String {
    std::fs::read_to_string(b.path(".rewind/hook.log")).unwrap_or_default()
}

/// The only session, and its first prompt's message id.
fn session_and_first_prompt(b: &Bench) -> (String, String) {
    let list = b.ok(&["session", "list"]);
    assert_eq!(list.as_array().expect("list").len(), 1, "{list}");
    let session = s(&list[0], "id");
    let log = b.ok(&["log", &session]);
    let first = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["kind"] == "prompt")
        .map(|m| s(m, "id"))
        .expect("a prompt");
    (session, first)
}

/// Rewind the session to before its first prompt: every file is as in `before`; undo: as in
/// `after`.
fn rewinds(b: &Bench, before: &[(&str, Option<&[u8]>)], after: &[(&str, Option<&[u8]>)]) {
    let (session, first) = session_and_first_prompt(b);
    let applied = b.ok(&["apply", &session, "--since", &first]);
    assert_eq!(applied["applied"], true, "{applied}");
    for (path, bytes) in before {
        assert_eq!(b.read(path).as_deref(), *bytes, "{path} after apply");
    }
    b.ok(&["undo", &session, &s(&applied, "operationId")]);
    for (path, bytes) in after {
        assert_eq!(b.read(path).as_deref(), *bytes, "{path} after undo");
    }
}

fn renamed(v: &Value, event: &str) -> Value {
    let mut v = v.clone();
    for key in [
        "hook_event_name",
        "hookEventName",
        "hookName",
        "agent_action_name",
    ] {
        if v.get(key).is_some() {
            v[key] = json!(event);
        }
    }
    v
}

#[test]
fn vscode_copilots_create_file_through_a_claude_code_install_rewinds() {
    let b = Bench::new();
    let cc = "claude-code";
    send(
        &b,
        cc,
        &payload(&b, "copilot", "vscode.UserPromptSubmit", json!({})),
    );
    let create = payload(&b, "copilot", "vscode.PreToolUse.create_file", json!({}));
    send(&b, cc, &create);
    b.write("src/new.ts", b"export {};\n");
    send(&b, cc, &renamed(&create, "PostToolUse"));
    // VS Code ignores matchers: a read comes too. Ignored, and counted for `rewind doctor`.
    let mut read = create;
    read["tool_name"] = json!("read_file");
    send(&b, cc, &read);
    assert_eq!(hook_log(&b), "", "nothing missed");
    let ignored = std::fs::read_to_string(b.path(".rewind/hook-ignored.jsonl")).expect("counted");
    let row: Value = serde_json::from_str(ignored.trim()).expect("one JSON line");
    assert_eq!(
        (&row["host"], &row["event"], &row["tool"]),
        (&json!("vscode"), &json!("PreToolUse"), &json!("read_file"))
    );
    rewinds(
        &b,
        &[("src/new.ts", None)],
        &[("src/new.ts", Some(b"export {};\n"))],
    );
}

#[test]
fn cns_write_with_filepath_through_a_claude_code_install_rewinds() {
    let b = Bench::new();
    b.write("notes.md", b"old notes\n");
    let cc = "claude-code";
    let write = payload(&b, "continue", "PreToolUse.Write", json!({}));
    send(&b, cc, &renamed(&write, "UserPromptSubmit").tap_prompt());
    send(&b, cc, &write);
    b.write("notes.md", b"# notes\n");
    send(&b, cc, &renamed(&write, "PostToolUse"));
    assert_eq!(hook_log(&b), "", "nothing missed");
    rewinds(
        &b,
        &[("notes.md", Some(b"old notes\n"))],
        &[("notes.md", Some(b"# notes\n"))],
    );
}

trait Prompted {
    fn tap_prompt(self) -> Value;
}

impl Prompted for Value {
    /// The event as a prompt: Claude Code's `UserPromptSubmit` fields.
    fn tap_prompt(mut self) -> Value {
        let o = self.as_object_mut().expect("obj");
        o.remove("tool_name");
        o.remove("tool_input");
        o.insert("prompt".into(), json!("write the notes"));
        self
    }
}

#[test]
fn a_cursor_session_rewinds_its_edit_and_its_shell_command() {
    let b = Bench::new();
    b.write("README.md", b"tyop\n");
    b.write("fmt.txt", b"unformatted\n");
    send(
        &b,
        "cursor",
        &payload(&b, "cursor", "beforeSubmitPrompt", json!({})),
    );
    let write = payload(&b, "cursor", "preToolUse.Write", json!({}));
    send(&b, "cursor", &write);
    b.write("README.md", b"fixed\n");
    send(&b, "cursor", &renamed(&write, "postToolUse"));
    let shell = payload(&b, "cursor", "beforeShellExecution", json!({}));
    send(&b, "cursor", &shell);
    b.write("fmt.txt", b"formatted\n");
    send(&b, "cursor", &renamed(&shell, "afterShellExecution"));
    send(&b, "cursor", &payload(&b, "cursor", "stop", json!({})));
    assert_eq!(hook_log(&b), "");
    rewinds(
        &b,
        &[
            ("README.md", Some(b"tyop\n")),
            ("fmt.txt", Some(b"unformatted\n")),
        ],
        &[
            ("README.md", Some(b"fixed\n")),
            ("fmt.txt", Some(b"formatted\n")),
        ],
    );
}

#[test]
fn codex_patches_add_update_move_and_delete_exactly_and_as_a_heredoc() {
    let b = Bench::new();
    b.write("src/app.py", b"print(\"Hi\")\n");
    b.write("obsolete.txt", b"old\n");
    b.write("keep.txt", b"a\n");
    b.write("half.txt", b"1\n");
    let codex = "codex";
    send(
        &b,
        codex,
        &payload(&b, codex, "UserPromptSubmit", json!({})),
    );
    let patch = payload(&b, codex, "PreToolUse.apply_patch", json!({}));
    send(&b, codex, &patch);
    b.write("hello.txt", b"Hello world\n");
    std::fs::remove_file(b.path("src/app.py")).expect("move away");
    b.write("src/main.py", b"print(\"Hello, world!\")\n");
    std::fs::remove_file(b.path("obsolete.txt")).expect("delete");
    send(&b, codex, &renamed(&patch, "PostToolUse"));
    // The same through the shell.
    let heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: keep.txt\n@@\n-a\n+b\n\
                   *** End Patch\nEOF\n";
    let bash = payload(
        &b,
        codex,
        "PreToolUse.Bash",
        json!({ "tool_input": { "command": heredoc } }),
    );
    send(&b, codex, &bash);
    b.write("keep.txt", b"b\n");
    send(&b, codex, &renamed(&bash, "PostToolUse"));
    // A call that failed half-way: Codex sends no PostToolUse for it; the turn's Stop
    // re-reads its file, and the change is the tool's (exactly its before-bytes).
    let failed = "*** Begin Patch\n*** Update File: half.txt\n@@\n-1\n+2\n*** End Patch";
    let mut half = payload(&b, codex, "PreToolUse.apply_patch", json!({}));
    half["tool_input"]["command"] = json!(failed);
    half["tool_use_id"] = json!("call_patch_2");
    send(&b, codex, &half);
    b.write("half.txt", b"2\n");
    send(&b, codex, &payload(&b, codex, "Stop", json!({})));
    assert_eq!(hook_log(&b), "");
    let (session, _) = session_and_first_prompt(&b);
    let cps = b.ok(&["checkpoints", &session]).to_string();
    let by_tool = cps.matches("\"apply_patch\"").count();
    assert!(by_tool >= 2, "the failed call is the tool's: {cps}");
    let original: [(&str, Option<&[u8]>); 6] = [
        ("half.txt", Some(b"1\n")),
        ("src/app.py", Some(b"print(\"Hi\")\n")),
        ("obsolete.txt", Some(b"old\n")),
        ("hello.txt", None),
        ("src/main.py", None),
        ("keep.txt", Some(b"a\n")),
    ];
    let patched: [(&str, Option<&[u8]>); 6] = [
        ("half.txt", Some(b"2\n")),
        ("src/app.py", None),
        ("obsolete.txt", None),
        ("hello.txt", Some(b"Hello world\n")),
        ("src/main.py", Some(b"print(\"Hello, world!\")\n")),
        ("keep.txt", Some(b"b\n")),
    ];
    rewinds(&b, &original, &patched);
}

#[test]
fn a_windsurf_trajectory_rewinds() {
    let b = Bench::new();
    b.write("src/helper.py", b"def helper():\n");
    b.write("fmt.py", b"x=1\n");
    let w = "windsurf";
    send(&b, w, &payload(&b, w, "pre_user_prompt", json!({})));
    let write = payload(&b, w, "pre_write_code", json!({}));
    send(&b, w, &write);
    b.write("src/helper.py", b"def assist():\n");
    send(&b, w, &renamed(&write, "post_write_code"));
    let run = payload(&b, w, "pre_run_command", json!({}));
    send(&b, w, &run);
    b.write("fmt.py", b"x = 1\n");
    send(&b, w, &renamed(&run, "post_run_command"));
    send(&b, w, &payload(&b, w, "post_cascade_response", json!({})));
    assert_eq!(hook_log(&b), "");
    rewinds(
        &b,
        &[
            ("src/helper.py", Some(b"def helper():\n")),
            ("fmt.py", Some(b"x=1\n")),
        ],
        &[
            ("src/helper.py", Some(b"def assist():\n")),
            ("fmt.py", Some(b"x = 1\n")),
        ],
    );
}

#[test]
fn a_cline_tool_before_its_detached_prompt_opens_the_turn() {
    let b = Bench::new();
    let c = "cline";
    let write = payload(&b, c, "PreToolUse.write_to_file", json!({}));
    send(&b, c, &write);
    b.write("src/index.ts", b"console.log(1)\n");
    let mut post = renamed(&write, "PostToolUse");
    post["postToolUse"] = post["preToolUse"].clone();
    post.as_object_mut().expect("obj").remove("preToolUse");
    send(&b, c, &post);
    // The prompt, run detached, arrives now: it joins the turn, not one of its own.
    send(&b, c, &payload(&b, c, "UserPromptSubmit", json!({})));
    send(&b, c, &payload(&b, c, "TaskComplete", json!({})));
    assert_eq!(hook_log(&b), "");
    let (session, _) = session_and_first_prompt(&b);
    let log = b.ok(&["log", &session]);
    let prompts = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["kind"] == "prompt")
        .count();
    assert_eq!(prompts, 1, "{log}");
    assert!(log.to_string().contains("log something"), "{log}");
    rewinds(
        &b,
        &[("src/index.ts", None)],
        &[("src/index.ts", Some(b"console.log(1)\n"))],
    );
}

#[test]
fn a_session_less_kiro_payload_gets_a_stable_synthetic_session() {
    let b = Bench::new();
    let cc = "claude-code";
    send(&b, cc, &payload(&b, "kiro", "userPromptSubmit", json!({})));
    let write = payload(&b, "kiro", "preToolUse.fs_write", json!({}));
    send(&b, cc, &write);
    b.write("hello.py", b"print('hello')\n");
    send(&b, cc, &renamed(&write, "postToolUse"));
    send(&b, cc, &json!({ "hook_event_name": "stop", "cwd": b.ws() }));
    let log = hook_log(&b);
    assert_eq!(log.lines().count(), 1, "told once: {log}");
    assert!(
        log.contains("no session_id: recording in synthetic-claude-code-kiro-"),
        "{log}"
    );
    rewinds(
        &b,
        &[("hello.py", None)],
        &[("hello.py", Some(b"print('hello')\n"))],
    );
}
