//! A rewind of a session Claude Code's hooks recorded ends with the command that resumes Claude
//! Code's own conversation at the same point: the hooks, fed a real transcript
//! (tests/fixtures/transcripts/, sources in fixtures/hooks/SOURCES.md) a prompt at a time as
//! Claude Code writes it, keep where it stood before each prompt; conversation, both, fork, side
//! chat and edit-prompt print the argv (`--json`: `agentResume`). The agent's files are read,
//! never written.
#![cfg(unix)]

use crate::common;

use common::{Bench, fixture};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const SESSION: &str = "69537d8e-ef6c-47a5-b72e-d4b40db198aa";

/// The fixture transcript's lines, and where each of its three prompts begins.
fn transcript() -> (Vec<String>, Vec<usize>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts/claude-code-2.1.332.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(path)
        .expect("fixture")
        .lines()
        .map(str::to_owned)
        .collect();
    let prompts = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"content\":\"turn:"))
        .map(|(i, _)| i)
        .collect();
    (lines, prompts)
}

fn entry(line: &str) -> Value {
    serde_json::from_str(line).expect("an entry")
}

struct Agent {
    b: Bench,
    _home: tempfile::TempDir,
    transcript: PathBuf,
}

impl Agent {
    fn new() -> Self {
        let home = tempfile::tempdir().expect("home");
        let transcript = home.path().join(format!("{SESSION}.jsonl"));
        Self {
            b: Bench::new(),
            _home: home,
            transcript,
        }
    }

    fn send(&self, name: &str, fields: Value) {
        let mut v = fixture("claude-code", name);
        let o = v.as_object_mut().expect("an object");
        o.insert("cwd".into(), json!(self.b.ws().canonicalize().expect("ws")));
        o.insert("session_id".into(), json!(SESSION));
        o.insert("transcript_path".into(), json!(self.transcript));
        o.remove("background_tasks");
        for (k, val) in fields.as_object().expect("fields") {
            o.insert(k.clone(), val.clone());
        }
        let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
        hook.args(["hook", "claude-code"]);
        common::expect_hook_continues(hook, &v);
    }

    /// Claude Code's transcript holds `lines` (it appends; it never rewrites).
    fn holds(&self, lines: &[String]) {
        std::fs::write(&self.transcript, lines.join("\n") + "\n").expect("transcript");
    }

    /// The three turns of the fixture, each prompt sent with the transcript as it stood.
    fn three_turns(&self) -> Vec<String> {
        let (lines, at) = transcript();
        self.send("SessionStart", json!({}));
        for (k, &start) in at.iter().enumerate() {
            self.holds(&lines[..start]);
            let text = entry(&lines[start])["message"]["content"]
                .as_str()
                .expect("text")
                .to_owned();
            self.send("UserPromptSubmit", json!({ "prompt": text }));
            let end = at.get(k + 1).copied().unwrap_or(lines.len());
            self.holds(&lines[..end]);
            self.send("Stop", json!({ "last_assistant_message": "Done." }));
        }
        lines
    }
}

/// The entry Claude Code's prompt `k` (0-based) follows: its `parentUuid`.
fn before_prompt(k: usize) -> String {
    let (lines, at) = transcript();
    entry(&lines[at[k]])["parentUuid"]
        .as_str()
        .expect("a parent")
        .to_owned()
}

/// `argv` without its `--session-id <new id>` (chosen per rewind, so not known to the test).
fn chosen(argv: &Value) -> Value {
    let mut v: Vec<Value> = argv.as_array().expect("argv").clone();
    if let Some(at) = v.iter().position(|a| a == "--session-id") {
        let id = v.remove(at + 1);
        assert_eq!(id.as_str().map(str::len), Some(36), "{argv}");
        v.remove(at);
    }
    Value::Array(v)
}

/// The new agent session id the resume's command runs as.
fn new_id(argv: &Value) -> String {
    let v = argv.as_array().expect("argv");
    let at = v
        .iter()
        .position(|a| a == "--session-id")
        .expect("--session-id");
    v[at + 1].as_str().expect("id").to_owned()
}

fn cut_at(uuid: &str) -> Value {
    json!([
        "claude",
        "-p",
        "--resume",
        SESSION,
        "--fork-session",
        "--resume-session-at",
        uuid
    ])
}

