//! `rewind diff` and `preview -p` through the binary: the unified diff of what a rewind would
//! write, conflicts with both changes, binary and large files named, `--stat`, colour, and that
//! nothing is written.

use crate::common;

use common::{Bench, s};
use serde_json::Value;

/// A turn that modifies `a.txt`, creates `new.txt` and deletes `gone.txt`; returns the session
/// and the prompt's message id.
fn turn(b: &Bench) -> (String, String) {
    b.write("a.txt", b"one\ntwo\nthree\n");
    b.write("gone.txt", b"kept\n");
    let session = s(&b.ok(&["session", "new"]), "id");
    let prompt = b.ok(&["prompt", &session, "--text", "change things"]);
    let (t, m) = (s(&prompt, "turnId"), s(&prompt, "messageId"));
    b.record(
        &session,
        &t,
        "a.txt",
        Some(b"one\ntwo\nthree\n"),
        b"one\nTWO\nthree\n",
        &[],
    );
    b.record(
        &session,
        &t,
        "new.txt",
        None,
        b"fresh\n",
        &["--tool", "Write"],
    );
    let before = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(before.path(), b"kept\n").expect("write");
    std::fs::remove_file(b.path("gone.txt")).expect("rm");
    let before = before.path().to_str().expect("utf8");
    b.ok(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "gone.txt",
        "--before-file",
        before,
        "--deleted",
    ]);
    b.ok(&["turn-end", &session, "--turn", &t]);
    (session, m)
}

/// The text output of a successful run.
fn text(b: &Bench, args: &[&str]) -> String {
    let out = b.text(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

fn file<'a>(doc: &'a Value, path: &str) -> &'a Value {
    doc["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} not in {doc}"))
}

/// `(kind, text)` of every line of some hunks.
fn lines(hunks: &Value) -> Vec<(String, String)> {
    hunks
        .as_array()
        .expect("hunks")
        .iter()
        .flat_map(|h| h["lines"].as_array().expect("lines"))
        .map(|l| (s(l, "kind"), s(l, "text")))
        .collect()
}

fn line(kind: &str, text: &str) -> (String, String) {
    (kind.to_owned(), text.to_owned())
}

#[test]
fn the_diff_is_git_style_for_a_restore_a_create_and_a_delete() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    let out = text(&b, &["diff", &session, "--since", &m, "--color", "never"]);
    for expected in [
        "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+two\n three\n",
        // The agent deleted gone.txt: the rewind creates it.
        "--- /dev/null\n+++ b/gone.txt\n@@ -0,0 +1 @@\n+kept\n",
        // The agent created new.txt: the rewind deletes it.
        "--- a/new.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-fresh",
    ] {
        assert!(out.contains(expected), "{expected:?} not in\n{out}");
    }
    assert!(!out.contains("CONFLICT"), "{out}");
}

#[test]
fn stat_counts_lines_per_file_with_plurals() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    let out = text(&b, &["diff", &session, "--since", &m, "--stat"]);
    assert!(out.contains(" a.txt    | 2 +-\n"), "{out}");
    assert!(out.contains(" gone.txt | 1 +\n"), "{out}");
    assert!(out.contains(" new.txt  | 1 -\n"), "{out}");
    assert!(
        out.contains("3 files; the rewind adds 2 lines and removes 2 lines"),
        "{out}"
    );
    assert!(!out.contains("@@"), "a stat has no hunks: {out}");
    let one = text(
        &b,
        &["diff", &session, "--since", &m, "--stat", "--path", "a.txt"],
    );
    assert!(
        one.contains("1 file; the rewind adds 1 line and removes 1 line"),
        "{one}"
    );
}

