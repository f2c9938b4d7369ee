//! End-to-end tests of the `rewind` binary: a realistic flow, exit codes, bad input.

use crate::common;

use common::{Bench, s};

/// A session with one turn that edited `src/lib.rs` and created `src/new.rs`.
fn recorded(b: &Bench) -> (String, String, String) {
    b.write("src/lib.rs", b"pub fn old() {}\n");
    let session = s(&b.ok(&["session", "new", "--title", "cli test"]), "id");
    let turn = b.ok(&["prompt", &session, "--text", "rename old to new"]);
    let (t, p) = (s(&turn, "turnId"), s(&turn, "messageId"));
    b.write("before.txt", b"pub fn old() {}\n");
    b.write("src/lib.rs", b"pub fn new() {}\n");
    let before = b.path("before.txt");
    let edit = b.ok(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "src/lib.rs",
        "--before-file",
        before.to_str().expect("utf8"),
    ]);
    assert!(s(&edit, "checkpointId").starts_with("ckp_"));
    b.write("src/new.rs", b"// new\n");
    b.ok(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "src/new.rs",
        "--created",
        "--tool",
        "Write",
    ]);
    b.ok(&["reply", &session, "--turn", &t, "--text", "renamed"]);
    b.ok(&["turn-end", &session, "--turn", &t]);
    (session, t, p)
}

#[test]
fn record_preview_apply_undo_through_the_binary() {
    let b = Bench::new();
    let (session, _t, p) = recorded(&b);
    let list = b.ok(&["session", "list"]);
    assert_eq!(list[0]["id"], session.as_str());
    assert_eq!(list[0]["kind"], "interactive");
    let cps = b.ok(&["checkpoints", &session]);
    assert_eq!(cps.as_array().expect("list").len(), 2);
    assert_eq!(cps[1]["files"][0]["before"], "missing");

    let preview = b.ok(&["preview", &session, "--since", &p]);
    assert_eq!(preview["canApply"], true);
    assert_eq!(preview["safeFiles"][0]["path"], "src/lib.rs");
    assert_eq!(preview["safeFiles"][1]["action"], "delete");

    let applied = b.ok(&["apply", &session, "--since", &p]);
    assert_eq!(applied["applied"], true);
    assert_eq!(
        b.read("src/lib.rs").as_deref(),
        Some(&b"pub fn old() {}\n"[..])
    );
    assert_eq!(b.read("src/new.rs"), None);

    let ops = b.ok(&["ops", &session]);
    assert_eq!(ops[0]["kind"], "file_rewind");
    let op = s(&applied, "operationId");
    let undone = b.ok(&["undo", &session, &op]);
    assert_eq!(undone["applied"], true);
    assert_eq!(b.read("src/new.rs").as_deref(), Some(&b"// new\n"[..]));

    let log = b.text(&["log", &session, "--all"]);
    assert!(log.status.success());
    assert!(String::from_utf8_lossy(&log.stdout).contains("src/lib.rs"));
}

#[test]
fn a_conflict_refuses_with_exit_1_and_writes_nothing() {
    let b = Bench::new();
    let (session, _t, p) = recorded(&b);
    b.write("src/lib.rs", b"pub fn mine() {}\n");
    let (code, doc) = b.json(&["apply", &session, "--since", &p]);
    assert_eq!(code, 1);
    assert_eq!(doc["applied"], false);
    assert_eq!(
        doc["preview"]["unsafeFiles"][0]["reason"],
        "external_modified"
    );
    assert_eq!(
        b.read("src/lib.rs").as_deref(),
        Some(&b"pub fn mine() {}\n"[..])
    );
    assert_eq!(
        b.read("src/new.rs").as_deref(),
        Some(&b"// new\n"[..]),
        "block writes nothing"
    );
}

#[test]
fn conversation_and_both_and_resume() {
    let b = Bench::new();
    let (session, t, p) = recorded(&b);
    let second = b.ok(&["prompt", &session, "--text", "and more"]);
    let conv = b.ok(&["conversation", &session, "--to", &s(&second, "messageId")]);
    assert_eq!(conv["generation"], 1);
    let both = b.ok(&["both", &session, "--to", &p]);
    assert_eq!(both["rewound"], true);
    assert_eq!(b.read("src/new.rs"), None);
    let state = b.ok(&["resume", &session]);
    assert_eq!(state["turnNumber"], 0);
    assert_eq!(state["session"]["generation"], 2);
    let (code, doc) = b.json(&["reply", &session, "--turn", &t, "--text", "late"]);
    assert_eq!(code, 1, "a reply to a rewound turn is refused");
    assert_eq!(doc["error"]["code"], "conflict");
}

