//! End-to-end tests of `rewind fork` and `rewind side-chat` through the real binary: shared and
//! restoring forks, idempotent replay, side chats, a missing blob refusing a restoring fork
//! before anything is written, the session tree, and usage errors.

use crate::common;

use common::{Bench, s};
use rewind_core::hash::ContentHash;
use serde_json::Value;

/// A parent session with two completed turns: turn one edits `a.txt` (a0 → a1), turn two edits
/// it again (a1 → a2) and creates `b.txt`.
struct Parent {
    b: Bench,
    /// Holds the `--before-file` inputs, outside the workspace.
    scratch: tempfile::TempDir,
    session: String,
    p1: String,
    p2: String,
    t1: String,
}

impl Parent {
    fn before_file(&self, bytes: &[u8]) -> String {
        let p = self.scratch.path().join("before");
        std::fs::write(&p, bytes).expect("write before file");
        p.to_str().expect("utf8 path").to_owned()
    }

    /// Start a turn; returns (turn id, prompt id).
    fn prompt(&self, text: &str) -> (String, String) {
        let out = self.b.ok(&["prompt", &self.session, "--text", text]);
        (s(&out, "turnId"), s(&out, "messageId"))
    }

    /// A tool changed `path` from `before` to what is on disk now.
    fn edited(&self, turn: &str, path: &str, before: &[u8]) {
        let before = self.before_file(before);
        self.b.ok(&[
            "edit",
            &self.session,
            "--turn",
            turn,
            "--path",
            path,
            "--before-file",
            &before,
        ]);
    }

    fn created(&self, turn: &str, path: &str) {
        self.b.ok(&[
            "edit",
            &self.session,
            "--turn",
            turn,
            "--path",
            path,
            "--created",
            "--tool",
            "Write",
        ]);
    }

    fn finish(&self, turn: &str, reply: &str) {
        self.b
            .ok(&["reply", &self.session, "--turn", turn, "--text", reply]);
        self.b.ok(&["turn-end", &self.session, "--turn", turn]);
    }

    fn sessions(&self) -> Vec<Value> {
        self.b
            .ok(&["session", "list"])
            .as_array()
            .expect("session list is an array")
            .clone()
    }

    fn assert_files(&self, a: &[u8], b: Option<&[u8]>) {
        assert_eq!(self.b.read("a.txt").as_deref(), Some(a), "a.txt");
        assert_eq!(self.b.read("b.txt").as_deref(), b, "b.txt");
    }
}

fn parent() -> Parent {
    let b = Bench::new();
    b.write("a.txt", b"a0\n");
    let session = s(&b.ok(&["session", "new", "--title", "parent"]), "id");
    let mut p = Parent {
        b,
        scratch: tempfile::tempdir().expect("scratch dir"),
        session,
        p1: String::new(),
        p2: String::new(),
        t1: String::new(),
    };
    let (t1, p1) = p.prompt("turn one");
    p.b.write("a.txt", b"a1\n");
    p.edited(&t1, "a.txt", b"a0\n");
    p.finish(&t1, "done one");
    let (t2, p2) = p.prompt("turn two");
    p.b.write("a.txt", b"a2\n");
    p.edited(&t2, "a.txt", b"a1\n");
    p.b.write("b.txt", b"b\n");
    p.created(&t2, "b.txt");
    p.finish(&t2, "done two");
    p.assert_files(b"a2\n", Some(b"b\n"));
    (p.p1, p.p2, p.t1) = (p1, p2, t1);
    p
}

fn messages(state: &Value) -> &Vec<Value> {
    state["messages"].as_array().expect("messages")
}

