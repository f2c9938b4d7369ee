//! Ids people can type: unique prefixes (with or without the type prefix), ambiguous ones
//! refused with their candidates, `#N` / `@` / `@-N` for turns; the store found from a
//! subdirectory; `undo` of the latest rewind and `redo`; the rest of the engine in the CLI.

use crate::common;

use common::{Bench, s};
use std::collections::HashMap;

/// Two turns, each writing one file; returns (session, [(turn, prompt)]).
fn two_turns(b: &Bench) -> (String, Vec<(String, String)>) {
    let session = s(&b.ok(&["session", "new", "--title", "refs"]), "id");
    let mut turns = Vec::new();
    for (i, path) in ["one.txt", "two.txt"].iter().enumerate() {
        let t = b.ok(&["prompt", &session, "--text", &format!("prompt {}", i + 1)]);
        let (turn, prompt) = (s(&t, "turnId"), s(&t, "messageId"));
        b.record(&session, &turn, path, None, b"new\n", &[]);
        b.ok(&["reply", &session, "--turn", &turn, "--text", "done"]);
        b.ok(&["turn-end", &session, "--turn", &turn]);
        turns.push((turn, prompt));
    }
    (session, turns)
}

fn code_of(b: &Bench, args: &[&str]) -> (i32, String, serde_json::Value) {
    let (code, doc) = b.json(args);
    let c = doc["error"]["code"].as_str().unwrap_or("").to_owned();
    (code, c, doc)
}

#[test]
fn unique_prefixes_with_or_without_the_type_prefix_name_the_id() {
    let b = Bench::new();
    let (session, turns) = two_turns(&b);
    let (_, p1) = &turns[0];
    let hex = &session["ses_".len()..];
    for typed in [
        session.clone(),
        session[..12].to_owned(),
        hex[..8].to_owned(),
    ] {
        let doc = b.ok(&["log", &typed]);
        assert_eq!(doc["sessionId"], session.as_str(), "{typed}");
    }
    let short = &p1["msg_".len()..][..10];
    let preview = b.ok(&["preview", &session, "--since", short]);
    let full = b.ok(&["preview", &session, "--since", p1]);
    assert_eq!(preview, full);
    assert_eq!(preview["stats"]["files"], 2);
}

#[test]
fn turns_by_number_and_from_the_latest() {
    let b = Bench::new();
    let (session, turns) = two_turns(&b);
    let one = b.ok(&["preview", &session, "--since", "#1"]);
    let by_id = b.ok(&["preview", &session, "--since", &turns[0].1]);
    assert_eq!(one, by_id);
    assert_eq!(one["stats"]["files"], 2);
    let latest = b.ok(&["preview", &session, "--turn", "@"]);
    assert_eq!(latest["safeFiles"][0]["path"], "two.txt");
    assert_eq!(latest["stats"]["files"], 1);
    let before = b.ok(&["preview", &session, "--turn", "@-1"]);
    assert_eq!(before["safeFiles"][0]["path"], "one.txt");
    assert_eq!(b.ok(&["preview", &session, "--turn", "#2"]), latest);
    // `log` numbers the same turns the same way.
    let log = b.ok(&["log", &session]);
    let numbered: Vec<(String, u64)> = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| Some((s(m, "id"), m["turnNumber"].as_u64()?)))
        .collect();
    assert_eq!(
        numbered,
        vec![(turns[0].1.clone(), 1), (turns[1].1.clone(), 2)]
    );

    for bad in ["#3", "@-2"] {
        let (code, c, doc) = code_of(&b, &["preview", &session, "--since", bad]);
        assert_eq!((code, c.as_str()), (1, "not_found"), "{bad}: {doc}");
        assert!(
            doc["error"]["message"]
                .as_str()
                .expect("msg")
                .contains("#1 to #2")
        );
    }
    for bad in ["#0", "#x", "@+1"] {
        let (code, c, _) = code_of(&b, &["preview", &session, "--since", bad]);
        assert_eq!((code, c.as_str()), (1, "invalid_input"), "{bad}");
    }
}

#[test]
fn ambiguous_prefixes_are_refused_with_their_candidates_and_unknown_ones_are_not_found() {
    let b = Bench::new();
    let mut by_first: HashMap<char, Vec<String>> = HashMap::new();
    // 17 sessions: two of them must share their first hex digit.
    for _ in 0..17 {
        let id = s(&b.ok(&["session", "new"]), "id");
        let first = id["ses_".len()..].chars().next().expect("hex");
        by_first.entry(first).or_default().push(id);
    }
    let (first, shared) = by_first
        .iter()
        .find(|(_, ids)| ids.len() > 1)
        .expect("pigeonhole");
    let db = b.path(".rewind/rewind.db");
    let before = std::fs::read(&db).expect("db");
    let (code, c, doc) = code_of(&b, &["log", &first.to_string()]);
    assert_eq!((code, c.as_str()), (1, "invalid_input"), "{doc}");
    let candidates: Vec<&str> = doc["error"]["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    for id in shared {
        assert!(candidates.contains(&id.as_str()), "{id} in {candidates:?}");
        assert!(
            doc["error"]["message"]
                .as_str()
                .expect("msg")
                .contains(id.as_str())
        );
    }
    // A prefix nothing starts with.
    let unused = (0..=255u8)
        .map(|n| format!("{n:02x}"))
        .find(|p| {
            by_first
                .values()
                .flatten()
                .all(|id| !id[4..].starts_with(p.as_str()))
        })
        .expect("an unused two-digit prefix");
    let (code, c, _) = code_of(&b, &["log", &unused]);
    assert_eq!((code, c.as_str()), (1, "not_found"));
    // Neither changed anything.
    assert_eq!(std::fs::read(&db).expect("db"), before);
}

