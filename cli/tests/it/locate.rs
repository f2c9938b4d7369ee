//! One rule for where the store is, from every front end of the binary: a `.rewind` that is a
//! symbolic link to a directory is the store, for the CLI (found from a subdirectory), the
//! hook (from the event's directory) and the server (a request's workspace inside its root).
//! The Node addon's side is in tests/js/test/node.test.mjs.

#![cfg(unix)]

use crate::common;

use common::expect_hook_continues;
use common::serve::StdioServer;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `<tmp>/ws` whose `.rewind` links to `<tmp>/kept`, with a subdirectory `ws/sub`.
fn linked() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(tmp.path()).expect("canonical");
    let (ws, kept) = (root.join("ws"), root.join("kept"));
    std::fs::create_dir_all(ws.join("sub")).expect("mkdir");
    std::fs::create_dir(&kept).expect("mkdir");
    std::os::unix::fs::symlink(&kept, ws.join(".rewind")).expect("symlink");
    (tmp, ws, kept)
}

fn rewind(cwd: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rewind"));
    c.current_dir(cwd)
        .env_remove("REWIND_DB")
        .env_remove("REWIND_STORE");
    c
}

fn sessions(cwd: &Path) -> usize {
    let out = rewind(cwd)
        .args(["--json", "session", "list"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v.as_array().map_or(0, Vec::len)
}

#[test]
fn the_cli_finds_a_linked_store_from_a_subdirectory() {
    let (_tmp, ws, kept) = linked();
    let out = rewind(&ws.join("sub"))
        .args(["session", "new"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    assert!(
        kept.join("rewind.db").exists(),
        "the store is where the link leads"
    );
    assert!(!ws.join("sub/.rewind").exists(), "no second store below it");
    assert_eq!(sessions(&ws.join("sub")), 1);
}

#[test]
fn the_hook_records_into_a_linked_store() {
    let (_tmp, ws, kept) = linked();
    let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
    hook.args(["hook", "claude-code"]);
    let payload = json!({
        "session_id": "agent-session-1",
        "hook_event_name": "SessionStart",
        "cwd": ws.join("sub"),
    });
    expect_hook_continues(hook, &payload);
    assert!(
        kept.join("rewind.db").exists(),
        "the store is where the link leads"
    );
    assert_eq!(sessions(&ws), 1, "the CLI reads what the hook recorded");
}

#[test]
fn the_server_serves_a_linked_store_inside_its_root() {
    let (tmp, ws, kept) = linked();
    let root = tmp.path().to_str().expect("utf8").to_owned();
    let mut s = StdioServer::start(tmp.path(), &["--root", &root]);
    let r = s.request("createSession", json!([{}]), Some(&ws));
    assert!(r["result"]["id"].is_string(), "{r}");
    assert_eq!(s.finish(), 0);
    assert!(
        kept.join("rewind.db").exists(),
        "the store is where the link leads"
    );
    assert_eq!(
        sessions(&ws.join("sub")),
        1,
        "the CLI reads what the server recorded"
    );
}
