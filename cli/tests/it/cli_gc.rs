//! `rewind gc`, `rewind config`, `rewind stats` through the binary.

use crate::common;

use common::{Bench, s};

/// A session with `n` turns, each rewriting `notes.md` with a bigger, compressible text.
fn turns(b: &Bench, n: usize) -> String {
    let session = s(&b.ok(&["session", "new"]), "id");
    b.write("notes.md", b"start\n");
    for i in 0..n {
        let t = s(
            &b.ok(&["prompt", &session, "--text", &format!("turn {i}")]),
            "turnId",
        );
        b.write("before.md", &b.read("notes.md").expect("notes"));
        b.write(
            "notes.md",
            format!("{}\n", "the same line of notes\n".repeat(50 + i)).as_bytes(),
        );
        let before = b.path("before.md").display().to_string();
        b.ok(&[
            "edit",
            &session,
            "--turn",
            &t,
            "--path",
            "notes.md",
            "--before-file",
            &before,
        ]);
    }
    session
}

#[test]
fn gc_follows_the_configured_retention_and_a_second_run_finds_nothing() {
    let b = Bench::new();
    let session = turns(&b, 4);
    let config = b.ok(&["config", "--keep", "1"]);
    assert_eq!(config["keep"], 1);
    let dry = b.ok(&["gc", "--dry-run"]);
    assert_eq!(dry["applied"], false);
    assert_eq!(dry["plan"]["totals"]["checkpoints"]["count"], 3);
    assert_eq!(
        b.ok(&["checkpoints", &session]).as_array().map(Vec::len),
        Some(4),
        "dry run deletes nothing"
    );
    let done = b.ok(&["gc"]);
    assert_eq!(done["applied"], true);
    assert_eq!(
        b.ok(&["checkpoints", &session]).as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(b.ok(&["gc"])["applied"], false, "nothing left to do");
    let ops = b.ok(&["ops", &session]);
    assert_eq!(
        ops.as_array()
            .and_then(|o| o.last())
            .map(|o| o["kind"].clone()),
        Some("gc".into())
    );
}

#[test]
fn stats_show_storage_below_what_was_recorded() {
    let b = Bench::new();
    turns(&b, 5);
    let st = b.ok(&["stats"]);
    let logical = st["logicalBytes"].as_u64().expect("logical");
    let stored = st["storedBytes"].as_u64().expect("stored");
    let unique = st["uniqueBytes"].as_u64().expect("unique");
    assert!(
        unique < logical,
        "each version's after is the next one's before: stored once ({unique} < {logical})"
    );
    assert!(
        stored < unique,
        "text is compressed in the store ({stored} < {unique})"
    );
}

#[test]
fn the_size_limit_and_quota_come_from_config() {
    let b = Bench::new();
    b.ok(&["config", "--max-file-size", "16"]);
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = s(&b.ok(&["prompt", &session, "--text", "big"]), "turnId");
    b.write("big.txt", &[b'x'; 64]);
    let out = b.ok(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "big.txt",
        "--created",
    ]);
    assert_eq!(out["files"][0]["captureFailed"], "too_large");
    let (code, doc) = b.json(&["config", "--quota", "lots"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input"))
    );
    let shown = b.ok(&["config", "--quota", "none", "--older-than", "never"]);
    assert_eq!(shown["sessionQuotaBytes"], serde_json::Value::Null);
    assert_eq!(shown["maxFileBytes"], 16);
}

#[test]
fn an_age_of_zero_is_refused_and_a_short_age_never_drops_the_session_in_use() {
    let b = Bench::new();
    let session = turns(&b, 1);
    let (code, doc) = b.json(&["config", "--older-than", "0"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input"))
    );
    let (code, doc) = b.json(&["gc", "--older-than", "0"]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input"))
    );
    let out = b.ok(&["gc", "--older-than", "1m"]);
    assert_eq!(out["plan"]["olderThanMs"], 3_600_000, "the one-hour floor");
    assert_eq!(out["plan"]["sessions"], serde_json::json!([]));
    assert_eq!(
        b.ok(&["checkpoints", &session]).as_array().map(Vec::len),
        Some(1)
    );
}