#[test]
fn preview_and_diff_give_one_count_of_what_the_rewind_writes() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    let diff = b.ok(&["diff", &session, "--since", &m]);
    let preview = b.ok(&["preview", &session, "--since", &m]);
    for field in ["additions", "deletions"] {
        assert_eq!(preview["stats"][field], diff["stats"][field], "{field}");
    }
    let a = preview["safeFiles"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["path"] == "a.txt"))
        .expect("a.txt in the preview");
    assert_eq!(
        (a["additions"].clone(), a["deletions"].clone()),
        (1.into(), 1.into())
    );
    let said = "3 files; the rewind adds 2 lines and removes 2 lines";
    let text_of = |cmd: &str| text(&b, &[cmd, &session, "--since", &m]);
    assert!(text_of("preview").contains(said), "{}", text_of("preview"));
    let stat = text(&b, &["diff", &session, "--since", &m, "--stat"]);
    assert!(stat.contains(said), "{stat}");
}

#[test]
fn json_has_the_hunks_and_totals() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    let doc = b.ok(&["diff", &session, "--since", &m]);
    assert_eq!(doc["sessionId"], session.as_str());
    let a = file(&doc, "a.txt");
    assert_eq!(a["action"], "restore");
    assert_eq!(a["safe"], true);
    assert_eq!(
        (a["additions"].clone(), a["deletions"].clone()),
        (1.into(), 1.into())
    );
    let h = &a["hunks"][0];
    assert_eq!(
        (h["oldStart"].clone(), h["oldLines"].clone()),
        (1.into(), 3.into())
    );
    assert_eq!(
        lines(&a["hunks"]),
        [
            line("context", "one"),
            line("removed", "TWO"),
            line("added", "two"),
            line("context", "three")
        ]
    );
    assert_eq!(file(&doc, "gone.txt")["action"], "create");
    assert_eq!(file(&doc, "new.txt")["action"], "delete");
    assert_eq!(doc["stats"]["files"], 3);
    assert_eq!(doc["stats"]["additions"], 2);
    assert_eq!(doc["stats"]["deletions"], 2);
    assert!(a.get("personChange").is_none(), "{a}");
}

#[test]
fn a_later_edit_shows_the_persons_change_next_to_the_agents() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    b.write("a.txt", b"one\nTWO\nthree\nmine\n");
    let out = text(&b, &["diff", &session, "--since", &m, "--color", "never"]);
    assert!(
        out.contains("CONFLICT a.txt: modified after the agent (mergeable)"),
        "{out}"
    );
    let yours = out.find("your change since the agent:").expect("yours");
    let agents = out
        .find("the agent's change being undone:")
        .expect("agent's");
    assert!(yours < agents, "{out}");
    assert!(out[yours..agents].contains("\n+mine\n"), "{out}");
    assert!(out[agents..].contains("\n-two\n+TWO\n"), "{out}");
    assert!(out.contains("--policy merge would write:"), "{out}");

    let doc = b.ok(&["diff", &session, "--since", &m]);
    let a = file(&doc, "a.txt");
    assert_eq!(a["safe"], false);
    assert_eq!(a["reason"], "external_modified");
    assert_eq!(a["mergeable"], true);
    assert!(lines(&a["personChange"]).contains(&line("added", "mine")));
    assert!(lines(&a["agentChange"]).contains(&line("added", "TWO")));
    assert!(!lines(&a["mergeHunks"]).contains(&line("removed", "mine")));
    let stat = text(&b, &["diff", &session, "--since", &m, "--stat"]);
    assert!(stat.contains(" a.txt    | 3 +-- (conflict)"), "{stat}");
}

#[test]
fn binary_and_large_files_are_named_not_dumped() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let prompt = b.ok(&["prompt", &session, "--text", "generate"]);
    let (t, m) = (s(&prompt, "turnId"), s(&prompt, "messageId"));
    b.record(&session, &t, "img.png", None, b"\x89PNG\r\n\x1a\n\0\0", &[]);
    // Over the 1 MiB patch limit, under the recording limit.
    let big = "a line of generated text\n".repeat(50_000);
    b.record(&session, &t, "big.txt", None, big.as_bytes(), &[]);
    b.record(&session, &t, "small.txt", None, b"x\n", &[]);

    let out = text(&b, &["diff", &session, "--since", &m, "--color", "never"]);
    assert!(out.contains("Binary file img.png differs\n"), "{out}");
    assert!(out.contains("big.txt: large file, not shown\n"), "{out}");
    assert!(
        !out.contains("a line of generated text"),
        "dumped: {out:.500}"
    );
    assert!(!out.contains("PNG"), "{out}");
    assert!(out.contains("-x"), "{out}");

    let doc = b.ok(&["diff", &session, "--since", &m]);
    assert_eq!(file(&doc, "img.png")["binary"], true);
    assert_eq!(file(&doc, "big.txt")["large"], true);
    assert_eq!(file(&doc, "big.txt")["hunks"], serde_json::json!([]));
    assert_eq!(doc["stats"]["deletions"], 1, "only small.txt is counted");
    let stat = text(&b, &["diff", &session, "--since", &m, "--stat"]);
    assert!(stat.contains(" img.png   | Bin\n"), "{stat}");
    assert!(stat.contains(" big.txt   | large, not counted\n"), "{stat}");
}