#[test]
fn unknown_ids_exit_1_naming_the_id() {
    let b = Bench::new();
    let (session, _, _) = recorded(&b);
    for args in [
        vec!["prompt", "ses_doesnotexist", "--text", "x"],
        vec!["preview", session.as_str(), "--since", "msg_doesnotexist"],
        vec![
            "preview",
            session.as_str(),
            "--checkpoint",
            "ckp_doesnotexist",
        ],
    ] {
        let (code, doc) = b.json(&args);
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(doc["error"]["code"], "not_found", "{args:?}");
        let missing = args
            .iter()
            .find(|a| a.contains("doesnotexist"))
            .expect("id");
        assert!(
            doc["error"]["message"]
                .as_str()
                .expect("message")
                .contains(missing),
            "{doc}"
        );
    }
    let (code, doc) = b.json(&["prompt", "not-an-id", "--text", "x"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input"))
    );
}

#[test]
fn paths_outside_the_workspace_are_invalid_path() {
    let b = Bench::new();
    let (session, t, _) = recorded(&b);
    let (code, doc) = b.json(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "../escape.txt",
        "--created",
    ]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_path")),
        "{doc}"
    );
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.txt"), b"secret").expect("write");
    std::os::unix::fs::symlink(outside.path(), b.path("link")).expect("symlink");
    let (code, doc) = b.json(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "link/secret.txt",
        "--created",
    ]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_path")),
        "{doc}"
    );
}

