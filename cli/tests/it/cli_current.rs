//! The workspace's current session: commands given no session act on it (or on the store's only
//! session); `session new` / `session use` set it; `session list` marks it and shows agent
//! bindings.

use crate::common;

use common::{Bench, s};
use rewind_core::model::AgentSession;
use rewind_core::record::SessionOptions;

/// Sessions made through the core, as the hooks make them: nothing marks them current.
fn core_sessions(b: &Bench, agents: &[Option<(&str, &str)>]) -> Vec<String> {
    let db = rewind_host::default_db_path(b.ws());
    let (mut engine, _) = rewind_host::open(b.ws(), &db).expect("open");
    agents
        .iter()
        .map(|agent| {
            engine
                .create_session(SessionOptions {
                    title: Some("made by a hook".into()),
                    workspace_label: None,
                    agent: agent.map(|(agent, id)| AgentSession {
                        agent: agent.into(),
                        session_id: id.into(),
                    }),
                })
                .expect("create")
                .id
                .to_string()
        })
        .collect()
}

fn current_file(b: &Bench) -> std::path::PathBuf {
    b.path(".rewind/current-session")
}

fn invalid_input(b: &Bench, args: &[&str]) -> String {
    let (code, doc) = b.json(args);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input")),
        "{args:?}: {doc}"
    );
    doc["error"]["message"]
        .as_str()
        .expect("message")
        .to_owned()
}

#[test]
fn commands_default_to_the_session_new_or_use_made_current() {
    let b = Bench::new();
    let first = s(&b.ok(&["session", "new", "--title", "first"]), "id");
    let second = s(&b.ok(&["session", "new", "--title", "second"]), "id");
    assert_eq!(
        std::fs::read_to_string(current_file(&b)).expect("current-session"),
        format!("{second}\n")
    );
    assert_eq!(
        s(&b.ok(&["log"]), "sessionId"),
        second,
        "new made it current"
    );

    let used = b.ok(&["session", "use", &first]);
    assert_eq!(s(&used, "id"), first);
    assert_eq!(
        s(&b.ok(&["log"]), "sessionId"),
        first,
        "use made it current"
    );

    // A whole turn with no session named: prompt, edit, reply, turn-end; then rewind it.
    b.write("a.txt", b"one\n");
    let t = s(&b.ok(&["prompt", "--text", "change a"]), "turnId");
    b.write("before.txt", b"one\n");
    b.write("a.txt", b"two\n");
    let before = b.path("before.txt");
    let edit = b.ok(&[
        "edit",
        "--turn",
        &t,
        "--path",
        "a.txt",
        "--before-file",
        before.to_str().expect("utf8"),
    ]);
    let cp = s(&edit, "checkpointId");
    b.ok(&["reply", "--turn", &t, "--text", "done"]);
    b.ok(&["turn-end", "--turn", &t]);
    let log = b.ok(&["log"]);
    assert_eq!(log["messages"].as_array().expect("messages").len(), 2);
    let second_log = b.ok(&["log", &second]);
    assert!(
        second_log["messages"]
            .as_array()
            .expect("messages")
            .is_empty(),
        "nothing went to the other session: {second_log}"
    );
    assert_eq!(b.ok(&["checkpoints"]).as_array().expect("list").len(), 1);
    assert_eq!(
        b.ok(&["resume"])["session"]["id"].as_str(),
        Some(first.as_str())
    );

    let preview = b.ok(&["preview", "--checkpoint", &cp]);
    assert_eq!(preview["canApply"], true, "{preview}");
    let applied = b.ok(&["apply", "--checkpoint", &cp]);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"one\n"[..]));
    let op = s(&applied, "operationId");
    assert_eq!(b.ok(&["ops"]).as_array().expect("ops").len(), 1);

    // `undo OP` takes the current session; `undo SESSION OP` still works (here: a redo).
    let undone = b.ok(&["undo", &op]);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"two\n"[..]));
    b.ok(&["undo", &first, &s(&undone, "operationId")]);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"one\n"[..]));

    // A session given by name still wins over the current one.
    assert_eq!(s(&b.ok(&["log", &second]), "sessionId"), second);

    // Forks and side chats default to it too, and leave it current.
    let chat = b.ok(&["side-chat"]);
    assert_eq!(
        b.ok(&["resume"])["session"]["id"].as_str(),
        Some(first.as_str())
    );
    assert!(s(&chat, "childId").starts_with("ses_"), "{chat}");
}

