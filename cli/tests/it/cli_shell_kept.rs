//! `rewind exec` whose command takes the store away: an open SQLite connection goes on
//! committing to a database that was removed or moved, so "recorded ckp_…" would be a lie.
//! exec compares the database file before and after and reports the checkpoint as not kept.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};

/// A session with a running turn: (session, turn).
fn turn(b: &Bench) -> (String, String) {
    let session = s(&b.ok(&["session", "new", "--title", "shell"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "tidy up"]);
    (session, s(&t, "turnId"))
}

#[test]
fn exec_whose_command_removes_the_store_fails_and_says_the_checkpoint_was_not_kept() {
    let b = Bench::new();
    b.write("a.txt", b"one\n");
    let (session, t) = turn(&b);
    let out = b
        .command()
        .args(["exec", &session, "--turn", &t, "--"])
        .args(["sh", "-c", "echo two > a.txt; rm -rf .rewind"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("the command ran (exit 0)")
            && err.contains("was not kept")
            && err.contains("removed or moved away")
            && err.contains("(host_error)"),
        "{err}"
    );
    assert!(!err.contains("recorded ckp_"), "{err}");
    assert!(!b.path(".rewind").exists(), "nothing made a new store");
}

#[test]
fn exec_whose_failing_command_moves_the_store_keeps_its_exit_code_and_says_so_in_json() {
    let b = Bench::new();
    let away = tempfile::tempdir().expect("tmp");
    b.write("a.txt", b"one\n");
    let (session, t) = turn(&b);
    let script = format!(
        "echo two > a.txt; mv .rewind '{}'; exit 4",
        away.path().join("moved").display()
    );
    let out = b
        .command()
        .args(["--json", "exec", &session, "--turn", &t, "--", "sh", "-c"])
        .arg(&script)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(4), "the command's own failure");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["error"]["code"], "host_error", "{doc}");
    let message = doc["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("exit 4") && message.contains("was not kept"),
        "{message}"
    );
    // The store went on where it was moved to; at the workspace there is none.
    assert!(away.path().join("moved/rewind.db").is_file());
    assert!(!b.path(".rewind").exists());
}

#[test]
fn exec_that_keeps_the_store_still_succeeds() {
    let b = Bench::new();
    b.write("a.txt", b"one\n");
    let (session, t) = turn(&b);
    // Replaced in place is not replaced: the database file is the same one.
    let (code, doc) = b.json(&[
        "exec",
        &session,
        "--turn",
        &t,
        "--",
        "sh",
        "-c",
        "echo two > a.txt",
    ]);
    assert_eq!(code, 0, "{doc}");
    assert!(s(&doc, "checkpointId").starts_with("ckp_"));
    assert_eq!(
        b.ok(&["checkpoints", &session]).as_array().map(Vec::len),
        Some(1)
    );
}
