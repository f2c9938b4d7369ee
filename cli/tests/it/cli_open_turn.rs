//! Recording without `--turn`: `exec`, `edit`, `reply`, `turn-end` and `snapshot` take the
//! session's one running turn; none or several running is an error that says which are open
//! and how to name one, and records nothing. `exec` runs its command in the current directory
//! (inside the workspace), as a shell would.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};

/// The error `args` fail with (exit 1), as JSON.
fn refused(b: &Bench, args: &[&str]) -> serde_json::Value {
    let (code, doc) = b.json(args);
    assert_eq!(code, 1, "{args:?} should be refused: {doc}");
    doc
}

#[test]
fn the_one_running_turn_is_the_default() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new", "--title", "t"]), "id");
    let turn = s(&b.ok(&["prompt", &session, "--text", "go"]), "turnId");
    b.write("a.txt", b"a\n");
    let edit = b.ok(&["edit", &session, "--path", "a.txt", "--created"]);
    let cps = b.ok(&["checkpoints", &session]);
    assert!(cps.to_string().contains(&turn), "{cps}");
    assert!(edit["checkpointId"].is_string(), "{edit}");
    let ran = b.ok(&["exec", &session, "--", "sh", "-c", "echo b > b.txt"]);
    assert_eq!(ran["exitCode"], 0, "{ran}");
    let reply = b.ok(&["reply", &session, "--text", "done"]);
    assert!(reply["messageId"].is_string(), "{reply}");
    let ended = b.ok(&["turn-end", &session]);
    assert_eq!(s(&ended, "turnId"), turn);
    // Now nothing runs: the error says so, names the way out, and records nothing.
    let none = refused(&b, &["reply", &session, "--text", "late"]);
    let message = none.to_string();
    assert!(message.contains("no turn is running"), "{message}");
    assert!(message.contains("--turn"), "{message}");
    assert!(message.contains("rewind prompt"), "{message}");
    let log = b.ok(&["log", &session]).to_string();
    assert!(!log.contains("late"), "{log}");
}

#[test]
fn several_running_turns_are_named() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new", "--title", "t"]), "id");
    let first = s(&b.ok(&["prompt", &session, "--text", "one"]), "turnId");
    let second = b.json(&["prompt", &session, "--text", "two"]).1;
    let Some(second) = second["turnId"].as_str() else {
        return; // the engine ends the running turn first: one running turn is all there can be
    };
    let err = refused(&b, &["turn-end", &session]).to_string();
    assert!(err.contains(&first) && err.contains(second), "{err}");
    assert!(err.contains("#1") && err.contains("#2"), "{err}");
}

#[test]
fn exec_runs_in_the_current_directory() {
    let b = Bench::new();
    b.write("src/util.py", b"x = 1\n");
    let session = s(&b.ok(&["session", "new", "--title", "t"]), "id");
    b.ok(&["prompt", &session, "--text", "go"]);
    let out = b
        .command()
        .current_dir(b.path("src"))
        .args(["--json", "exec", &session, "--turn", "@", "--"])
        .args(["sh", "-c", "echo y >> util.py"])
        .output()
        .expect("run rewind");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(b.read("src/util.py").as_deref(), Some(&b"x = 1\ny\n"[..]));
    assert!(b.read("util.py").is_none(), "nothing new at the root");
    // The checkpoint names the file from the workspace's root.
    let cps = b.ok(&["checkpoints", &session]).to_string();
    assert!(cps.contains("src/util.py"), "{cps}");
}
