//! `rewind hook` with what the real agents send beyond their documented examples: where the
//! workspace is (Claude Code started in a subdirectory, rewind installed in the user's
//! settings), Qwen Code's empty continuation prompts and resumed prompts, `StopFailure`, Gemini
//! CLI's missing `AfterAgent` and its call-id-less tool events, Claude Code's `originalFile`,
//! a rewind binary whose path holds `$`, and what `hook.log` says. Payloads are the fixtures in
//! tests/fixtures/hooks/ (their sources in SOURCES.md), fed to the real binary one process per
//! event, through the very command `rewind init` wrote when a test is about the command.
#![cfg(unix)]

use crate::common;

use common::{Bench, PROJECT_VARS, fixture, s};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Fixture `name` of `agent` in directory `cwd`, for agent session `session`, with `fields`.
fn payload(agent: &str, name: &str, cwd: &Path, session: &str, fields: Value) -> Value {
    let mut v = fixture(agent, name);
    let o = v.as_object_mut().expect("an object");
    o.insert("cwd".into(), json!(cwd));
    o.insert("session_id".into(), json!(session));
    for (k, val) in fields.as_object().expect("fields") {
        o.insert(k.clone(), val.clone());
    }
    v
}

/// One hook process for `agent` as the agent runs it: `rewind hook <agent>`, from `cwd`,
/// with the agent's project-directory variable set to `project`.
fn send(agent: &str, cwd: &Path, project: &Path, payload: &Value) {
    let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
    hook.args(["hook", agent]);
    for v in PROJECT_VARS {
        hook.env(v, project);
    }
    run_from(hook, cwd, payload);
}

fn run_from(mut hook: Command, cwd: &Path, payload: &Value) {
    hook.env_remove("REWIND_STORE");
    let dir = tempfile::tempdir().expect("tempdir");
    // expect_hook_continues runs from the temp dir; the agent runs the hook in its cwd.
    let script = dir.path().join("in-cwd.sh");
    std::fs::write(&script, "cd \"$1\" && shift && exec \"$@\"\n").expect("script");
    let program = hook.get_program().to_owned();
    let args: Vec<_> = hook.get_args().map(ToOwned::to_owned).collect();
    let mut wrapped = Command::new("sh");
    wrapped.arg(&script).arg(cwd).arg(program).args(args);
    for (k, v) in hook.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    common::expect_hook_continues(wrapped, payload);
}

fn canon(p: &Path) -> PathBuf {
    p.canonicalize().expect("canonical")
}

fn hook_log(ws: &Path) -> String {
    std::fs::read_to_string(ws.join(".rewind/hook.log")).unwrap_or_default()
}

/// The statuses of the store's turns, oldest first (read from the database itself: no
/// command shows a turn's status).
fn turn_statuses(ws: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open(ws.join(".rewind/rewind.db")).expect("open db");
    let mut q = db
        .prepare("SELECT body FROM turns ORDER BY seq")
        .expect("query");
    q.query_map([], |r| r.get::<_, String>(0))
        .expect("rows")
        .map(|b| {
            let v: Value = serde_json::from_str(&b.expect("row")).expect("turn json");
            s(&v, "status")
        })
        .collect()
}

fn only_session(b: &Bench) -> String {
    let list = b.ok(&["session", "list"]);
    assert_eq!(list.as_array().expect("list").len(), 1, "{list}");
    s(&list[0], "id")
}

fn prompts(b: &Bench, session: &str) -> Vec<(String, String)> {
    let log = b.ok(&["log", session]);
    log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["kind"] == "prompt")
        .map(|m| (s(m, "id"), s(m, "text")))
        .collect()
}

fn git_init(dir: &Path) {
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .expect("git");
    assert!(ok.success());
}

