//! Safety beside other processes and with stores from elsewhere: output through one writer,
//! read-only commands that write nothing, foreign stores that act on nothing until trusted,
//! stuck journals with a way out, and truthful rollback when a write half-happens.

use crate::common;

use common::{Bench, s};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// A session whose one turn changed `n` files, ready to be rewound: (session, prompt id).
fn turn_with_files(b: &Bench, n: usize) -> (String, String) {
    let session = s(&b.ok(&["session", "new", "--title", "t"]), "id");
    let turn = b.ok(&["prompt", &session, "--text", "change the files"]);
    let (t, p) = (s(&turn, "turnId"), s(&turn, "messageId"));
    for i in 0..n {
        let (before, after) = (format!("before {i}\n"), format!("after {i}\n"));
        let path = format!("src/f{i}.txt");
        b.record(
            &session,
            &t,
            &path,
            Some(before.as_bytes()),
            after.as_bytes(),
            &[],
        );
    }
    (session, p)
}

/// Every file under `dir` with its size and mtime (the store's own directory included).
fn listing(dir: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir") {
            let e = e.expect("entry");
            let meta = e.path().symlink_metadata().expect("meta");
            if meta.is_dir() {
                stack.push(e.path());
            }
            let rel = e
                .path()
                .strip_prefix(dir)
                .expect("inside")
                .display()
                .to_string();
            out.insert(rel, (meta.len(), meta.modified().expect("mtime")));
        }
    }
    out
}

#[test]
fn a_closed_pipe_or_a_full_disk_never_panics() {
    let b = Bench::new();
    let (session, _) = turn_with_files(&b, 2);
    for args in [
        vec!["log", &session],
        vec!["--json", "log", &session],
        vec!["session", "list"],
        vec!["ops", &session],
        vec!["--help"],
    ] {
        // The reader goes away before the first byte: the command ends quietly.
        let mut child = b
            .command()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");

        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = b.command().args(&args).stdout(full).output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.contains("disk full"), "{args:?}: {err}");
    }
}