#[test]
fn a_conversation_rewind_prints_the_claude_code_resume_at_that_prompt() {
    let a = Agent::new();
    let lines = a.three_turns();
    let out = a.b.ok(&["conversation", "--to", "#2"]);
    let r = &out["agentResume"];
    assert_eq!(chosen(&r["argv"]), cut_at(&before_prompt(1)), "{out}");
    assert_eq!(
        (&r["exact"], &r["promptLast"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(r["agent"], "claude-code");
    // The agent's transcript is only read.
    let kept = std::fs::read_to_string(&a.transcript).expect("transcript");
    assert_eq!(kept, lines.join("\n") + "\n");
}

#[test]
fn the_human_output_ends_with_the_command_quoted_for_the_shell() {
    let a = Agent::new();
    a.three_turns();
    let out = a.b.text(&["conversation", "--to", "#3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "resume the agent there: `claude -p --resume {SESSION} --fork-session \
         --resume-session-at {} --session-id ",
        before_prompt(2)
    );
    assert!(text.contains(&want), "{text}");
    assert!(text.contains(" '<your next prompt>'`"), "{text}");
    assert!(text.contains("is unchanged"), "{text}");
}

#[test]
fn both_fork_side_chat_and_edit_prompt_carry_the_resume() {
    let a = Agent::new();
    a.three_turns();
    // A fork through turn 1 is the conversation before prompt 2.
    let fork = a.b.ok(&["fork", "--at", "#1"]);
    assert_eq!(
        chosen(&fork["agentResume"]["argv"]),
        cut_at(&before_prompt(1)),
        "{fork}"
    );
    // A side chat sees all of it: the whole session, forked.
    let side = a.b.ok(&["side-chat"]);
    assert_eq!(
        chosen(&side["agentResume"]["argv"]),
        json!(["claude", "--resume", SESSION, "--fork-session"]),
        "{side}"
    );
    let edit = a.b.ok(&["edit-prompt", "--text", "turn:three again"]);
    let mut want = cut_at(&before_prompt(2));
    want.as_array_mut()
        .expect("argv")
        .push(json!("turn:three again"));
    assert_eq!(chosen(&edit["agentResume"]["argv"]), want, "{edit}");
    assert_eq!(edit["agentResume"]["promptLast"], false);
    let both = a.b.ok(&["both", "--to", "#2"]);
    assert_eq!(
        chosen(&both["agentResume"]["argv"]),
        cut_at(&before_prompt(1)),
        "{both}"
    );
}

/// The prompt and reply of a resumed agent session `id` (new to the hooks).
fn resumed_turn(a: &Agent, id: &str, prompt: &str) {
    let fields = |more: Value| {
        let mut v = json!({ "session_id": id });
        v.as_object_mut()
            .expect("fields")
            .extend(more.as_object().expect("more").clone());
        v
    };
    a.send("SessionStart", fields(json!({})));
    a.send("UserPromptSubmit", fields(json!({ "prompt": prompt })));
    a.send(
        "Stop",
        fields(json!({ "last_assistant_message": "Again." })),
    );
}

#[test]
fn the_resumed_agent_session_goes_on_in_the_rewound_session_or_the_fork() {
    let a = Agent::new();
    a.three_turns();
    let listed = a.b.ok(&["session", "list"]);
    let session = listed[0]["id"].as_str().expect("id").to_owned();
    let out = a.b.ok(&["conversation", "--to", "#3"]);
    resumed_turn(&a, &new_id(&out["agentResume"]["argv"]), "turn:resumed");
    let listed = a.b.ok(&["session", "list"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    let log = a.b.ok(&["log", &session]).to_string();
    assert!(log.contains("turn:resumed"), "{log}");

    let fork = a.b.ok(&["fork", "--at", "#1"]);
    let child = fork["childId"].as_str().expect("child").to_owned();
    resumed_turn(&a, &new_id(&fork["agentResume"]["argv"]), "turn:forked");
    let listed = a.b.ok(&["session", "list"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    assert!(a.b.ok(&["log", &child]).to_string().contains("turn:forked"));
    assert!(
        !a.b.ok(&["log", &session])
            .to_string()
            .contains("turn:forked")
    );
}

/// Undo of a conversation rewind prints the whole session's resume, redo the rewind's again:
/// the agent session either runs as goes on in the same rewind session, as a rewind's does.
#[test]
fn the_resume_an_undo_or_a_redo_prints_goes_on_in_the_same_session() {
    let a = Agent::new();
    a.three_turns();
    let listed = a.b.ok(&["session", "list"]);
    let session = listed[0]["id"].as_str().expect("id").to_owned();
    a.b.ok(&["conversation", "--to", "#3"]);
    let whole = json!(["claude", "--resume", SESSION, "--fork-session"]);
    // The undo resumes the whole session; the redo goes back to before prompt 3 again.
    for (verb, prompt, cut) in [
        ("undo", "turn:after-undo", whole),
        ("redo", "turn:after-redo", cut_at(&before_prompt(2))),
    ] {
        let out = a.b.ok(&[verb]);
        let argv = &out["conversation"]["agentResume"]["argv"];
        assert_eq!(chosen(argv), cut, "{out}");
        resumed_turn(&a, &new_id(argv), prompt);
        let listed = a.b.ok(&["session", "list"]);
        assert_eq!(listed.as_array().map(Vec::len), Some(1), "{verb}: {listed}");
        let log = a.b.ok(&["log", &session]).to_string();
        assert!(log.contains(prompt), "{verb}: {log}");
    }
}

#[test]
fn before_the_first_prompt_the_agent_starts_a_new_conversation() {
    let a = Agent::new();
    a.three_turns();
    let out = a.b.ok(&["conversation", "--to", "#1"]);
    assert_eq!(out["agentResume"]["argv"], json!(["claude"]), "{out}");
}

#[test]
fn a_transcript_that_cannot_be_read_gives_no_command_and_says_so() {
    let a = Agent::new();
    a.send("SessionStart", json!({}));
    std::fs::create_dir_all(&a.transcript).expect("a directory where the file should be");
    a.send("UserPromptSubmit", json!({ "prompt": "turn:one hello" }));
    a.send("Stop", json!({ "last_assistant_message": "Done." }));
    let log = std::fs::read_to_string(a.b.path(".rewind/hook.log")).expect("hook.log");
    assert!(log.contains("cannot say how to resume the agent"), "{log}");
    let out = a.b.ok(&["conversation", "--to", "#1"]);
    let r = &out["agentResume"];
    assert_eq!(
        (&r["argv"], &r["exact"]),
        (&json!([]), &json!(false)),
        "{out}"
    );
    assert!(
        r["note"].as_str().expect("note").contains("no command"),
        "{out}"
    );
}

#[test]
fn a_session_no_agent_recorded_has_no_resume() {
    let b = Bench::new();
    b.ok(&["session", "new"]);
    b.ok(&["prompt", "--text", "one"]);
    let out = b.ok(&["conversation", "--to", "#1"]);
    assert!(out.get("agentResume").is_none(), "{out}");
}

#[test]
fn a_qwen_code_rewind_resumes_a_new_copy_and_leaves_the_original() {
    let b = Bench::new();
    let home = tempfile::tempdir().expect("home");
    let chats = home.path().join("chats");
    std::fs::create_dir_all(&chats).expect("chats");
    let original = chats.join("q-1.jsonl");
    // Qwen Code 0.24.4's record shape (uuid, parentUuid, sessionId, message.parts).
    let rec = |uuid: &str, parent: &str, kind: &str, text: &str| {
        format!(
            "{{\"uuid\":\"{uuid}\",\"parentUuid\":{parent},\"sessionId\":\"q-1\",\"type\":\"{kind}\",\
             \"message\":{{\"parts\":[{{\"text\":\"{text}\"}}]}}}}\n"
        )
    };
    let send = |name: &str, fields: Value| {
        let mut v = fixture("qwen-code", "UserPromptSubmit.resumed");
        let o = v.as_object_mut().expect("an object");
        o.insert("cwd".into(), json!(b.ws().canonicalize().expect("ws")));
        o.insert("session_id".into(), json!("q-1"));
        o.insert("transcript_path".into(), json!(original));
        o.insert("hook_event_name".into(), json!(name));
        for (k, val) in fields.as_object().expect("fields") {
            o.insert(k.clone(), val.clone());
        }
        let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
        hook.args(["hook", "qwen-code"]);
        common::expect_hook_continues(hook, &v);
    };
    let mut text = String::new();
    for (k, prompt) in ["one", "two"].iter().enumerate() {
        send(
            "UserPromptSubmit",
            json!({ "prompt": prompt, "submitted_prompt": prompt }),
        );
        let parent = if k == 0 {
            "null".to_owned()
        } else {
            "\"a0\"".to_owned()
        };
        text.push_str(&rec(&format!("u{k}"), &parent, "user", prompt));
        text.push_str(&rec(
            &format!("a{k}"),
            &format!("\"u{k}\""),
            "assistant",
            "Done.",
        ));
        std::fs::write(&original, &text).expect("transcript");
        send("Stop", json!({ "last_assistant_message": "Done." }));
    }
    let out = b.ok(&["conversation", "--to", "#2"]);
    let r = &out["agentResume"];
    let id = r["argv"][2].as_str().expect("a new id").to_owned();
    assert_eq!(r["argv"], json!(["qwen", "--resume", id]), "{out}");
    assert_eq!(r["exact"], true);
    let copy = std::fs::read_to_string(chats.join(format!("{id}.jsonl"))).expect("the copy");
    let kept: Vec<Value> = copy.lines().map(entry).collect();
    let uuids: Vec<&str> = kept
        .iter()
        .map(|e| e["uuid"].as_str().expect("uuid"))
        .collect();
    assert_eq!(uuids, ["u0", "a0"], "{copy}");
    assert!(kept.iter().all(|e| e["sessionId"] == id.as_str()), "{copy}");
    assert_eq!(std::fs::read_to_string(&original).expect("original"), text);
}

#[test]
fn a_gemini_cli_rewind_resumes_a_new_chat_file_and_leaves_the_original() {
    let b = Bench::new();
    let home = tempfile::tempdir().expect("home");
    let chats = home.path().join("chats");
    std::fs::create_dir_all(&chats).expect("chats");
    let original = chats.join("session-2026-12-02T09-35-62dce68b.jsonl");
    let send = |name: &str, fields: Value| {
        let mut v = fixture("gemini-cli", "BeforeAgent");
        let o = v.as_object_mut().expect("an object");
        o.insert("cwd".into(), json!(b.ws().canonicalize().expect("ws")));
        o.insert("session_id".into(), json!("62dce68b-a001"));
        o.insert("transcript_path".into(), json!(original));
        o.insert("hook_event_name".into(), json!(name));
        for (k, val) in fields.as_object().expect("fields") {
            o.insert(k.clone(), val.clone());
        }
        let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
        hook.args(["hook", "gemini-cli"]);
        common::expect_hook_continues(hook, &v);
    };
    // Gemini CLI 0.61.0's chat file (tests/agents, case resume): a header, messages by id, `$set`
    // lines; the second run (`--resume latest`) appends a header and rewrites the list.
    let header = "{\"sessionId\":\"62dce68b-a001\",\"projectHash\":\"p\",\"startTime\":\"t0\",\"kind\":\"main\"}\n";
    let msg = |id: &str, kind: &str, text: &str| {
        format!("{{\"id\":\"{id}\",\"type\":\"{kind}\",\"content\":[{{\"text\":\"{text}\"}}]}}\n")
    };
    let mut text = String::new();
    for (k, prompt) in ["one", "two"].iter().enumerate() {
        send("BeforeAgent", json!({ "prompt": prompt }));
        text.push_str(header);
        if k == 1 {
            let list = format!(
                "[{},{}]",
                msg("u0", "user", "one").trim(),
                msg("g0", "gemini", "Done.").trim()
            );
            text.push_str(&format!("{{\"$set\":{{\"messages\":{list}}}}}\n"));
        }
        text.push_str(&msg(&format!("u{k}"), "user", prompt));
        text.push_str(&msg(&format!("g{k}"), "gemini", "Done."));
        text.push_str("{\"$set\":{\"lastUpdated\":\"t1\"}}\n");
        std::fs::write(&original, &text).expect("transcript");
        send(
            "AfterAgent",
            json!({ "prompt": prompt, "prompt_response": "Done." }),
        );
    }
    let out = b.ok(&["conversation", "--to", "#2"]);
    let r = &out["agentResume"];
    let id = r["argv"][2].as_str().expect("a new id").to_owned();
    assert_eq!(r["argv"], json!(["gemini", "--resume", id]), "{out}");
    assert_eq!(r["exact"], true);
    // Ending in the new id's last 8 characters, not its first (Gemini's cleanup: agents.rs).
    let name = format!("session-2026-12-02T09-35-{}.jsonl", &id[28..]);
    let copy = std::fs::read_to_string(chats.join(name)).expect("the copy");
    let kept: Vec<Value> = copy.lines().map(entry).collect();
    assert_eq!(kept[0]["sessionId"], id.as_str(), "{copy}");
    let ids: Vec<&str> = kept[1..]
        .iter()
        .map(|e| e["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["u0", "g0"], "{copy}");
    assert_eq!(std::fs::read_to_string(&original).expect("original"), text);
}