#[test]
fn the_store_is_found_from_a_subdirectory_and_reads_never_create_one() {
    let b = Bench::new();
    let (session, _) = two_turns(&b);
    b.write("src/deep/file.rs", b"x\n");
    let sub = b.path("src/deep");
    let bare = || {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_rewind"));
        c.current_dir(&sub).env_remove("REWIND_DB").arg("--json");
        c
    };
    let out = bare().args(["log", &session]).output().expect("run");
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["sessionId"], session.as_str());
    // A new session from the subdirectory goes into the same store.
    let out = bare().args(["session", "new"]).output().expect("run");
    assert!(out.status.success(), "{out:?}");
    assert!(!sub.join(".rewind").exists(), "no second store");
    assert_eq!(
        b.ok(&["session", "list"]).as_array().expect("list").len(),
        2
    );

    // Where there is none, reading says so and creates nothing.
    let empty = tempfile::tempdir().expect("tempdir");
    for args in [
        vec!["log"],
        vec!["ops"],
        vec!["stats"],
        vec!["prompt", "--text", "x"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rewind"))
            .current_dir(empty.path())
            .env_remove("REWIND_DB")
            .args(&args)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("no rewind store") && err.contains("rewind session new"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_dir(empty.path()).expect("ls").count(),
            0,
            "{args:?}"
        );
    }
}

#[test]
fn undo_takes_back_the_latest_rewind_and_redo_the_latest_undo() {
    let b = Bench::new();
    let (session, _) = two_turns(&b);
    let (code, c, _) = code_of(&b, &["undo", &session]);
    assert_eq!((code, c.as_str()), (1, "not_found"), "nothing to undo yet");
    b.ok(&["apply", &session, "--turn", "@"]);
    b.ok(&["apply", &session, "--turn", "@-1"]);
    assert!(b.read("one.txt").is_none() && b.read("two.txt").is_none());

    // Walks back: the latest first.
    let first = b.ok(&["undo"]);
    assert_eq!(first["restoredFiles"][0]["path"], "one.txt");
    assert_eq!(b.read("one.txt").as_deref(), Some(&b"new\n"[..]));
    let second = b.ok(&["undo", &session]);
    assert_eq!(second["restoredFiles"][0]["path"], "two.txt");
    let (code, c, _) = code_of(&b, &["undo"]);
    assert_eq!((code, c.as_str()), (1, "not_found"), "all undone");

    // Redo takes back the latest undo: two.txt is rewound again.
    let redo = b.ok(&["redo"]);
    assert_eq!(redo["restoredFiles"][0]["path"], "two.txt");
    assert!(b.read("two.txt").is_none());
    // An operation by prefix still works.
    let ops = b.ok(&["ops"]);
    let last = s(ops.as_array().expect("ops").last().expect("op"), "id");
    let (code, c, _) = code_of(&b, &["undo", &last[..10]]);
    assert_eq!((code, c.as_str()), (0, ""));
    assert_eq!(b.read("two.txt").as_deref(), Some(&b"new\n"[..]));
}

#[test]
fn the_rest_of_the_engine_is_in_the_cli() {
    let b = Bench::new();
    let (session, _) = two_turns(&b);
    let retry = b.ok(&["retry"]);
    assert_eq!(retry["disposition"], "rewind");
    let edited = b.ok(&["edit-prompt", "--text", "prompt 2, better"]);
    assert_eq!(edited["disposition"], "rewind");
    let notice = b.ok(&["notice", &session, "--text", "heads up", "--show"]);
    let summary = b.ok(&["compaction", "--summary", "the story so far", "--turn", "@"]);
    let failed = b.ok(&[
        "failed-capture",
        "--turn",
        "@",
        "--path",
        "big.bin",
        "--reason",
        "too_large",
    ]);
    assert_eq!(failed["files"][0]["path"], "big.bin");
    let log = b.ok(&["log"]);
    let texts: Vec<String> = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| s(m, "text"))
        .collect();
    assert_eq!(texts.last().map(String::as_str), Some("the story so far"));
    assert!(texts.iter().any(|t| t == "heads up"));
    assert!(texts.iter().any(|t| t == "prompt 2, better"));
    for m in [&notice, &summary] {
        assert!(s(m, "messageId").starts_with("msg_"));
    }
    // A rewind over the failed capture reports it instead of guessing.
    let preview = b.ok(&["preview", "--turn", "@"]);
    assert_eq!(
        preview["unsafeFiles"][0]["reason"],
        "unsupported_checkpoint"
    );
}

#[test]
fn completions_and_the_man_page_come_from_the_same_definitions() {
    let b = Bench::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = b.text(&["completions", shell]);
        assert!(out.status.success());
        let script = String::from_utf8(out.stdout).expect("utf8");
        for sub in ["diff", "undo", "redo", "edit-prompt"] {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    let man = String::from_utf8(b.text(&["man"]).stdout).expect("utf8");
    assert!(
        man.starts_with(".ie") || man.contains(".TH rewind"),
        "{man:.200}"
    );
    assert!(man.contains("rewind\\-undo") || man.contains("rewind-undo"));
    assert!(!b.path(".rewind").exists(), "neither needs a store");
}
