//! Directories, links and type changes through the binary with real files: `rewind exec`
//! records them, `apply` puts the workspace back (empty directories included, modes kept),
//! `undo` brings the command's result back, and a directory that holds the person's file is
//! never removed, not even with `--policy force`.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};
use std::os::unix::fs::PermissionsExt;

fn mode(b: &Bench, rel: &str) -> u32 {
    std::fs::symlink_metadata(b.path(rel))
        .expect("stat")
        .permissions()
        .mode()
        & 0o7777
}

fn is_dir(b: &Bench, rel: &str) -> bool {
    std::fs::symlink_metadata(b.path(rel)).is_ok_and(|m| m.is_dir())
}

fn exists(b: &Bench, rel: &str) -> bool {
    std::fs::symlink_metadata(b.path(rel)).is_ok()
}

fn link_of(b: &Bench, rel: &str) -> Option<String> {
    std::fs::read_link(b.path(rel))
        .ok()
        .map(|t| t.to_string_lossy().into_owned())
}

/// A session whose turn ran `script` through `rewind exec`: (session, turn, prompt).
fn ran(b: &Bench, script: &str) -> (String, String, String) {
    let session = s(&b.ok(&["session", "new", "--title", "dirs"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "go"]);
    let (turn, prompt) = (s(&t, "turnId"), s(&t, "messageId"));
    b.ok(&["exec", &session, "--turn", &turn, "--", "sh", "-c", script]);
    (session, turn, prompt)
}

/// Rewind since the prompt (expecting it to apply), then return the operation to undo.
fn rewind(b: &Bench, session: &str, prompt: &str) -> String {
    let applied = b.ok(&["apply", session, "--since", prompt]);
    assert_eq!(applied["applied"], true, "{applied}");
    s(&applied, "operationId")
}

fn undo(b: &Bench, session: &str, op: &str) {
    let undone = b.ok(&["undo", session, op]);
    assert_eq!(undone["applied"], true, "{undone}");
}

/// Nothing left for a snapshot to record: the rewind and its undo are not the command's.
fn settled(b: &Bench, session: &str, turn: &str) {
    let again = b.ok(&["snapshot", session, "--turn", turn]);
    assert_eq!(again["checkpointId"], serde_json::Value::Null, "{again}");
}

#[test]
fn empty_directories_a_command_made_go_and_come_back() {
    let b = Bench::new();
    b.write("keep.txt", b"k\n");
    let (session, turn, prompt) = ran(&b, "mkdir -p gen/x && chmod 700 gen/x");
    let cps = b.ok(&["checkpoints", &session]);
    assert!(cps.to_string().contains("gen/x"), "{cps}");
    let op = rewind(&b, &session, &prompt);
    assert!(
        !exists(&b, "gen"),
        "the empty directories the command made are gone"
    );
    settled(&b, &session, &turn);
    undo(&b, &session, &op);
    assert!(is_dir(&b, "gen/x"));
    assert_eq!(mode(&b, "gen/x"), 0o700);
    settled(&b, &session, &turn);
}

#[test]
fn a_removed_tree_comes_back_with_its_bytes_and_modes() {
    let b = Bench::new();
    b.write("sub/deep/f.txt", b"inside\n");
    b.write("sub/empty/.keep", b"");
    std::fs::remove_file(b.path("sub/empty/.keep")).expect("rm");
    std::fs::set_permissions(b.path("sub"), std::fs::Permissions::from_mode(0o750)).expect("chmod");
    let (session, turn, prompt) = ran(&b, "rm -r sub");
    assert!(!exists(&b, "sub"));
    let op = rewind(&b, &session, &prompt);
    assert_eq!(b.read("sub/deep/f.txt").as_deref(), Some(&b"inside\n"[..]));
    assert!(
        is_dir(&b, "sub/empty"),
        "an empty directory it removed is back"
    );
    assert_eq!(mode(&b, "sub"), 0o750);
    settled(&b, &session, &turn);
    undo(&b, &session, &op);
    assert!(!exists(&b, "sub"));
    settled(&b, &session, &turn);
}

#[test]
fn a_file_replaced_by_a_directory_and_back_is_restored_to_its_type() {
    let b = Bench::new();
    b.write("a.txt", b"was a file\n");
    b.write("d/inner.txt", b"in d\n");
    let (session, turn, prompt) = ran(
        &b,
        "rm a.txt && mkdir a.txt && echo new > a.txt/x && rm -r d && echo now a file > d",
    );
    assert!(is_dir(&b, "a.txt"));
    let op = rewind(&b, &session, &prompt);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"was a file\n"[..]));
    assert_eq!(b.read("d/inner.txt").as_deref(), Some(&b"in d\n"[..]));
    settled(&b, &session, &turn);
    undo(&b, &session, &op);
    assert_eq!(b.read("a.txt/x").as_deref(), Some(&b"new\n"[..]));
    assert_eq!(b.read("d").as_deref(), Some(&b"now a file\n"[..]));
    settled(&b, &session, &turn);
}