#[test]
fn read_only_commands_write_nothing_anywhere() {
    let b = Bench::new();
    let (session, p) = turn_with_files(&b, 2);
    let before = listing(b.ws());
    for args in [
        vec!["session", "list"],
        vec!["log", &session],
        vec!["checkpoints", &session],
        vec!["ops", &session],
        vec!["preview", &session, "--since", &p],
        vec!["stats"],
        vec!["resume", &session],
    ] {
        let out = b.text(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_eq!(listing(b.ws()), before, "{args:?} wrote something");
    }
    // In a directory with no store, reading creates none.
    let empty = Bench::new();
    let out = empty.text(&["session", "list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("no sessions yet"));
    assert!(listing(empty.ws()).is_empty(), "{:?}", listing(empty.ws()));
}

#[test]
fn before_file_must_be_a_regular_file() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = s(&b.ok(&["prompt", &session, "--text", "x"]), "turnId");
    b.write("a.txt", b"now\n");
    let fifo = b.path("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let fifo = fifo.display().to_string();
    let (code, doc) = b.json(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "a.txt",
        "--before-file",
        &fifo,
    ]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"]["code"], "invalid_input");
    assert!(
        doc["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("not a regular file")
    );
}

/// Plant a pending journal in the store at `db`: rolling it back would write `evil` over
/// `path`, whose current content is `now` (a second entry, never written, makes it a rollback).
fn plant_journal(db: &Path, session: &str, path: &str, now: &[u8], evil: &[u8]) -> String {
    use rewind_core::hash::ContentHash;
    let conn = rusqlite::Connection::open(db).expect("open raw");
    let (evil_hash, now_hash) = (ContentHash::of(evil), ContentHash::of(now));
    conn.execute(
        "INSERT OR IGNORE INTO blobs (hash, bytes, codec, size) VALUES (?1, ?2, 'raw', ?3)",
        rusqlite::params![evil_hash.as_str(), evil, evil.len() as i64],
    )
    .expect("blob");
    let id = format!("jnl_planted{}", path.len());
    let body = serde_json::json!({
        "id": id, "sessionId": session, "createdAt": 1,
        "entries": [
            { "path": path, "prior": evil_hash.as_str(), "target": now_hash.as_str() },
            { "path": "never-written.txt", "prior": null, "target": evil_hash.as_str() }
        ],
        "operation": { "id": format!("op_planted{}", path.len()), "sessionId": session,
                       "kind": "file_rewind", "createdAt": 1 }
    });
    conn.execute(
        "INSERT INTO journals (id, session_id, body) VALUES (?1, ?2, ?3)",
        rusqlite::params![id, session, body.to_string()],
    )
    .expect("journal");
    id
}

#[test]
fn a_store_from_elsewhere_acts_on_nothing_until_trusted() {
    // Someone else's workspace and store, checked in and cloned to another path.
    let theirs = Bench::new();
    let session = s(&theirs.ok(&["session", "new", "--title", "theirs"]), "id");
    let ours = Bench::new();
    ours.write(".vscode/tasks.json", b"{}\n");
    ours.write(".git/hooks/pre-commit", b"#!/bin/sh\n");
    copy_dir(&theirs.path(".rewind"), &ours.path(".rewind"));
    let db = ours.path(".rewind/rewind.db");
    plant_journal(
        &db,
        &session,
        ".vscode/tasks.json",
        b"{}\n",
        b"{\"evil\": 1}\n",
    );
    let git = plant_journal(
        &db,
        &session,
        ".git/hooks/pre-commit",
        b"#!/bin/sh\n",
        b"rm -rf ~\n",
    );

    let untouched = |what: &str| {
        assert_eq!(
            ours.read(".vscode/tasks.json").as_deref(),
            Some(&b"{}\n"[..]),
            "{what}"
        );
        assert_eq!(
            ours.read(".git/hooks/pre-commit").as_deref(),
            Some(&b"#!/bin/sh\n"[..]),
            "{what}"
        );
    };
    for args in [
        vec!["session", "list"],
        vec!["stats"],
        vec!["log", &session],
    ] {
        let out = ours.text(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        untouched(&format!("{args:?}"));
    }
    // A recording command works, settles nothing, and says why.
    let out = ours.text(&["prompt", &session, "--text", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("rewind trust"),
        "{out:?}"
    );
    untouched("prompt");
    // A command that writes files is refused with a code of its own.
    let (code, doc) = ours.json(&["recover"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("untrusted")),
        "{doc}"
    );
    assert!(
        doc["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("was made for"),
        "{doc}"
    );
    untouched("recover");

    // Trusted on purpose: the planted rollback of .vscode happens (the person said so, which is
    // what kept it from happening above), but git's internals stay protected; that journal is
    // stuck, reported, and can be abandoned.
    ours.ok(&["trust"]);
    let (code, doc) = ours.json(&["recover"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(
        ours.read(".vscode/tasks.json").as_deref(),
        Some(&b"{\"evil\": 1}\n"[..])
    );
    assert_eq!(doc["stuck"][0]["journalId"], git.as_str(), "{doc}");
    assert!(
        doc["stuck"][0]["reason"]
            .as_str()
            .expect("reason")
            .contains(".git"),
        "{doc}"
    );
    assert_eq!(
        ours.read(".git/hooks/pre-commit").as_deref(),
        Some(&b"#!/bin/sh\n"[..])
    );
    // Other commands keep working, and warn.
    let out = ours.text(&["session", "new"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--abandon"),
        "{out:?}"
    );
    let done = ours.ok(&["recover", "--abandon", &git]);
    assert_eq!(done["paths"][0], ".git/hooks/pre-commit");
    let ops = ours.ok(&["ops", &session]);
    assert!(ops.to_string().contains("abandoned"), "{ops}");
    assert_eq!(ours.ok(&["recover"])["stuck"], serde_json::json!([]));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
    }
}

#[test]
fn a_half_done_write_is_rolled_back_and_the_log_says_so() {
    // Each fault point of the second file's write. The directory is synced once, after every
    // rename (all three files are in place then), before the final commit.
    for step in ["write", "fsync", "rename", "dirsync"] {
        let b = Bench::new();
        let (session, p) = turn_with_files(&b, 3);
        let files = |b: &Bench| {
            (0..3)
                .map(|i| b.read(&format!("src/f{i}.txt")))
                .collect::<Vec<_>>()
        };
        let before = files(&b);
        let out = b
            .command()
            .args(["--json", "apply", &session, "--since", &p])
            .env(
                "REWIND_TEST_FAIL",
                format!("{step}:{}", if step == "dirsync" { 1 } else { 2 }),
            )
            .output()
            .expect("run");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(out.status.code(), Some(1), "{step}: {doc}");
        assert_eq!(doc["applied"], false, "{step}: {doc}");
        assert_eq!(files(&b), before, "{step}: the workspace must be as before");
        let ops = b.ok(&["ops", &session]);
        let failed = ops
            .as_array()
            .expect("ops")
            .iter()
            .find(|o| o["kind"] == "apply_failed")
            .unwrap_or_else(|| panic!("{step}: {ops}"));
        let note = failed["note"].as_str().expect("note");
        // One file was changed and put back; for dirsync all three were.
        let restored = if step == "dirsync" {
            "3 path(s)"
        } else {
            "1 path(s)"
        };
        assert!(note.contains(restored), "{step}: {note}");
        assert_eq!(b.ok(&["recover"])["recovered"], serde_json::json!([]));
    }
}

#[test]
fn a_journal_on_a_directory_is_rolled_back_leaving_it_and_a_bad_blob_key_is_ignored() {
    let b = Bench::new();
    let (session, _) = turn_with_files(&b, 1);
    std::fs::create_dir_all(b.path("now-a-dir/inner")).expect("mkdir");
    let db = b.path(".rewind/rewind.db");
    let id = plant_journal(&db, &session, "now-a-dir", b"x", b"y");
    rusqlite::Connection::open(&db)
        .expect("raw")
        .execute(
            "INSERT INTO blobs (hash, bytes, codec, size) VALUES ('not-a-digest', x'00', 'raw', 1)",
            [],
        )
        .expect("bad blob");
    // Directories are workspace state now: recover rolls the journal back and leaves the
    // directory (it holds what the journal does not own), reporting the path it left.
    let (code, doc) = b.json(&["recover"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["recovered"][0]["journalId"], id.as_str(), "{doc}");
    assert_eq!(doc["recovered"][0]["leftPaths"][0], "now-a-dir", "{doc}");
    assert!(
        b.path("now-a-dir/inner").is_dir(),
        "the directory and what it holds are kept"
    );
    // Everything else keeps working; gc and stats pass over the malformed blob key.
    b.ok(&["prompt", &session, "--text", "still works"]);
    b.ok(&["gc"]);
    b.ok(&["stats"]);
    assert!(b.path("now-a-dir/inner").is_dir());
    let (code, doc) = b.json(&["recover", "--abandon", &id]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("not_found")),
        "{doc}"
    );
}
