//! Whose a change is when an agent's hooks record a session: the person's save between two of
//! the agent's shell commands is the person's, and a background command's writes, after its
//! tool event returned and after the turn ended, are that command's, in the turn that started
//! it. The documented payloads (tests/fixtures/hooks/) fed to the real binary, one process per
//! event.
#![cfg(unix)]

use crate::common;

use common::{Bench, fixture, s};
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

/// Run one hook process as an agent does (with `env` set), the payload on stdin.
fn send_with(agent: &str, payload: &Value, env: &[(&str, &str)]) {
    let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
    hook.args(["hook", agent]);
    for (k, v) in env {
        hook.env(k, v);
    }
    common::expect_hook_continues(hook, payload);
}

/// Claude Code's documented payload `name` (as event `event`), with `fields` set on top.
fn claude(b: &Bench, name: &str, event: &str, fields: Value) -> Value {
    let mut v = fixture("claude-code", name);
    let o = v.as_object_mut().expect("an object");
    o.insert("cwd".into(), json!(b.ws().canonicalize().expect("ws")));
    o.insert("session_id".into(), json!("agent-session-1"));
    o.insert("hook_event_name".into(), json!(event));
    for (k, val) in fields.as_object().expect("fields") {
        o.insert(k.clone(), val.clone());
    }
    v
}

fn send(b: &Bench, name: &str, event: &str, fields: Value) {
    send_with("claude-code", &claude(b, name, event, fields), &[]);
}

fn prompt(b: &Bench, text: &str) {
    send(
        b,
        "UserPromptSubmit",
        "UserPromptSubmit",
        json!({ "prompt": text }),
    );
}

fn bash(id: &str, command: &str, background: bool) -> Value {
    json!({ "tool_name": "Bash", "tool_use_id": id,
            "tool_input": { "command": command, "run_in_background": background } })
}

fn sh(b: &Bench, script: &str) {
    let ok = Command::new("sh")
        .args(["-c", script])
        .current_dir(b.ws())
        .status()
        .expect("sh");
    assert!(ok.success());
}

/// One checkpoint as these tests look at it.
#[derive(Debug, PartialEq, Eq)]
struct Ckp {
    kind: String,
    tool: String,
    input: Option<String>,
    paths: Vec<String>,
    turn: String,
}

fn ckp(kind: &str, tool: &str, input: Option<&str>, paths: &[&str], turn: &str) -> Ckp {
    Ckp {
        kind: kind.into(),
        tool: tool.into(),
        input: input.map(Into::into),
        paths: paths.iter().map(|p| (*p).to_owned()).collect(),
        turn: turn.into(),
    }
}

/// The current session's checkpoints, oldest first.
fn checkpoints(b: &Bench) -> Vec<Ckp> {
    let cps = b.ok(&["checkpoints"]);
    cps.as_array()
        .expect("list")
        .iter()
        .map(|c| Ckp {
            kind: s(c, "kind"),
            tool: s(c, "toolName"),
            input: c["toolInput"].as_str().map(str::to_owned),
            paths: c["files"]
                .as_array()
                .expect("files")
                .iter()
                .map(|f| s(f, "path"))
                .collect(),
            turn: s(c, "turnId"),
        })
        .collect()
}

/// The session's prompts' (message id, turn id), oldest first.
fn prompts(b: &Bench) -> Vec<(String, String)> {
    let log = b.ok(&["log"]);
    let msgs = log["messages"].as_array().expect("messages");
    msgs.iter()
        .filter(|m| m["kind"] == "prompt")
        .map(|m| (s(m, "id"), s(m, "turnId")))
        .collect()
}

