//! Shell capture through the binary with real files: `rewind exec` and `rewind snapshot`.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};
use std::os::unix::fs::{PermissionsExt, symlink};

fn mode(b: &Bench, rel: &str) -> u32 {
    std::fs::metadata(b.path(rel))
        .expect("stat")
        .permissions()
        .mode()
        & 0o7777
}

fn chmod(b: &Bench, rel: &str, m: u32) {
    std::fs::set_permissions(b.path(rel), std::fs::Permissions::from_mode(m)).expect("chmod");
}

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|p| p.as_str().expect("a path").to_owned())
        .collect()
}

/// A session with a running turn: (session, turn, prompt).
fn turn(b: &Bench) -> (String, String, String) {
    let session = s(&b.ok(&["session", "new", "--title", "shell"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "tidy up"]);
    (session, s(&t, "turnId"), s(&t, "messageId"))
}

fn tree(b: &Bench) {
    b.write("a.txt", b"alpha one\n");
    b.write("b.txt", b"alpha two\n");
    b.write("gone.txt", b"doomed\n");
    b.write("old.txt", b"moved\n");
    b.write("run.sh", b"#!/bin/sh\necho hi\n");
    chmod(b, "run.sh", 0o644);
    b.write(".gitignore", b"build/\n*.log\n");
    b.write("app.log", b"log 1\n");
    b.write("build/out.o", b"obj\n");
    b.write("secret/.rewindignore", b"*\n");
    b.write("secret/key", b"k1\n");
    symlink("/etc/hostname", b.path("outside-link")).expect("symlink");
    symlink("a.txt", b.path("inside-link")).expect("symlink");
}

#[test]
fn exec_records_a_command_and_a_rewind_restores_every_byte_and_mode() {
    let b = Bench::new();
    tree(&b);
    b.ok(&["config", "--max-file-size", "1000"]);
    let (session, t, p) = turn(&b);
    let script = "sed -i s/alpha/ALPHA/ a.txt b.txt && rm gone.txt && echo fresh > new.txt \
                  && mv old.txt renamed.txt && chmod +x run.sh && echo more >> app.log \
                  && echo obj2 > build/out.o && echo k2 > secret/key \
                  && head -c 5000 /dev/zero > huge.bin && echo done";
    let out = b
        .command()
        .args([
            "--json", "exec", &session, "--turn", &t, "--", "sh", "-c", script,
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    // The command's own output comes first, then the report.
    let (said, doc) = stdout.split_once('\n').expect("two parts");
    assert_eq!(said, "done");
    let doc: serde_json::Value = serde_json::from_str(doc).expect("json report");
    assert_eq!(doc["exitCode"], 0);
    assert_eq!(doc["kind"], "shell");
    assert_eq!(names(&doc["created"]), ["new.txt", "renamed.txt"]);
    // app.log is ignored but small, in a walked directory: tracked (like a `.env`).
    assert_eq!(
        names(&doc["modified"]),
        ["a.txt", "app.log", "b.txt", "run.sh"]
    );
    assert_eq!(names(&doc["deleted"]), ["gone.txt", "old.txt"]);
    assert_eq!(
        names(&doc["uncaptured"]),
        ["huge.bin"],
        "too large to store: {doc}"
    );
    let untracked: Vec<(String, String)> = doc["untracked"]
        .as_array()
        .expect("list")
        .iter()
        .map(|u| (s(u, "path"), s(u, "reason")))
        .collect();
    assert!(
        untracked.contains(&("huge.bin".into(), "too_large".into())),
        "{untracked:?}"
    );
    // Links are versions of their paths now (their targets, never followed).
    assert!(
        !untracked.iter().any(|u| u.0.ends_with("-link")),
        "{untracked:?}"
    );
    assert!(doc["elapsedMs"].is_u64() && doc["reread"].is_u64() && doc["skipped"].is_u64());
    let cps = b.ok(&["checkpoints", &session]);
    let cp = &cps.as_array().expect("list")[0];
    assert!(s(cp, "toolInput").contains("sed -i s/alpha/ALPHA/"));
    let files: Vec<String> = cp["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| s(f, "path"))
        .collect();
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("build") || f.starts_with("secret"))
    );

    // huge.bin was never stored: the rewind says so instead of deleting it blindly.
    let preview = b.ok(&["preview", &session, "--since", &p]);
    assert_eq!(preview["canApply"], false);
    assert_eq!(preview["unsafeFiles"][0]["path"], "huge.bin");
    assert_eq!(
        preview["unsafeFiles"][0]["reason"],
        "unsupported_checkpoint"
    );
    let applied = b.ok(&["apply", &session, "--since", &p, "--policy", "skip"]);
    assert_eq!(applied["applied"], true);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"alpha one\n"[..]));
    assert_eq!(b.read("b.txt").as_deref(), Some(&b"alpha two\n"[..]));
    assert_eq!(b.read("gone.txt").as_deref(), Some(&b"doomed\n"[..]));
    assert_eq!(b.read("old.txt").as_deref(), Some(&b"moved\n"[..]));
    assert_eq!(b.read("new.txt"), None);
    assert_eq!(b.read("renamed.txt"), None);
    assert_eq!(mode(&b, "run.sh"), 0o644);
    assert_eq!(b.read("app.log").as_deref(), Some(&b"log 1\n"[..]));
    // Ignored directories, excluded files and links are not the rewind's: left as they were.
    assert_eq!(b.read("secret/key").as_deref(), Some(&b"k2\n"[..]));
    assert!(b.path("huge.bin").exists());
    assert!(
        std::fs::symlink_metadata(b.path("outside-link"))
            .expect("link")
            .file_type()
            .is_symlink()
    );

    let undone = b.ok(&["undo", &session, &s(&applied, "operationId")]);
    assert_eq!(undone["applied"], true);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"ALPHA one\n"[..]));
    assert_eq!(b.read("renamed.txt").as_deref(), Some(&b"moved\n"[..]));
    assert_eq!(b.read("gone.txt"), None);
    assert_eq!(mode(&b, "run.sh"), 0o755);
    // Neither the rewind nor its undo is a change of the command's.
    let again = b.ok(&["snapshot", &session, "--turn", &t]);
    assert_eq!(again["checkpointId"], serde_json::Value::Null, "{again}");
}