/// The case: `rewind init claude-code --user`, Claude Code started in `src/` of a
/// repository. The store is at the repository's top, a Write above `src/` is recorded, an
/// event from deeper down lands in the same store, and the turn rewinds.
#[test]
fn claude_code_started_in_a_subdirectory_records_at_the_repository_top() {
    let b = Bench::new();
    let home = tempfile::tempdir().expect("home");
    git_init(b.ws());
    b.write("README.md", b"top\n");
    b.write("src/deep/x.rs", b"x\n");
    let ws = canon(b.ws());
    let src = ws.join("src");
    let init = b
        .command()
        .args(["init", "claude-code", "--user"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("init");
    assert!(init.status.success(), "{init:?}");
    let said = String::from_utf8_lossy(&init.stdout);
    assert!(
        !said.contains("only when started in"),
        "user settings run anywhere: {said}"
    );
    let settings: Value = serde_json::from_slice(
        &std::fs::read(home.path().join(".claude/settings.json")).expect("user settings"),
    )
    .expect("json");
    let command = s(&settings["hooks"]["Stop"][0]["hooks"][0], "command");
    // Claude Code runs the hook command with a shell, in its cwd, CLAUDE_PROJECT_DIR set.
    let cc = |cwd: &Path, name: &str, fields: Value| {
        let mut hook = Command::new("sh");
        hook.args(["-c", &command]);
        hook.env("CLAUDE_PROJECT_DIR", &src);
        run_from(
            hook,
            cwd,
            &payload("claude-code", name, cwd, "cc-1", fields),
        );
    };
    cc(&src, "SessionStart", json!({}));
    cc(
        &src,
        "UserPromptSubmit",
        json!({ "prompt": "fix the readme" }),
    );
    let readme = ws.join("README.md").display().to_string();
    let write = json!({ "tool_name": "Write", "tool_input": { "file_path": readme, "content": "new\n" }, "tool_use_id": "t1" });
    cc(&src, "PreToolUse.Bash", write.clone());
    b.write("README.md", b"new\n");
    cc(&src, "PostToolUse.Write", write);
    // Bash ran `cd deep`: the next event's cwd is deeper; a relative path is the agent's.
    let deep = src.join("deep");
    let edit =
        json!({ "tool_name": "Edit", "tool_input": { "file_path": "x.rs" }, "tool_use_id": "t2" });
    cc(&deep, "PreToolUse.Bash", edit.clone());
    b.write("src/deep/x.rs", b"y\n");
    cc(&deep, "PostToolUse.Write", edit);
    // And from a cwd outside the repository (the project directory is the same): the same
    // store, the same root.
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let top = json!({ "tool_name": "Write", "tool_input": { "file_path": ws.join("new.md") }, "tool_use_id": "t3" });
    cc(elsewhere.path(), "PreToolUse.Bash", top.clone());
    b.write("new.md", b"n\n");
    cc(elsewhere.path(), "PostToolUse.Write", top);
    assert!(!elsewhere.path().join(".rewind").exists());
    cc(&deep, "Stop", json!({ "last_assistant_message": "done" }));

    assert!(
        ws.join(".rewind/rewind.db").exists(),
        "the store is at the top"
    );
    assert!(!src.join(".rewind").exists(), "no store in src/");
    assert!(!deep.join(".rewind").exists(), "no store in src/deep/");
    assert_eq!(hook_log(&ws), "", "a normal session logs nothing");
    let session = only_session(&b);
    let (p1, _) = prompts(&b, &session).remove(0);
    let applied = b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("README.md").as_deref(), Some(&b"top\n"[..]));
    assert_eq!(b.read("src/deep/x.rs").as_deref(), Some(&b"x\n"[..]));
    assert_eq!(b.read("new.md"), None);
}

/// A workspace with a store already: the nearest `.rewind/` above the agent's directory wins
/// over the git top level; a file outside it is a `hook.log` line naming the event, the
/// session and the file (control characters shown escaped), not a silent drop.
#[test]
fn a_file_outside_the_workspace_is_told_in_hook_log() {
    let b = Bench::new();
    git_init(b.ws());
    std::fs::create_dir_all(b.path("pkg/.rewind")).expect("a store in pkg/");
    b.write("outside\x1b]0;x.txt", b"o\n");
    let ws = canon(b.ws());
    let pkg = ws.join("pkg");
    let cc = "claude-code";
    send(
        cc,
        &pkg,
        &pkg,
        &payload(cc, "UserPromptSubmit", &pkg, "cc-2", json!({})),
    );
    let outside = ws.join("outside\x1b]0;x.txt").display().to_string();
    let write = json!({ "tool_name": "Write", "tool_input": { "file_path": outside }, "tool_use_id": "t1" });
    send(
        cc,
        &pkg,
        &pkg,
        &payload(cc, "PreToolUse.Bash", &pkg, "cc-2", write.clone()),
    );
    send(
        cc,
        &pkg,
        &pkg,
        &payload(cc, "PostToolUse.Write", &pkg, "cc-2", write),
    );
    assert!(pkg.join(".rewind/rewind.db").exists(), "recorded in pkg/");
    assert!(!ws.join(".rewind").exists(), "not at the git top");
    let log = hook_log(&pkg);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 1, "{log}");
    let line = lines[0];
    for part in [
        " claude-code PostToolUse session cc-2: ",
        "outside^[]0;x.txt is outside the workspace",
        "not recorded",
    ] {
        assert!(line.contains(part), "{part:?} in {line:?}");
    }
    assert!(!log.contains('\x1b'), "no raw escape in {log:?}");
}

