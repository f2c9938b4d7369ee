//! `rewind show TURN` reads a turn's checkpoints by the turn each was recorded into: one recorded
//! into an older turn after a later prompt is that turn's, not the later one's. And a store from
//! before the turn index (schema v7) shows the same, read-only and once migrated.

use crate::common;

use common::{Bench, s};

/// Record into turn 1 after turn 2's prompt: `edit --turn` names the older, ended turn.
fn late_checkpoint(b: &Bench) -> (String, String, String) {
    let session = s(&b.ok(&["session", "new", "--title", "late"]), "id");
    let before = tempfile::NamedTempFile::new().expect("before");
    let bp = before.path().display().to_string();
    let edit = |turn: &str, path: &str, old: &[u8], new: &[u8]| {
        std::fs::write(before.path(), old).expect("write");
        b.write(path, new);
        b.ok(&[
            "edit",
            &session,
            "--turn",
            turn,
            "--path",
            path,
            "--before-file",
            &bp,
        ]);
    };
    let first = s(&b.ok(&["prompt", &session, "--text", "one"]), "turnId");
    edit(&first, "a.txt", b"a\n", b"a\nb\n");
    b.ok(&["turn-end", &session, "--turn", &first]);
    let second = s(&b.ok(&["prompt", &session, "--text", "two"]), "turnId");
    edit(&second, "c.txt", b"c\n", b"c\nd\n");
    edit(&first, "e.txt", b"e\n", b"e\nf\n");
    (session, first, second)
}

fn paths(doc: &serde_json::Value) -> Vec<String> {
    doc["checkpoints"]
        .as_array()
        .expect("checkpoints")
        .iter()
        .map(|c| c["paths"][0].as_str().expect("path").to_owned())
        .collect()
}

#[test]
fn a_checkpoint_recorded_into_an_older_turn_shows_with_that_turn() {
    let b = Bench::new();
    let (_, first, second) = late_checkpoint(&b);
    let one = b.ok(&["show", "#1"]);
    assert_eq!(one["turnId"], first.as_str());
    assert_eq!(paths(&one), ["a.txt", "e.txt"], "{one}");
    assert_eq!(one["diff"]["stats"]["files"], 2, "{one}");
    let two = b.ok(&["show", &second]);
    assert_eq!(paths(&two), ["c.txt"], "{two}");
    assert_eq!(two["prompt"], "two");
}

fn user_version(b: &Bench) -> i64 {
    rusqlite::Connection::open(b.path(".rewind/rewind.db"))
        .expect("open")
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version")
}

#[test]
fn a_v7_store_shows_the_same_turn_before_and_after_its_migration() {
    let b = Bench::new();
    let (session, first, second) = late_checkpoint(&b);
    let shown = || [&first, &second].map(|t| b.ok(&["show", t.as_str(), &session]));
    let want = shown();
    // Back to version 7: no turn column, no index.
    rusqlite::Connection::open(b.path(".rewind/rewind.db"))
        .expect("open")
        .execute_batch(
            "DROP INDEX checkpoints_by_turn;
             ALTER TABLE checkpoints DROP COLUMN turn_id;
             PRAGMA user_version = 7;",
        )
        .expect("downgrade to v7");
    assert_eq!(shown(), want, "as a v7 store");
    assert_eq!(user_version(&b), 7, "show only reads: it never migrates");
    // A writing command migrates it.
    b.ok(&["recover"]);
    assert_eq!(user_version(&b), 8);
    assert_eq!(shown(), want, "migrated");
}
