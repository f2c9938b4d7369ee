//! `rewind show TURN`: the turn's prompt, checkpoints and forward diff (what the agent changed
//! in that turn, not what a rewind would write), its JSON, a message naming its turn, and clear
//! errors for a turn that is not there. The text is snapshotted in `cli_snapshots`.

use crate::common;

use common::{Bench, s};

#[test]
fn show_gives_a_turns_own_forward_diff_whatever_happened_after() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new", "--title", "notes"]), "id");
    b.write("notes.md", b"one\n");
    let prompt = b.ok(&["prompt", &session, "--text", "add a line"]);
    let (turn, message) = (s(&prompt, "turnId"), s(&prompt, "messageId"));
    let before = tempfile::NamedTempFile::new().expect("before");
    std::fs::write(before.path(), b"one\n").expect("write");
    b.write("notes.md", b"one\ntwo\n");
    let bp = before.path().display().to_string();
    b.ok(&[
        "edit",
        &session,
        "--turn",
        &turn,
        "--path",
        "notes.md",
        "--before-file",
        &bp,
    ]);
    b.ok(&["turn-end", &session, "--turn", &turn]);
    // The person's later edit is no part of the turn's diff.
    b.write("notes.md", b"zero\none\ntwo\n");
    let second = b.ok(&["prompt", &session, "--text", "nothing to do"]);

    for name in ["#1", turn.as_str(), message.as_str(), "@-1"] {
        let doc = b.ok(&["show", name]);
        assert_eq!(doc["turnId"], turn.as_str(), "{name}: {doc}");
        assert_eq!(doc["prompt"], "add a line");
        assert_eq!(doc["checkpoints"][0]["paths"][0], "notes.md");
        let f = &doc["diff"]["files"][0];
        assert_eq!(f["path"], "notes.md");
        assert_eq!(f["action"], "restore");
        assert_eq!(
            (f["additions"].as_u64(), f["deletions"].as_u64()),
            (Some(1), Some(0))
        );
        assert_eq!(f["hunks"][0]["lines"][1]["text"], "two", "{doc}");
    }
    let out = b.text(&["--color", "never", "show", "#1", "--stat"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains(" notes.md | 1 +\n"), "{text}");
    assert!(
        text.ends_with(" 1 file; the turn added 1 line and removed 0 lines\n"),
        "{text}"
    );

    let doc = b.ok(&["show", &s(&second, "turnId")]);
    assert_eq!(doc["diff"]["files"], serde_json::json!([]));
    let out = b.text(&["show", "@"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("the turn changed no files"));

    // `session list` counts the turns and dates the newest message.
    let list = b.ok(&["session", "list"]);
    assert_eq!(list[0]["turns"], 2, "{list}");
    let (created, last) = (
        list[0]["createdAt"].as_i64(),
        list[0]["lastActiveAt"].as_i64(),
    );
    assert!(last.is_some() && last >= created, "{list}");

    let (code, doc) = b.json(&["show", "#9"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    let (code, doc) = b.json(&["show", "zz"]);
    assert_ne!(code, 0, "{doc}");
}
