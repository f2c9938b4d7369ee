//! `rewind status` through the binary: the report (session, running turn, pending journals,
//! what a rewind of the latest turn would touch), its JSON, and that it settles and creates
//! nothing (`--short`'s one line is in `cli_doctor`).

use crate::common;

use common::{Bench, s};
use serde_json::Value;
use std::process::Command;

fn status(b: &Bench, home: &std::path::Path, json: bool) -> (i32, String) {
    let mut c: Command = b.command();
    c.env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .args(["--color", "never"]);
    if json {
        c.arg("--json");
    }
    let out = c.arg("status").output().expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    (out.status.code().expect("exit code"), text)
}

fn doc(b: &Bench, home: &std::path::Path) -> Value {
    let (code, text) = status(b, home, true);
    assert_eq!(code, 0, "{text}");
    serde_json::from_str(&text).expect("json")
}

/// A pending journal, as a crash mid-apply leaves it (written straight into the SQLite store).
fn plant_journal(b: &Bench, session: &str) -> String {
    let conn = rusqlite::Connection::open(b.path(".rewind/rewind.db")).expect("open raw");
    let id = "jnl_pendingforstatus".to_owned();
    let body = serde_json::json!({
        "id": id, "sessionId": session, "createdAt": 1, "entries": [],
        "operation": { "id": "op_pendingforstatus", "sessionId": session,
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
fn status_reports_the_session_its_turn_pending_journals_and_what_a_rewind_would_touch() {
    let b = Bench::new();
    let home = tempfile::tempdir().expect("home");
    let (code, text) = status(&b, home.path(), false);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "no current session\n  no agent event yet\n  doctor: no problems\n  no pending journals\n"
    );
    assert!(!b.path(".rewind").exists(), "status made no store");

    let session = s(&b.ok(&["session", "new", "--title", "notes"]), "id");
    let (_, text) = status(&b, home.path(), false);
    assert!(text.contains("\"notes\"\n  recorded by hand"), "{text}");
    assert!(text.ends_with("  no turn to rewind yet\n"), "{text}");

    b.write("notes.md", b"one\n");
    let turn = s(
        &b.ok(&["prompt", &session, "--text", "add a line"]),
        "turnId",
    );
    let before = home.path().join("before.md");
    std::fs::write(&before, b"one\n").expect("before");
    b.write("notes.md", b"one\ntwo\n");
    let before = before.display().to_string();
    b.ok(&[
        "edit",
        &session,
        "--turn",
        &turn,
        "--path",
        "notes.md",
        "--before-file",
        &before,
    ]);
    let d = doc(&b, home.path());
    assert_eq!(d["runningTurn"], turn.as_str(), "{d}");
    assert_eq!(d["pendingJournals"], serde_json::json!([]));
    assert_eq!(d["latestTurn"]["turn"], turn.as_str());
    let stats = &d["latestTurn"]["preview"]["stats"];
    assert_eq!(
        (stats["files"].as_u64(), stats["deletions"].as_u64()),
        (Some(1), Some(1)),
        "{d}"
    );
    let (_, text) = status(&b, home.path(), false);
    assert!(text.contains("  recording turn trn_"), "{text}");
    assert!(
        text.contains(
            "would touch 1 file: notes.md; no conflicts; the rewind adds 0 lines and removes 1 line"
        ),
        "{text}"
    );

    // The person edits the file too: the same rewind now meets a conflict.
    b.write("notes.md", b"one\ntwo\nmine\n");
    let (_, text) = status(&b, home.path(), false);
    assert!(text.contains("notes.md (conflict); 1 conflict;"), "{text}");

    let journal = plant_journal(&b, &session);
    for _ in 0..2 {
        let (code, text) = status(&b, home.path(), false);
        assert_eq!(code, 0, "{text}");
        assert!(
            text.contains(&format!(
                "1 pending journal ({}): run `rewind recover`",
                &journal[..12] // as people read ids: the prefix and 8 characters
            )),
            "{text}"
        );
    }
    assert_eq!(
        doc(&b, home.path())["pendingJournals"],
        serde_json::json!([journal])
    );
    assert_eq!(
        b.read("notes.md").as_deref(),
        Some(&b"one\ntwo\nmine\n"[..])
    );
}
