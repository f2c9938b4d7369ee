//! A hook never holds up the agent: the real binary fed FIFOs, endless devices, a stdin that
//! never closes and a store locked by another process, for every agent dialect. Each time it
//! answers `{}` with exit 0 within its time limit, records what it could, and says why in
//! `hook.log`.
#![cfg(unix)]

use crate::common;

use common::Bench;
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The hook's time limit in these tests (the default is 10 s): short enough to wait for, long
/// enough that a normal event on a loaded 2-core machine (the whole suite running at once) never
/// reaches it (1.5 s once did, for a first prompt).
const LIMIT_MS: u64 = 4000;

/// Well past the limit: a hook that took this long was not bounded.
const TOO_LONG: Duration = Duration::from_secs(12);

const AGENTS: [&str; 3] = ["claude-code", "gemini-cli", "qwen-code"];

/// Each agent's names for a prompt, a tool before and after, and the end of a turn, and its
/// file-writing tool.
fn names(agent: &str) -> (&str, &str, &str, &str, &str) {
    match agent {
        "gemini-cli" => (
            "BeforeAgent",
            "BeforeTool",
            "AfterTool",
            "AfterAgent",
            "write_file",
        ),
        "qwen-code" => (
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "write_file",
        ),
        _ => (
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "Write",
        ),
    }
}

fn payload(b: &Bench, event: &str, fields: Value) -> Value {
    let mut v = json!({
        "session_id": "agent-session-1",
        "cwd": b.ws().canonicalize().expect("ws"),
        "hook_event_name": event,
    });
    for (k, val) in fields.as_object().expect("fields") {
        v[k] = val.clone();
    }
    v
}