#[test]
fn a_shared_fork_at_a_message_copies_its_turn_and_touches_no_file() {
    let p = parent();
    let out = p.b.ok(&["fork", &p.session, "--at", &p.p1]);
    let child = s(&out, "childId");
    assert!(child.starts_with("ses_"), "{out}");
    assert_eq!(out["kind"], "fork");
    assert_eq!(out["copiedMessages"], 2);
    assert_eq!(out["copiedCheckpoints"], 1);
    assert_eq!(out["restoredFiles"], serde_json::json!([]));
    assert_eq!(out["replayed"], false);
    assert!(s(&out, "commandId").starts_with("cmd_"), "{out}");
    p.assert_files(b"a2\n", Some(b"b\n"));

    let state = p.b.ok(&["resume", &child]);
    assert_eq!(state["session"]["parentId"], p.session.as_str());
    assert_eq!(state["session"]["kind"], "fork");
    assert_eq!(state["session"]["title"], "Fork of parent");
    let kinds: Vec<&str> = messages(&state)
        .iter()
        .map(|m| m["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["prompt", "reply", "notice", "timeline"], "{state}");
    assert_eq!(messages(&state)[0]["text"], "turn one");
    assert_eq!(messages(&state)[2]["visibleToUi"], false);
    assert_eq!(messages(&state)[3]["visibleToUi"], true);

    let ops = p.b.ok(&["ops", &p.session]);
    let ops = ops.as_array().expect("ops");
    assert_eq!(ops.last().expect("an entry")["kind"], "fork");

    // The session tree: --json names the parent, the text shows the child indented under it.
    let list = p.sessions();
    assert_eq!(list.len(), 2);
    let row = list
        .iter()
        .find(|r| r["id"] == child.as_str())
        .expect("child listed");
    assert_eq!(row["parentId"], p.session.as_str());
    assert_eq!(row["kind"], "fork");
    let text = p.b.text(&["session", "list"]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).expect("utf8");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&p.session))
        .expect("parent line at the top level");
    let next = lines.get(at + 1).expect("a line after the parent");
    assert!(
        next.starts_with(&format!("  {child}")),
        "child indented under its parent:\n{text}"
    );
}

#[test]
fn a_restoring_fork_puts_later_changes_back() {
    let p = parent();
    let out = p.b.ok(&[
        "fork",
        &p.session,
        "--at",
        &p.p1,
        "--workspace-mode",
        "restore",
    ]);
    let mut restored: Vec<(&str, &str)> = out["restoredFiles"]
        .as_array()
        .expect("restoredFiles")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("path"),
                f["action"].as_str().expect("action"),
            )
        })
        .collect();
    restored.sort_unstable();
    assert_eq!(
        restored,
        [("a.txt", "restore"), ("b.txt", "delete")],
        "{out}"
    );
    assert_eq!(out["replayed"], false);
    assert!(out["operationId"].is_string(), "{out}");
    p.assert_files(b"a1\n", None);

    // The parent knows turn two's changes were undone.
    let preview = p.b.ok(&["preview", &p.session, "--since", &p.p2]);
    assert_eq!(preview["canApply"], false, "{preview}");
    assert_eq!(
        preview["revertedPaths"],
        serde_json::json!(["a.txt", "b.txt"])
    );
    let child = s(&out, "childId");
    let state = p.b.ok(&["resume", &child]);
    assert_eq!(state["session"]["parentId"], p.session.as_str());
    assert_eq!(
        state["activeCheckpoints"].as_array().expect("list").len(),
        1
    );
}

#[test]
fn a_command_id_replays_the_same_child_and_writes_nothing() {
    let p = parent();
    let args = [
        "fork",
        &p.session,
        "--at",
        &p.p2,
        "--command-id",
        "cmd_cli-fork",
    ];
    let first = p.b.ok(&args);
    assert_eq!(first["replayed"], false);
    assert_eq!(first["commandId"], "cmd_cli-fork");
    let again = p.b.ok(&args);
    assert_eq!(again["replayed"], true, "{again}");
    assert_eq!(again["childId"], first["childId"]);
    assert_eq!(again["copiedMessages"], first["copiedMessages"]);
    assert_eq!(p.sessions().len(), 2, "exactly one child");
    assert_eq!(
        p.b.ok(&["ops", &p.session]).as_array().expect("ops").len(),
        1,
        "one log entry"
    );

    // The human form says so too.
    let text = p.b.text(&args);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).expect("utf8");
    assert!(text.contains(&s(&first, "childId")), "{text}");
    assert!(text.contains("replayed"), "{text}");
    assert_eq!(p.sessions().len(), 2);

    // A key of the caller's own (a UUID) works the same way.
    let uuid = "3f2a1c9e-6b7d-4e8f-9a0b-1c2d3e4f5a6b";
    let keyed =
        p.b.ok(&["fork", &p.session, "--at", &p.p2, "--command-id", uuid]);
    let again =
        p.b.ok(&["fork", &p.session, "--at", &p.p2, "--command-id", uuid]);
    assert_eq!(keyed["childId"], again["childId"]);
    assert_eq!(again["replayed"], true);
    assert_eq!(p.sessions().len(), 3);

    // A malformed command id is bad input, not a usage error, and changes nothing.
    let (code, doc) = p.b.json(&[
        "fork",
        &p.session,
        "--at",
        &p.p2,
        "--command-id",
        "has space",
    ]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input")),
        "{doc}"
    );
    assert_eq!(p.sessions().len(), 3);
}