#[test]
fn a_file_replaced_by_a_link_and_a_link_by_a_file_are_restored() {
    let b = Bench::new();
    b.write("a.txt", b"plain\n");
    b.write("b.txt", b"target\n");
    std::os::unix::fs::symlink("b.txt", b.path("l")).expect("symlink");
    let (session, turn, prompt) = ran(&b, "rm a.txt && ln -s b.txt a.txt && rm l && echo f > l");
    assert_eq!(link_of(&b, "a.txt").as_deref(), Some("b.txt"));
    let op = rewind(&b, &session, &prompt);
    assert_eq!(link_of(&b, "a.txt"), None);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"plain\n"[..]));
    assert_eq!(link_of(&b, "l").as_deref(), Some("b.txt"));
    assert_eq!(
        b.read("b.txt").as_deref(),
        Some(&b"target\n"[..]),
        "the target untouched"
    );
    settled(&b, &session, &turn);
    undo(&b, &session, &op);
    assert_eq!(link_of(&b, "a.txt").as_deref(), Some("b.txt"));
    assert_eq!(b.read("l").as_deref(), Some(&b"f\n"[..]));
}

#[test]
fn a_directory_that_holds_the_persons_file_is_kept_even_with_force() {
    let b = Bench::new();
    b.write("keep.txt", b"k\n");
    let (session, turn, prompt) = ran(&b, "mkdir gen && echo out > gen/made.txt");
    b.ok(&["turn-end", &session, "--turn", &turn]);
    b.write("gen/mine.txt", b"the person's\n");
    let t2 = s(&b.ok(&["prompt", &session, "--text", "next"]), "turnId");
    b.ok(&["snapshot", &session, "--turn", &t2]);
    let preview = b.ok(&["preview", &session, "--since", &prompt]);
    assert_eq!(preview["canApply"], false, "{preview}");
    let dir = preview["unsafeFiles"]
        .as_array()
        .expect("list")
        .iter()
        .find(|f| f["path"] == "gen")
        .unwrap_or_else(|| panic!("gen is a conflict: {preview}"));
    assert_eq!(dir["reason"], "directory_not_empty");
    assert_eq!(dir["forceable"], false);
    assert!(s(dir, "message").contains("mine.txt"), "{dir}");
    let (code, blocked) = b.json(&["apply", &session, "--since", &prompt]);
    assert_ne!(code, 0, "{blocked}");
    assert_eq!(
        b.read("gen/made.txt").as_deref(),
        Some(&b"out\n"[..]),
        "block wrote nothing"
    );
    // Force overrides no such conflict: it refuses too, and deletes nothing.
    let (code, forced) = b.json(&["apply", &session, "--since", &prompt, "--policy", "force"]);
    assert_ne!(code, 0, "{forced}");
    assert_eq!(
        b.read("gen/mine.txt").as_deref(),
        Some(&b"the person's\n"[..])
    );
    // Skip rewinds the rest: the command's file goes, the directory and your file stay.
    let skipped = b.ok(&["apply", &session, "--since", &prompt, "--policy", "skip"]);
    assert_eq!(skipped["applied"], true, "{skipped}");
    assert!(!exists(&b, "gen/made.txt"), "the command's file goes");
    assert_eq!(
        b.read("gen/mine.txt").as_deref(),
        Some(&b"the person's\n"[..])
    );
    assert!(is_dir(&b, "gen"));
}
