//! A file tool that writes into folders that did not exist makes them: they are that tool's
//! change. `apply` removes them with the file (a rewind leaves no empty folder behind), `undo`
//! makes them again with their modes, and a folder that came to hold the person's file is never
//! removed. Through the real binary, one hook process per event, as the agents run hooks.
#![cfg(unix)]

use crate::common;

use common::{Bench, fixture, s};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

const CC: &str = "claude-code";

fn send(payload: &Value) {
    let mut hook = Command::new(env!("CARGO_BIN_EXE_rewind"));
    hook.args(["hook", CC]);
    common::expect_hook_continues(hook, payload);
}

fn event(b: &Bench, name: &str, fields: Value) -> Value {
    let mut v = fixture(CC, name);
    let o = v.as_object_mut().expect("an object");
    o.insert("cwd".into(), json!(b.ws().canonicalize().expect("ws")));
    o.insert("session_id".into(), json!("agent-session-dirs"));
    for (k, val) in fields.as_object().expect("fields") {
        o.insert(k.clone(), val.clone());
    }
    v
}

fn abs(b: &Bench, rel: &str) -> String {
    let ws = b.ws().canonicalize().expect("ws");
    ws.join(rel).display().to_string()
}

fn is_dir(b: &Bench, rel: &str) -> bool {
    std::fs::symlink_metadata(b.path(rel)).is_ok_and(|m| m.is_dir())
}

fn mode(b: &Bench, rel: &str) -> u32 {
    let meta = std::fs::symlink_metadata(b.path(rel)).expect("stat");
    meta.permissions().mode() & 0o7777
}

/// A turn whose Write tool creates `rel`, making its folders with mode 0750 (the way the tool
/// makes them is its own: the mode is what it left). Returns (session, prompt id).
fn wrote_into_new_folders(b: &Bench, rel: &str) -> (String, String) {
    send(&event(b, "SessionStart", json!({})));
    send(&event(
        b,
        "UserPromptSubmit",
        json!({ "prompt": "write it" }),
    ));
    let write = json!({ "tool_name": "Write", "tool_input": { "file_path": abs(b, rel), "content": "new\n" }, "tool_use_id": "toolu_d1" });
    send(&event(b, "PreToolUse.Bash", write.clone()));
    let mut made = Vec::new();
    let mut dir = std::path::Path::new(rel).parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        if !b.path(&d.display().to_string()).exists() {
            made.push(d.display().to_string());
        }
        dir = d.parent();
    }
    b.write(rel, b"new\n");
    for d in made {
        let perms = std::fs::Permissions::from_mode(0o750);
        std::fs::set_permissions(b.path(&d), perms).expect("chmod");
    }
    send(&event(b, "PostToolUse.Write", write));
    let stop = json!({ "last_assistant_message": "written", "background_tasks": [] });
    send(&event(b, "Stop", stop));
    let session = std::fs::read_to_string(b.path(".rewind/current-session")).expect("session");
    let log = b.ok(&["log", session.trim()]);
    let prompt = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["kind"] == "prompt")
        .map(|m| s(m, "id"))
        .expect("a prompt");
    (session.trim().to_owned(), prompt)
}

#[test]
fn folders_a_write_made_go_with_it_and_come_back_on_undo() {
    let b = Bench::new();
    b.write("keep.txt", b"k\n");
    std::fs::create_dir(b.path("old")).expect("mkdir");
    let (session, prompt) = wrote_into_new_folders(&b, "old/gen/x/f.txt");
    let cps = b.ok(&["checkpoints", &session]);
    let list = cps.as_array().expect("checkpoints");
    assert_eq!(list.len(), 1, "one checkpoint, the Write's: {cps}");
    let paths: Vec<String> = list[0]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|c| s(c, "path"))
        .collect();
    assert_eq!(
        paths,
        ["old/gen", "old/gen/x", "old/gen/x/f.txt"],
        "the Write made the folders it wrote into, and only those: {cps}"
    );
    let applied = b.ok(&["apply", &session, "--since", &prompt]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert!(
        !b.path("old/gen").exists(),
        "the folders the Write made are gone"
    );
    assert!(is_dir(&b, "old"), "the folder that was there before stays");
    b.ok(&["undo", &session, &s(&applied, "operationId")]);
    assert_eq!(b.read("old/gen/x/f.txt").as_deref(), Some(&b"new\n"[..]));
    assert_eq!(mode(&b, "old/gen"), 0o750);
    assert_eq!(mode(&b, "old/gen/x"), 0o750);
}

#[test]
fn a_folder_the_write_made_that_now_holds_the_persons_file_is_kept() {
    let b = Bench::new();
    b.write("keep.txt", b"k\n");
    let (session, prompt) = wrote_into_new_folders(&b, "gen/f.txt");
    b.write("gen/mine.txt", b"the person's\n");
    let preview = b.ok(&["preview", &session, "--since", &prompt]);
    assert_eq!(preview["canApply"], false, "{preview}");
    let dir = preview["unsafeFiles"]
        .as_array()
        .expect("list")
        .iter()
        .find(|f| f["path"] == "gen")
        .unwrap_or_else(|| panic!("gen is a conflict: {preview}"));
    assert_eq!(dir["reason"], "directory_not_empty");
    let (code, forced) = b.json(&["apply", &session, "--since", &prompt, "--policy", "force"]);
    assert_ne!(code, 0, "{forced}");
    assert_eq!(
        b.read("gen/mine.txt").as_deref(),
        Some(&b"the person's\n"[..])
    );
    assert_eq!(b.read("gen/f.txt").as_deref(), Some(&b"new\n"[..]));
}