#[test]
fn colour_follows_the_color_flag() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    b.write("a.txt", b"one\nTWO\nthree\nmine\n");
    let run = |extra: &[&str]| {
        let mut c = b.command();
        c.args(["diff", &session, "--since", &m])
            .args(extra)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        String::from_utf8(c.output().expect("run").stdout).expect("utf8")
    };
    let always = run(&["--color", "always"]);
    assert!(
        always.contains("\x1b[32m+two"),
        "added lines are green: {always:?}"
    );
    assert!(
        always.contains("\x1b[31m-TWO"),
        "removed lines are red: {always:?}"
    );
    assert!(always.contains("CONFLICT"), "{always}");
    for plain in [run(&["--color", "never"]), run(&[])] {
        assert!(!plain.contains('\x1b'), "{plain:?}");
        assert!(plain.contains("+two"), "{plain}");
    }
    assert_eq!(
        strip_ansi(&always),
        run(&["--color", "never"]),
        "colour changes nothing else"
    );
}

/// `text` without its SGR escapes.
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail.find('m').expect("an SGR escape ends with m");
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn preview_patch_adds_the_diff() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    let plain = text(&b, &["preview", &session, "--since", &m]);
    let out = text(&b, &["preview", &session, "--since", &m, "-p"]);
    assert!(
        out.starts_with(&plain),
        "the preview text comes first:\n{out}"
    );
    assert!(out.contains("+++ b/a.txt\n@@ -1,3 +1,3 @@"), "{out}");
    assert!(!plain.contains("@@"), "{plain}");

    let preview = b.ok(&["preview", &session, "--since", &m]);
    let mut with = b.ok(&["preview", &session, "--since", &m, "--patch"]);
    let diff = with
        .as_object_mut()
        .expect("object")
        .remove("diff")
        .expect("a diff key");
    assert_eq!(with, preview, "the preview's fields are unchanged");
    assert_eq!(diff, b.ok(&["diff", &session, "--since", &m]));
}

#[test]
fn diff_writes_nothing() {
    let b = Bench::new();
    let (session, m) = turn(&b);
    b.write("a.txt", b"one\nTWO\nthree\nmine\n");
    let files = |b: &Bench| ["a.txt", "new.txt", "gone.txt"].map(|p| b.read(p));
    let db = b.path(".rewind/rewind.db");
    let (before, db_before) = (files(&b), std::fs::read(&db).expect("db"));
    let ops = b.ok(&["ops", &session]);
    let checkpoints = b.ok(&["checkpoints", &session]);
    text(&b, &["diff", &session, "--since", &m]);
    b.ok(&["diff", &session, "--since", &m]);
    text(&b, &["preview", &session, "--since", &m, "-p"]);
    assert_eq!(files(&b), before);
    assert_eq!(
        std::fs::read(&db).expect("db"),
        db_before,
        "the database is untouched"
    );
    assert_eq!(b.ok(&["ops", &session]), ops);
    assert_eq!(b.ok(&["checkpoints", &session]), checkpoints);
}

#[test]
fn a_diff_needs_one_target() {
    let b = Bench::new();
    let (session, _) = turn(&b);
    assert_eq!(b.text(&["diff", &session]).status.code(), Some(2));
    let (code, doc) = b.json(&["diff", &session, "--since", "msg_doesnotexist"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"]["code"], "not_found");
}