fn wait_for(b: &Bench, rel: &str) {
    let start = Instant::now();
    while b.read(rel).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{rel} never came"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_save_between_two_bash_calls_is_the_persons_and_apply_keeps_it() {
    let b = Bench::new();
    b.write("notes.md", b"n0\n");
    b.write("gen.txt", b"g0\n");
    send(&b, "SessionStart", "SessionStart", json!({}));
    prompt(&b, "generate twice");
    let first = bash("toolu_1", "echo g1 > gen.txt", false);
    send(&b, "PreToolUse.Bash", "PreToolUse", first.clone());
    sh(&b, "echo g1 > gen.txt");
    send(&b, "PreToolUse.Bash", "PostToolUse", first);
    b.write("notes.md", b"n0 and mine\n"); // the person saves, no agent tool running
    let second = bash("toolu_2", "echo out > out.txt", false);
    send(&b, "PreToolUse.Bash", "PreToolUse", second.clone());
    sh(&b, "echo out > out.txt");
    send(&b, "PreToolUse.Bash", "PostToolUse", second);
    let done = json!({ "last_assistant_message": "done", "background_tasks": [] });
    send(&b, "Stop", "Stop", done);
    let (p1, t1) = prompts(&b).remove(0);
    assert_eq!(
        checkpoints(&b),
        [
            ckp(
                "shell",
                "Bash",
                Some("echo g1 > gen.txt"),
                &["gen.txt"],
                &t1
            ),
            ckp("external", "external", None, &["notes.md"], &t1),
            ckp(
                "shell",
                "Bash",
                Some("echo out > out.txt"),
                &["out.txt"],
                &t1
            ),
        ]
    );
    let applied = b.ok(&["apply", "--since", &p1]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("gen.txt").as_deref(), Some(&b"g0\n"[..]));
    assert_eq!(b.read("out.txt"), None);
    assert_eq!(b.read("notes.md").as_deref(), Some(&b"n0 and mine\n"[..]));
}

/// A Bash call run in the background writes after its PostToolUse and after the turn's Stop;
/// both writes are the command's, in its turn; a `<task-notification>` turn (no prompt event)
/// is the agent's too; once Stop says nothing runs, the person's next save is theirs again.
#[test]
fn a_background_commands_late_writes_are_its_own_and_rewound_with_its_turn() {
    let b = Bench::new();
    b.write("notes.md", b"n0\n");
    send(&b, "SessionStart", "SessionStart", json!({}));
    prompt(&b, "build in the background");
    let line = "sleep 0.3; echo 1 > early.txt; sleep 0.6; echo 2 > late.txt";
    let call = bash("toolu_bg", line, true);
    send(&b, "PreToolUse.Bash", "PreToolUse", call.clone());
    let mut job = Command::new("sh")
        .args(["-c", line])
        .current_dir(b.ws())
        .spawn()
        .expect("spawn");
    send(&b, "PreToolUse.Bash", "PostToolUse", call);
    wait_for(&b, "early.txt");
    let listed = json!([{ "id": "bash_1", "type": "shell", "status": "running",
                          "description": "build", "command": line }]);
    let stop = json!({ "last_assistant_message": "started", "background_tasks": listed });
    send(&b, "Stop", "Stop", stop);
    assert!(job.wait().expect("wait").success());
    // Claude Code wakes when the task ends: a turn without a prompt event.
    let notify = bash("toolu_n", "cat late.txt > seen.txt", false);
    send(&b, "PreToolUse.Bash", "PreToolUse", notify.clone());
    sh(&b, "cat late.txt > seen.txt");
    send(&b, "PreToolUse.Bash", "PostToolUse", notify);
    let idle = json!({ "last_assistant_message": "built", "background_tasks": [] });
    send(&b, "Stop", "Stop", idle.clone());
    b.write("notes.md", b"n0 and mine\n");
    prompt(&b, "something else");
    send(&b, "Stop", "Stop", idle);

    let turns = prompts(&b);
    let (t1, t2) = (turns[0].1.clone(), turns[1].1.clone());
    let seen = "cat late.txt > seen.txt";
    assert_eq!(
        checkpoints(&b),
        [
            ckp("shell", "Bash", Some(line), &["early.txt"], &t1),
            ckp("shell", "Bash", Some(line), &["late.txt"], &t1),
            ckp("shell", "Bash", Some(seen), &["seen.txt"], &t1),
            ckp("external", "external", None, &["notes.md"], &t2),
        ]
    );
    let applied = b.ok(&["apply", "--turn", &t1]);
    assert_eq!(applied["applied"], true, "{applied}");
    for gone in ["early.txt", "late.txt", "seen.txt"] {
        assert_eq!(b.read(gone), None, "{gone} is rewound with its turn");
    }
    assert_eq!(b.read("notes.md").as_deref(), Some(&b"n0 and mine\n"[..]));
}