#[test]
fn an_unusable_database_exits_3_naming_it() {
    let b = Bench::new();
    std::fs::create_dir_all(b.path("db-is-a-dir")).expect("mkdir");
    let db = b.path("db-is-a-dir");
    let out = b
        .command()
        .arg("--json")
        .arg("--db")
        .arg(&db)
        .args(["session", "list"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        doc["error"]["message"]
            .as_str()
            .expect("message")
            .contains(db.to_str().expect("utf8")),
        "{doc}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let b = Bench::new();
    let out = b.text(&["preview", "ses_x"]);
    assert_eq!(out.status.code(), Some(2), "no target given");
    let out = b.text(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_corrupt_row_is_a_diagnostic_and_resume_still_works() {
    let b = Bench::new();
    let (session, _, _) = recorded(&b);
    let conn = rusqlite::Connection::open(b.path(".rewind/rewind.db")).expect("open");
    let changed = conn
        .execute("UPDATE messages SET body = '{broken' WHERE session_id = ?1 AND seq = (SELECT max(seq) FROM messages WHERE session_id = ?1)", [&session])
        .expect("corrupt");
    assert_eq!(changed, 1);
    drop(conn);
    let state = b.ok(&["resume", &session]);
    let diags = state["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 1, "{state}");
    assert_eq!(diags[0]["kind"], "message");
}

#[test]
fn two_processes_record_into_one_database_at_once() {
    let b = Bench::new();
    let a = s(&b.ok(&["session", "new", "--title", "a"]), "id");
    let c = s(&b.ok(&["session", "new", "--title", "c"]), "id");
    let bin = env!("CARGO_BIN_EXE_rewind");
    let script = |session: &str| {
        format!(
            "for i in $(seq 1 25); do {bin} --workspace {} prompt {session} --text \"p$i\" >/dev/null || exit 1; done",
            b.ws().display()
        )
    };
    let mut kids: Vec<_> = [&a, &c]
        .iter()
        .map(|session| {
            std::process::Command::new("bash")
                .arg("-c")
                .arg(script(session))
                .spawn()
                .expect("spawn")
        })
        .collect();
    for k in &mut kids {
        assert!(
            k.wait().expect("wait").success(),
            "no 'database is locked' may surface"
        );
    }
    for session in [&a, &c] {
        assert_eq!(b.ok(&["resume", session])["turnNumber"], 25);
    }
}

/// `rewind` without the bench's global `--workspace`, which the demo refuses.
fn bare() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_rewind"));
    c.env_remove("REWIND_DB");
    c
}

#[test]
fn the_demo_runs_start_to_finish() {
    let b = Bench::new();
    let out = bare()
        .arg("demo")
        .arg(b.path("demo"))
        .output()
        .expect("run rewind");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for step in [
        "preview",
        "apply --policy block",
        "apply --policy merge",
        "undo",
        "reopen and resume",
    ] {
        assert!(text.contains(step), "missing step {step}:\n{text}");
    }
    assert!(text.contains("external_modified"), "{text}");
}

#[test]
fn the_demo_has_one_way_to_say_where_it_runs() {
    let help = bare().args(["help", "demo"]).output().expect("run rewind");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("[DIR]"), "{help}");
    assert!(help.contains("DIR/.rewind/"), "{help}");
    for global in ["--workspace", "--db"] {
        assert!(!help.contains(global), "{global} shown:\n{help}");
    }

    let b = Bench::new();
    let dir = b.path("demo");
    let dir = dir.to_str().expect("utf8");
    for args in [
        vec!["--workspace", dir, "demo"],
        vec!["demo", "--workspace", dir],
        vec!["demo", "--db", "other.db", dir],
    ] {
        let out = bare().args(&args).output().expect("run rewind");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("rewind demo [DIR]"), "{args:?}: {err}");
        assert!(!b.path("demo").exists(), "{args:?} ran the demo anyway");
    }

    // REWIND_DB set for the user's own sessions neither stops the demo nor is written to.
    let db = b.path("mine.db");
    let out = bare()
        .env("REWIND_DB", &db)
        .args(["demo", dir])
        .output()
        .expect("run rewind");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(b.path("demo/.rewind/rewind.db").exists());
    assert!(!db.exists());
}

#[test]
fn checkpoints_say_a_failed_capture_is_unknown_not_missing() {
    let b = Bench::new();
    b.ok(&["config", "--max-file-size", "16"]);
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = s(&b.ok(&["prompt", &session, "--text", "big"]), "turnId");
    b.record(&session, &t, "big.txt", None, &[b'x'; 64], &[]);
    b.record(&session, &t, "small.txt", None, b"ok\n", &[]);

    let cps = b.ok(&["checkpoints", &session]);
    let big = &cps[0]["files"][0];
    assert_eq!(big["before"], serde_json::Value::Null);
    assert_eq!(big["captureFailed"], "too_large");
    assert!(
        big["after"].as_str().is_some_and(|h| h.len() == 64),
        "{big}"
    );
    assert_eq!(cps[1]["files"][0]["before"], "missing");

    let out = b.text(&["checkpoints", &session]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let big = lines
        .iter()
        .find(|l| l.contains("big.txt"))
        .expect("big.txt");
    assert!(
        big.contains("unknown (capture failed: too_large) -> "),
        "{text}"
    );
    assert!(!big.contains("missing"), "{text}");
    let small = lines
        .iter()
        .find(|l| l.contains("small.txt"))
        .expect("small");
    assert!(small.contains("missing -> "), "{text}");
}

#[test]
fn previews_say_which_files_are_too_large_for_line_counts() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let turn = b.ok(&["prompt", &session, "--text", "generate"]);
    let (t, p) = (s(&turn, "turnId"), s(&turn, "messageId"));
    // Over the 1 MiB patch limit, under the 10 MiB recording limit.
    let big = "a line of generated text\n".repeat(50_000);
    b.record(
        &session,
        &t,
        "big.txt",
        None,
        big.as_bytes(),
        &["--tool", "Write"],
    );
    b.record(&session, &t, "small.txt", None, b"one\ntwo\n", &[]);

    let preview = b.ok(&["preview", &session, "--since", &p]);
    assert_eq!(preview["safeFiles"][0]["path"], "big.txt");
    assert_eq!(preview["safeFiles"][0]["large"], true);
    assert!(preview["safeFiles"][1].get("large").is_none(), "{preview}");
    // What the rewind writes: it deletes small.txt's two lines (big.txt is not counted).
    assert_eq!(preview["stats"]["additions"], 0);
    assert_eq!(preview["stats"]["deletions"], 2);
    assert_eq!(preview["safeFiles"][1]["deletions"], 2);

    let out = b.text(&["preview", &session, "--since", &p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("big.txt  (1 change by Write; large file, no line counts)"),
        "{text}"
    );
    assert!(
        !text.contains("small.txt  (1 change by Edit; large"),
        "{text}"
    );
    assert!(
        text.contains(
            "2 files; the rewind adds 0 lines and removes 2 lines (not counting 1 large file)"
        ),
        "{text}"
    );
}

#[test]
fn a_bare_database_file_name_lives_in_the_current_directory() {
    let b = Bench::new();
    let out = b
        .command()
        .current_dir(b.ws())
        .args(["--db", "here.db", "--json", "session", "new"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(b.path("here.db").is_file());
    assert!(b.path("current-session").is_file());
}