#[test]
fn exec_passes_the_exit_code_through_and_a_missing_command_exits_127() {
    let b = Bench::new();
    b.write("a.txt", b"a\n");
    let (session, t, _) = turn(&b);
    let out = b
        .command()
        .args([
            "exec",
            &session,
            "--turn",
            &t,
            "--",
            "sh",
            "-c",
            "echo out; echo err >&2; exit 7",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(
        out.stdout, b"out\n",
        "stdout is the command's alone without --json"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("err\n") && err.contains("nothing changed"),
        "{err}"
    );
    let missing = b
        .command()
        .args(["exec", &session, "--turn", &t, "--", "no-such-command-here"])
        .output()
        .expect("run");
    assert_eq!(missing.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot run no-such-command-here"));
}

#[test]
fn a_file_rewritten_within_the_same_second_as_the_snapshot_is_seen() {
    let b = Bench::new();
    b.write("f.txt", b"aaaa\n");
    let (session, t, _) = turn(&b);
    b.ok(&["snapshot", &session, "--turn", &t]);
    let before = std::fs::metadata(b.path("f.txt"))
        .expect("stat")
        .modified()
        .expect("mtime");
    // Same size, and the mtime set back: only a re-read can tell.
    b.write("f.txt", b"bbbb\n");
    let f = std::fs::File::options()
        .write(true)
        .open(b.path("f.txt"))
        .expect("open");
    f.set_modified(before).expect("set mtime");
    drop(f);
    let out = b.ok(&["snapshot", &session, "--turn", &t, "--command", "touch-up"]);
    assert_eq!(names(&out["modified"]), ["f.txt"], "{out}");
}

#[test]
fn the_persons_changes_between_turns_are_recorded_as_theirs_and_kept() {
    let b = Bench::new();
    b.write("a.txt", b"a0\n");
    b.write("notes.md", b"n0\n");
    let (session, t1, p1) = turn(&b);
    b.ok(&[
        "exec",
        &session,
        "--turn",
        &t1,
        "--",
        "sh",
        "-c",
        "echo a1 > a.txt",
    ]);
    b.ok(&["turn-end", &session, "--turn", &t1]);
    b.write("notes.md", b"n0 and mine\n");
    let t2 = s(&b.ok(&["prompt", &session, "--text", "next"]), "turnId");
    let seen = b.ok(&["snapshot", &session, "--turn", &t2]);
    assert_eq!(seen["kind"], "external");
    assert_eq!(names(&seen["modified"]), ["notes.md"]);
    let listed = b.text(&["checkpoints", &session]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("your changes between turns"));
    b.ok(&["apply", &session, "--since", &p1]);
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"a0\n"[..]));
    assert_eq!(b.read("notes.md").as_deref(), Some(&b"n0 and mine\n"[..]));
}

#[test]
fn snapshot_refuses_a_turn_that_does_not_exist_and_writes_nothing() {
    let b = Bench::new();
    b.write("a.txt", b"a\n");
    let (session, _, _) = turn(&b);
    let (code, doc) = b.json(&["snapshot", &session, "--turn", "trn_nope"]);
    assert_eq!(code, 1);
    assert_eq!(doc["error"]["code"], "not_found");
    let (code, doc) = b.json(&[
        "exec", &session, "--turn", "trn_nope", "--", "touch", "made.txt",
    ]);
    assert_eq!(code, 1, "{doc}");
    assert!(b.read("made.txt").is_none(), "the command never ran");
}