/// Qwen Code: the empty `UserPromptSubmit` before each tool-result continuation starts no
/// turn and logs nothing; a resumed session's prompt is what the person typed; `StopFailure`
/// ends the turn as failed.
#[test]
fn qwen_code_continuations_resumed_prompts_and_stop_failure() {
    let b = Bench::new();
    b.write("a.txt", b"one\n");
    let ws = canon(b.ws());
    let q = "qwen-code";
    let ev = |name: &str, fields: Value| payload(q, name, &ws, "qw-1", fields);
    send(q, &ws, &ws, &ev("UserPromptSubmit.resumed", json!({})));
    let shell = |id: &str| json!({ "tool_name": "run_shell_command", "tool_input": { "command": "echo two > a.txt" }, "tool_use_id": id });
    for (i, after) in [b"two\n", b"six\n"].iter().enumerate() {
        let id = format!("call_{i}");
        let pre = payload(
            q,
            "PreToolUse.run_shell_command.inline",
            &ws,
            "qw-1",
            shell(&id),
        );
        let mut pre = pre;
        pre["hook_event_name"] = json!("PreToolUse");
        send(q, &ws, &ws, &pre);
        b.write("a.txt", *after);
        pre["hook_event_name"] = json!("PostToolUse");
        send(q, &ws, &ws, &pre);
        send(q, &ws, &ws, &ev("UserPromptSubmit.continuation", json!({})));
    }
    send(q, &ws, &ws, &ev("StopFailure", json!({})));
    assert_eq!(hook_log(&ws), "", "nothing to tell");
    let session = only_session(&b);
    let ps = prompts(&b, &session);
    assert_eq!(ps.len(), 1, "one turn: {ps:?}");
    assert_eq!(ps[0].1, "add a test for parse()", "what the person typed");
    assert_eq!(turn_statuses(&ws), ["failed"]);
    let log = b.ok(&["log", &session]);
    let reply = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["kind"] == "reply" || m["role"] == "assistant")
        .cloned()
        .expect("the error is recorded as the reply");
    assert!(s(&reply, "text").contains("rate_limit"), "{reply}");
    let applied = b.ok(&["apply", &session, "--since", &ps[0].0]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"one\n"[..]));
}

/// Gemini CLI: no `AfterAgent` after a model error, so the next `BeforeAgent` ends the running
/// turn as failed before its own starts; and two `replace` calls on one path (no call ids)
/// both keep their before-state, so the turn rewinds to the bytes from before the first.
#[test]
fn gemini_cli_missing_after_agent_and_two_calls_on_one_path() {
    let b = Bench::new();
    b.write("a.txt", b"one\n");
    let ws = canon(b.ws());
    let g = "gemini-cli";
    let ev = |name: &str, fields: Value| payload(g, name, &ws, "gm-1", fields);
    send(
        g,
        &ws,
        &ws,
        &ev("BeforeAgent", json!({ "prompt": "first" })),
    );
    // The model failed: no AfterAgent. The person asks again.
    send(
        g,
        &ws,
        &ws,
        &ev("BeforeAgent", json!({ "prompt": "second" })),
    );
    let path = ws.join("a.txt").display().to_string();
    let replace =
        json!({ "tool_input": { "file_path": path, "old_string": "x", "new_string": "y" } });
    let before = |_: ()| {
        let mut v = ev("AfterTool.replace", replace.clone());
        v["hook_event_name"] = json!("BeforeTool");
        v.as_object_mut().expect("obj").remove("tool_response");
        v
    };
    send(g, &ws, &ws, &before(()));
    b.write("a.txt", b"two\n");
    // The second call is announced after the first ran, before the first's AfterTool.
    send(g, &ws, &ws, &before(()));
    b.write("a.txt", b"three\n");
    send(g, &ws, &ws, &ev("AfterTool.replace", replace.clone()));
    send(g, &ws, &ws, &ev("AfterTool.replace", replace));
    send(
        g,
        &ws,
        &ws,
        &ev("BeforeAgent", json!({ "prompt": "third" })),
    );
    assert_eq!(turn_statuses(&ws), ["failed", "failed", "running"]);
    assert_eq!(hook_log(&ws), "");
    let session = only_session(&b);
    let ps = prompts(&b, &session);
    let texts: Vec<&str> = ps.iter().map(|p| p.1.as_str()).collect();
    assert_eq!(texts, ["first", "second", "third"]);
    let applied = b.ok(&["apply", &session, "--since", &ps[1].0]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"one\n"[..]));
}