/// Qwen Code never says when background work ends: it is followed for the bounded window
/// (`REWIND_HOOK_BACKGROUND_SECS`), and after it what changes is the person's again.
#[test]
fn qwen_background_work_is_followed_for_a_bounded_time_only() {
    let b = Bench::new();
    b.write("main.py", b"print('hi')\n");
    let env = [("REWIND_HOOK_BACKGROUND_SECS", "1")];
    let at = |name: &str, fields: Value| {
        let mut v = fixture("qwen-code", "PreToolUse.run_shell_command.inline");
        v["hook_event_name"] = json!(name);
        v["cwd"] = json!(b.ws().canonicalize().expect("ws"));
        v["session_id"] = json!("qwen-1");
        for (k, val) in fields.as_object().expect("fields") {
            v[k] = val.clone();
        }
        v
    };
    let q = |name: &str, fields: Value| send_with("qwen-code", &at(name, fields), &env);
    q("UserPromptSubmit", json!({ "prompt": "serve" }));
    let serve = json!({ "tool_name": "run_shell_command", "tool_use_id": "call_1",
                        "tool_input": { "command": "./serve.sh", "is_background": true } });
    q("PreToolUse", serve.clone());
    q("PostToolUse", serve);
    b.write("served.log", b"up\n"); // the server writes after its tool returned
    q("Stop", json!({ "last_assistant_message": "serving" }));
    std::thread::sleep(Duration::from_millis(1500));
    b.write("main.py", b"print('mine')\n"); // past the window: the person's
    q("UserPromptSubmit", json!({ "prompt": "next" }));
    let t = |i: usize| prompts(&b)[i].1.clone();
    assert_eq!(
        checkpoints(&b),
        [
            ckp(
                "shell",
                "run_shell_command",
                Some("./serve.sh"),
                &["served.log"],
                &t(0)
            ),
            ckp("external", "external", None, &["main.py"], &t(1)),
        ]
    );
}

/// Hook processes of one session that start background work at the same moment each keep
/// theirs: the state is changed under a lock, so no registration is lost.
#[test]
fn concurrent_hooks_lose_no_background_work() {
    let b = Bench::new();
    send(&b, "SessionStart", "SessionStart", json!({}));
    prompt(&b, "start many");
    let hooks: Vec<_> = (0..6)
        .map(|i| {
            let call = bash(&format!("toolu_{i}"), &format!("./job{i}.sh"), true);
            let payload = claude(&b, "PreToolUse.Bash", "PostToolUse", call);
            std::thread::spawn(move || send_with("claude-code", &payload, &[]))
        })
        .collect();
    for h in hooks {
        h.join().expect("hook");
    }
    let dir = b.path(".rewind/hook-background");
    let states: Vec<_> = std::fs::read_dir(&dir)
        .expect("state dir")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(states.len(), 1, "one state file for the agent session");
    let state: Value =
        serde_json::from_slice(&std::fs::read(states[0].path()).expect("read")).expect("json");
    let mut calls: Vec<String> = state["running"]
        .as_array()
        .expect("running")
        .iter()
        .map(|r| s(r, "callId"))
        .collect();
    calls.sort();
    let want: Vec<String> = (0..6).map(|i| format!("toolu_{i}")).collect();
    assert_eq!(calls, want);
    // A turn end that lists none of them ends them all: the state is gone.
    let idle = json!({ "last_assistant_message": "ok", "background_tasks": [] });
    send(&b, "Stop", "Stop", idle);
    assert!(!states[0].path().exists());
}