#[test]
fn exec_and_snapshot_default_to_the_current_session() {
    let b = Bench::new();
    b.write("a.txt", b"a\n");
    let session = s(&b.ok(&["session", "new"]), "id");
    b.ok(&["session", "new", "--title", "other"]);
    b.ok(&["session", "use", &session]);
    let t = s(&b.ok(&["prompt", "--text", "shell"]), "turnId");
    b.ok(&["snapshot", "--turn", &t]);
    let out = b.ok(&["exec", "--turn", &t, "--", "sh", "-c", "echo b > a.txt"]);
    assert_eq!(out["exitCode"], 0, "{out}");
    let cps = b.ok(&["checkpoints", &session]);
    assert_eq!(cps.as_array().expect("list").len(), 1, "{cps}");
    // After `--` everything is the command, even a session id.
    let (code, _) = b.json(&["exec", "--turn", &t, "--", &session]);
    assert_eq!(code, 127);
}

#[test]
fn several_sessions_and_none_current_is_invalid_input() {
    let b = Bench::new();
    let msg = invalid_input(&b, &["log"]);
    assert!(msg.contains("rewind session new"), "{msg}");

    core_sessions(&b, &[None, None]);
    for args in [
        &["log"][..],
        &["checkpoints"],
        &["ops"],
        &["resume"],
        &["preview", "--since", "msg_x"],
        &["apply", "--since", "msg_x"],
        &["undo", "op_x"],
        &["prompt", "--text", "hi"],
    ] {
        let msg = invalid_input(&b, args);
        assert!(
            msg.contains("no current session")
                && msg.contains("2 sessions")
                && msg.contains("rewind session use"),
            "{args:?}: {msg}"
        );
    }
    assert!(!current_file(&b).exists(), "reading never writes it");

    // A garbled file is no current session; one naming a session that is gone says so.
    std::fs::write(current_file(&b), b"not a session id\n").expect("write");
    assert!(invalid_input(&b, &["log"]).contains("no current session"));
    std::fs::write(current_file(&b), b"ses_gone\n").expect("write");
    let msg = invalid_input(&b, &["log"]);
    assert!(
        msg.contains("current session ses_gone no longer exists"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(current_file(&b)).expect("read"),
        b"ses_gone\n",
        "left as it was"
    );
}

#[test]
fn the_only_session_is_used_when_none_is_current() {
    let b = Bench::new();
    let [only] = core_sessions(&b, &[None]).try_into().expect("one");
    assert_eq!(s(&b.ok(&["log"]), "sessionId"), only);
    let t = s(&b.ok(&["prompt", "--text", "hi"]), "turnId");
    assert!(t.starts_with("trn_"));
    // A current session that no longer exists falls back to the only one too.
    std::fs::write(current_file(&b), b"ses_gone\n").expect("write");
    assert_eq!(s(&b.ok(&["log"]), "sessionId"), only);
}

#[test]
fn session_use_needs_a_session_that_exists() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let (code, doc) = b.json(&["session", "use", "ses_nope"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("not_found")),
        "{doc}"
    );
    let (code, doc) = b.json(&["session", "use", "nope"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input")),
        "{doc}"
    );
    assert_eq!(
        std::fs::read_to_string(current_file(&b)).expect("read"),
        format!("{session}\n"),
        "unchanged"
    );
    assert_eq!(b.text(&["session", "use"]).status.code(), Some(2));
}

#[test]
fn session_list_marks_the_current_session_and_shows_agent_bindings() {
    let b = Bench::new();
    let [hooked] = core_sessions(&b, &[Some(("claude-code", "4f1c-agent-session"))])
        .try_into()
        .expect("one");
    let mine = s(&b.ok(&["session", "new", "--title", "by hand"]), "id");

    let list = b.ok(&["session", "list"]);
    let rows = list.as_array().expect("rows");
    assert_eq!(rows.len(), 2);
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} listed: {list}"))
            .clone()
    };
    let h = row(&hooked);
    assert_eq!(
        h["agent"],
        serde_json::json!({ "agent": "claude-code", "sessionId": "4f1c-agent-session" })
    );
    assert_eq!(h["current"], false);
    for key in ["id", "parentId", "kind", "title", "createdAt"] {
        assert!(h.get(key).is_some(), "{key} kept: {h}");
    }
    let m = row(&mine);
    assert_eq!(m["agent"], serde_json::Value::Null);
    assert_eq!(m["current"], true);

    let text = |b: &Bench| {
        let out = b.text(&["session", "list"]);
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("utf8")
    };
    let t = text(&b);
    let line = |t: &str, id: &str| {
        t.lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id} in:\n{t}"))
            .to_owned()
    };
    assert!(line(&t, &mine).starts_with(&format!("{mine} * ")), "{t}");
    let h = line(&t, &hooked);
    assert!(h.starts_with(&format!("{hooked}   ")), "{t}");
    assert!(h.contains("[claude-code 4f1c-agent-session]"), "{t}");

    b.ok(&["session", "use", &hooked]);
    let t = text(&b);
    assert!(
        line(&t, &hooked).starts_with(&format!("{hooked} * ")),
        "{t}"
    );
    assert!(!line(&t, &mine).contains(" * "), "{t}");
    let list = b.ok(&["session", "list"]);
    let current: Vec<&str> = list
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["current"] == true)
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(current, [hooked.as_str()]);
}