/// The hook process, its stdin a pipe; `ws`: the workspace given (else the payload's cwd).
fn spawn(agent: &str, ws: Option<&Path>) -> Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rewind"));
    if let Some(ws) = ws {
        c.arg("--workspace").arg(ws);
    }
    c.args(["hook", agent])
        .current_dir(std::env::temp_dir())
        .env_remove("REWIND_DB")
        .env_remove("REWIND_STORE")
        .env("REWIND_HOOK_TIMEOUT_MS", LIMIT_MS.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// The hook's answer: `{}`, exit 0, nothing on stderr.
fn continues(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert_eq!(out.stdout, b"{}\n", "{what}");
    assert!(
        out.stderr.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Run one hook event as agents do (payload on stdin, then EOF); how long it took.
fn send(agent: &str, body: &Value) -> Duration {
    let started = Instant::now();
    let mut child = spawn(agent, None);
    let bytes = serde_json::to_vec(body).expect("json");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&bytes)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let took = started.elapsed();
    continues(&out, &format!("{agent} {body}"));
    assert!(took < TOO_LONG, "{agent}: took {took:?}");
    took
}

fn hook_log(b: &Bench) -> String {
    std::fs::read_to_string(b.path(".rewind/hook.log")).unwrap_or_default()
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(ok.success());
}

fn sessions(b: &Bench) -> Vec<Value> {
    b.ok(&["session", "list"]).as_array().expect("list").clone()
}

/// The session's messages, as `rewind log --json` lists them.
fn messages(b: &Bench) -> Vec<Value> {
    let id = sessions(b)[0]["id"].as_str().expect("id").to_owned();
    b.ok(&["log", &id])["messages"]
        .as_array()
        .expect("messages")
        .clone()
}

#[test]
fn a_transcript_that_is_a_fifo_or_a_device_is_not_read_and_the_turn_still_ends() {
    for agent in AGENTS {
        let (prompt, _, _, stop, _) = names(agent);
        for (i, transcript) in ["fifo", "/dev/zero"].into_iter().enumerate() {
            let b = Bench::new();
            let path = if transcript == "fifo" {
                let p = b.ws().join("transcript.jsonl");
                mkfifo(&p);
                p
            } else {
                Path::new(transcript).to_path_buf()
            };
            send(
                agent,
                &payload(&b, prompt, json!({ "prompt": format!("p{i}") })),
            );
            // No reply in the event: the hook would look for one in the transcript.
            let took = send(
                agent,
                &payload(&b, stop, json!({ "transcript_path": path })),
            );
            assert!(
                took < Duration::from_millis(LIMIT_MS),
                "{agent}: {took:?}, not refused at once"
            );
            let log = hook_log(&b);
            let what = if transcript == "fifo" {
                "is a FIFO"
            } else {
                "is a device"
            };
            assert!(
                log.contains(what) && log.contains("not read"),
                "{agent}: {log}"
            );
            let msgs = messages(&b);
            assert_eq!(msgs.len(), 1, "{agent}: the prompt, and no reply: {msgs:?}");
            assert_eq!(msgs[0]["text"], format!("p{i}"));
            // The turn ended: a second Stop finds no running turn and logs nothing new.
            let before = hook_log(&b);
            send(
                agent,
                &payload(&b, stop, json!({ "last_assistant_message": "late" })),
            );
            assert_eq!(messages(&b).len(), 1, "{agent}: the turn had ended");
            assert_eq!(hook_log(&b), before);
        }
    }
}

#[test]
fn a_transcript_over_the_cap_is_read_from_its_end() {
    let b = Bench::new();
    let path = b.ws().join("transcript.jsonl");
    let filler = json!({ "type": "user", "message": { "content": "x".repeat(1000) } });
    let reply = json!({ "type": "assistant", "message": { "content": [{ "type": "text", "text": "the reply" }] } });
    let mut body = format!("{filler}\n").repeat(200);
    body.push_str(&format!("{reply}\n"));
    std::fs::write(&path, body).expect("write");
    send(
        "claude-code",
        &payload(&b, "UserPromptSubmit", json!({ "prompt": "p" })),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_rewind"));
    child
        .args(["hook", "claude-code"])
        .env("REWIND_HOOK_MAX_TRANSCRIPT_BYTES", "4096");
    common::expect_hook_continues(
        child,
        &payload(&b, "Stop", json!({ "transcript_path": path })),
    );
    let msgs = messages(&b);
    assert_eq!(msgs.last().expect("reply")["text"], "the reply", "{msgs:?}");
}

#[test]
fn stdin_that_never_closes_cannot_hold_the_hook() {
    // Every agent at once, nothing written and half a payload, stdin held open throughout:
    // each hook waits for the rest until its limit, then answers.
    let partials = ["", r#"{"session_id": "agent-session-1", "prompt": "#];
    let benches: Vec<Bench> = AGENTS.iter().map(|_| Bench::new()).collect();
    let started = Instant::now();
    let mut running = Vec::new();
    for (agent, b) in AGENTS.iter().zip(&benches) {
        std::fs::create_dir(b.path(".rewind")).expect("store dir");
        for partial in partials {
            let mut child = spawn(agent, Some(b.ws()));
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(partial.as_bytes()).expect("write");
            stdin.flush().expect("flush");
            running.push((agent, child, stdin));
        }
    }
    let mut kept_open = Vec::new();
    for (agent, child, stdin) in running {
        let out = child.wait_with_output().expect("wait");
        continues(&out, agent);
        kept_open.push(stdin); // closed only now, after the hook answered
    }
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(LIMIT_MS), "{took:?}");
    assert!(took < TOO_LONG, "{took:?}");
    for (agent, b) in AGENTS.iter().zip(&benches) {
        let log = hook_log(b);
        assert_eq!(log.matches("stopped after").count(), 2, "{agent}: {log}");
        assert!(
            log.contains("while reading the payload from stdin"),
            "{agent}: {log}"
        );
        // A whole payload with stdin left open is recorded at once: the document ends the read.
        let (prompt, ..) = names(agent);
        let started = Instant::now();
        let mut child = spawn(agent, None);
        let mut stdin = child.stdin.take().expect("stdin");
        let body = payload(b, prompt, json!({ "prompt": "kept open" }));
        stdin
            .write_all(&serde_json::to_vec(&body).expect("json"))
            .expect("write");
        stdin.flush().expect("flush");
        let out = child.wait_with_output().expect("wait");
        let took = started.elapsed();
        drop(stdin);
        continues(&out, agent);
        assert!(took < Duration::from_millis(LIMIT_MS), "{agent}: {took:?}");
        assert_eq!(messages(b)[0]["text"], "kept open", "{agent}");
    }
}

#[test]
fn a_tool_file_that_is_a_fifo_is_not_read_and_is_logged() {
    for agent in AGENTS {
        let (prompt, before, after, _, write) = names(agent);
        let b = Bench::new();
        let fifo = b.ws().join("pipe");
        mkfifo(&fifo);
        send(agent, &payload(&b, prompt, json!({ "prompt": "p" })));
        let tool =
            json!({ "tool_name": write, "tool_input": { "file_path": fifo }, "tool_use_id": "t1" });
        send(agent, &payload(&b, before, tool.clone()));
        send(agent, &payload(&b, after, tool));
        let log = hook_log(&b);
        assert!(
            log.contains("pipe is a FIFO") && log.contains("not read"),
            "{agent}: {log}"
        );
        // Recorded as a change whose content could not be captured, not lost silently.
        let id = sessions(&b)[0]["id"].as_str().expect("id").to_owned();
        let cps = b.ok(&["checkpoints", &id]);
        assert_eq!(cps.as_array().map(Vec::len), Some(1), "{agent}: {cps}");
        assert!(cps.to_string().contains("not_regular"), "{agent}: {cps}");
    }
}

#[test]
fn a_store_locked_past_the_limit_stops_the_hook_at_its_limit() {
    let b = Bench::new();
    send(
        "claude-code",
        &payload(&b, "UserPromptSubmit", json!({ "prompt": "first" })),
    );
    let conn = rusqlite::Connection::open(b.path(".rewind/rewind.db")).expect("open");
    conn.execute_batch("BEGIN EXCLUSIVE").expect("lock");
    let took = send(
        "claude-code",
        &payload(&b, "Stop", json!({ "last_assistant_message": "r" })),
    );
    assert!(took >= Duration::from_millis(LIMIT_MS), "{took:?}");
    conn.execute_batch("ROLLBACK").expect("unlock");
    let log = hook_log(&b);
    assert!(
        log.contains("Stop session agent-session-1: stopped after")
            && log.contains("REWIND_HOOK_TIMEOUT_MS"),
        "{log}"
    );
    // Nothing half-done: the turn is still running, and the next Stop ends it.
    send(
        "claude-code",
        &payload(&b, "Stop", json!({ "last_assistant_message": "r" })),
    );
    assert_eq!(messages(&b).len(), 2);
}

#[test]
fn a_shell_tool_that_removes_the_store_leaves_no_new_store_behind() {
    for agent in AGENTS {
        let (prompt, before, after, stop, _) = names(agent);
        let shell = if agent == "claude-code" {
            "Bash"
        } else {
            "run_shell_command"
        };
        let b = Bench::new();
        send(agent, &payload(&b, prompt, json!({ "prompt": "p" })));
        let tool = json!({ "tool_name": shell, "tool_input": { "command": "rm -rf .rewind" }, "tool_use_id": "t1" });
        send(agent, &payload(&b, before, tool.clone()));
        std::fs::remove_dir_all(b.path(".rewind")).expect("rm");
        send(agent, &payload(&b, after, tool));
        send(
            agent,
            &payload(&b, stop, json!({ "last_assistant_message": "done" })),
        );
        assert!(
            !b.path(".rewind").exists(),
            "{agent}: a store was made again"
        );
    }
}