/// Claude Code's Edit result carries `originalFile`: when the PreToolUse event did not run
/// (a hook added mid-session, a timeout), it is the exact before-state. A sub-agent's event
/// (`agent_id`) records into its parent session's turn.
#[test]
fn claude_code_original_file_is_the_before_state_when_the_pre_event_was_missed() {
    let b = Bench::new();
    b.write("f.txt", b"old text\n");
    let ws = canon(b.ws());
    let cc = "claude-code";
    send(
        cc,
        &ws,
        &ws,
        &payload(cc, "UserPromptSubmit", &ws, "cc-3", json!({})),
    );
    b.write("f.txt", b"new text\n");
    let path = ws.join("f.txt").display().to_string();
    let mut post = payload(cc, "PostToolUse.Edit.originalFile", &ws, "cc-3", json!({}));
    post["tool_input"]["file_path"] = json!(path);
    post["tool_response"]["filePath"] = json!(path);
    send(cc, &ws, &ws, &post);
    let session = only_session(&b);
    let cps = b.ok(&["checkpoints", &session]);
    let tools: Vec<String> = cps
        .as_array()
        .expect("list")
        .iter()
        .map(|c| s(c, "toolName"))
        .collect();
    assert_eq!(tools, ["Edit"], "the Edit itself, not a snapshot: {cps}");
    let (p1, _) = prompts(&b, &session).remove(0);
    b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(b.read("f.txt").as_deref(), Some(&b"old text\n"[..]));
}

/// A rewind binary in a directory whose name holds `$GEMINI_CWD` (a name Gemini CLI replaces
/// in the command's text) and `$HOME`: `init` writes a command that reaches the binary intact
/// through Gemini's substitution and the shell, so the hooks record.
#[test]
fn a_binary_path_with_dollar_signs_survives_the_agents_expansion() {
    let b = Bench::new();
    b.write("a.txt", b"one\n");
    let ws = canon(b.ws());
    let bin = tempfile::tempdir().expect("bin");
    let dir = bin.path().join("x$GEMINI_CWD$HOME");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let exe = dir.join("rewind");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_rewind"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_rewind"), &exe).expect("copy the binary");
    }
    let init = Command::new(&exe)
        .args([
            "--workspace",
            ws.to_str().expect("utf8"),
            "init",
            "gemini-cli",
        ])
        .output()
        .expect("init");
    assert!(init.status.success(), "{init:?}");
    let text = String::from_utf8_lossy(&init.stdout);
    assert!(text.contains("only when started in"), "{text}");
    let settings: Value =
        serde_json::from_slice(&std::fs::read(ws.join(".gemini/settings.json")).expect("read"))
            .expect("json");
    let command = s(&settings["hooks"]["AfterAgent"][0]["hooks"][0], "command");
    // What Gemini CLI 0.61 does before running `bash -c` (its hook runner's expandCommand).
    let quoted = format!("'{}'", ws.display());
    let expanded = ["$GEMINI_PROJECT_DIR", "$GEMINI_CWD", "$CLAUDE_PROJECT_DIR"]
        .iter()
        .fold(command.clone(), |c, v| c.replace(v, &quoted));
    let g = "gemini-cli";
    let ev = |name: &str, fields: Value| payload(g, name, &ws, "gm-2", fields);
    let path = ws.join("a.txt").display().to_string();
    let replace = json!({ "tool_input": { "file_path": path } });
    let mut pre = ev("AfterTool.replace", replace.clone());
    pre["hook_event_name"] = json!("BeforeTool");
    let gemini = |p: &Value| {
        let mut hook = Command::new("bash");
        hook.args(["-c", &expanded]);
        for v in PROJECT_VARS {
            hook.env(v, &ws);
        }
        run_from(hook, &ws, p);
    };
    gemini(&ev("BeforeAgent", json!({})));
    gemini(&pre);
    b.write("a.txt", b"two\n");
    gemini(&ev("AfterTool.replace", replace));
    let session = only_session(&b);
    let cps = b.ok(&["checkpoints", &session]);
    assert_eq!(cps.as_array().expect("list").len(), 1, "{command}: {cps}");
    assert_eq!(hook_log(&ws), "");
}