#[test]
fn a_side_chat_hides_the_history_and_cuts_a_running_turn() {
    let p = parent();
    let (t3, _) = p.prompt("in flight");
    p.b.ok(&[
        "reply",
        &p.session,
        "--turn",
        &t3,
        "--text",
        "partial output",
    ]);
    let out =
        p.b.ok(&["side-chat", &p.session, "--command-id", "cmd_side"]);
    assert_eq!(out["kind"], "side_chat");
    assert_eq!(out["copiedMessages"], 5, "{out}");
    assert_eq!(out["copiedCheckpoints"], 0);
    assert_eq!(out["replayed"], false);
    let child = s(&out, "childId");

    let state = p.b.ok(&["resume", &child]);
    assert_eq!(state["session"]["kind"], "side_chat");
    assert_eq!(state["session"]["title"], "Side chat");
    assert_eq!(state["session"]["parentId"], p.session.as_str());
    let msgs = messages(&state);
    assert!(
        msgs.iter()
            .all(|m| m["visibleToUi"] == false && m["visibleToModel"] == true),
        "{state}"
    );
    let texts: Vec<&str> = msgs
        .iter()
        .map(|m| m["text"].as_str().expect("text"))
        .collect();
    assert!(texts.contains(&"in flight"), "{texts:?}");
    assert!(!texts.contains(&"partial output"), "{texts:?}");
    assert_eq!(msgs.last().expect("reminder")["kind"], "reminder");
    assert_eq!(state["activeCheckpoints"], serde_json::json!([]));

    let again =
        p.b.ok(&["side-chat", &p.session, "--command-id", "cmd_side"]);
    assert_eq!(again["replayed"], true);
    assert_eq!(again["childId"], child.as_str());
    assert_eq!(p.sessions().len(), 2);
    p.assert_files(b"a2\n", Some(b"b\n"));
}

#[test]
fn a_missing_blob_refuses_a_restoring_fork_before_anything_is_written() {
    let p = parent();
    // Restoring a.txt to the fork point needs the bytes "a1\n"; they are gone.
    let conn = rusqlite::Connection::open(p.b.path(".rewind/rewind.db")).expect("open the db");
    let gone = conn
        .execute(
            "DELETE FROM blobs WHERE hash = ?1",
            [ContentHash::of(b"a1\n").to_string()],
        )
        .expect("delete the blob");
    assert_eq!(gone, 1, "the blob was stored");
    drop(conn);

    let (code, doc) = p.b.json(&[
        "fork",
        &p.session,
        "--at",
        &p.p1,
        "--workspace-mode",
        "restore",
        "--command-id",
        "cmd_restore",
    ]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"]["code"], "conflict", "{doc}");
    p.assert_files(b"a2\n", Some(b"b\n"));
    assert_eq!(p.sessions().len(), 1, "no child was created");
    assert_eq!(
        p.b.ok(&["ops", &p.session]),
        serde_json::json!([]),
        "no log entry"
    );
    let state = p.b.ok(&["resume", &p.session]);
    assert_eq!(state["pendingJournals"], serde_json::json!([]));

    // The command was not recorded as done: a shared fork with the same id now runs.
    let out = p.b.ok(&[
        "fork",
        &p.session,
        "--at",
        &p.p1,
        "--command-id",
        "cmd_restore",
    ]);
    assert_eq!(out["replayed"], false, "{out}");
    assert_eq!(out["restoredFiles"], serde_json::json!([]));
    p.assert_files(b"a2\n", Some(b"b\n"));
}

#[test]
fn fork_usage_errors_exit_2() {
    let p = parent();
    for args in [
        vec!["fork", p.session.as_str(), "--at", &p.p1, "--turn", &p.t1],
        vec!["fork", p.session.as_str()],
        vec![
            "fork",
            p.session.as_str(),
            "--at",
            &p.p1,
            "--workspace-mode",
            "sideways",
        ],
        // (`side-chat` alone is no usage error: it opens one on the current session.)
        vec!["side-chat", p.session.as_str(), "--command-id"],
    ] {
        let out = p.b.text(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(p.sessions().len(), 1, "nothing was created");
    // A turn that has not completed is no fork point: refused, exit 1.
    let (t3, _) = p.prompt("running");
    let (code, doc) = p.b.json(&["fork", &p.session, "--turn", &t3]);
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("unavailable")),
        "{doc}"
    );
    // A completed turn is, while the parent runs a newer one.
    let out = p.b.ok(&["fork", &p.session, "--turn", &p.t1]);
    assert_eq!(out["copiedMessages"], 2);
    assert_eq!(out["copiedCheckpoints"], 0);
}
