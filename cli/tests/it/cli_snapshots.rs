//! The human output of every command on one fixed session, compared byte for byte with the
//! snapshots in `tests/snapshots/` (colour off, and on for the commands that colour). The clock
//! is fixed (`REWIND_TEST_NOW_MS`, test builds only) and ids are replaced by names in the order
//! they were made (`ses_A`, `msg_1`, …), so nothing in a snapshot depends on the run.
//! To accept a deliberate change: `INSTA_UPDATE=always cargo test -p rewind-cli --test
//! cli_snapshots`, then review the diff of the `.snap` files.

use crate::common;

use common::{Bench, s};
use std::process::Command;

/// 2026-11-30 09:00:00 UTC: the session is recorded from here, a minute per step.
const T0: i64 = 1_796_029_200_000;

struct Fixture {
    b: Bench,
    /// (full id, name) in the order they were made.
    names: Vec<(String, String)>,
    step: i64,
}

impl Fixture {
    fn at(&mut self) -> String {
        self.step += 1;
        (T0 + self.step * 60_000).to_string()
    }

    /// Run with `--json` at the next minute; name every id it returns.
    fn rec(&mut self, args: &[&str]) -> serde_json::Value {
        let now = self.at();
        let (code, doc) = self.b.json_with(args, |c| {
            c.env("REWIND_TEST_NOW_MS", &now);
        });
        assert_eq!(code, 0, "{args:?}: {doc}");
        self.learn(&doc);
        doc
    }

    fn learn(&mut self, doc: &serde_json::Value) {
        match doc {
            serde_json::Value::String(v) => {
                let Some((kind, rest)) = v.split_once('_') else {
                    return;
                };
                let known = ["ses", "msg", "trn", "ckp", "op", "jnl"];
                if known.contains(&kind)
                    && rest.len() == 32
                    && !self.names.iter().any(|(id, _)| id == v)
                {
                    let n = self
                        .names
                        .iter()
                        .filter(|(id, _)| id.starts_with(kind))
                        .count();
                    let name = if kind == "ses" {
                        format!("ses_{}", char::from(b'A' + u8::try_from(n).expect("few")))
                    } else {
                        format!("{kind}_{}", n + 1)
                    };
                    self.names.push((v.clone(), name));
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| self.learn(v)),
            serde_json::Value::Object(o) => o.values().for_each(|v| self.learn(v)),
            _ => {}
        }
    }

    /// The text of a command, "now" three hours after the recording, ids named.
    fn show(&self, args: &[&str]) -> String {
        let now = (T0 + 3 * 3_600_000).to_string();
        let out = self
            .command()
            .env("REWIND_TEST_NOW_MS", now)
            .args(args)
            .output()
            .expect("run");
        let mut text = String::from_utf8(out.stdout).expect("utf8");
        text.push_str(&String::from_utf8(out.stderr).expect("utf8"));
        self.name(&format!("exit {}\n{text}", out.status.code().unwrap_or(-1)))
    }

    fn command(&self) -> Command {
        let mut c = self.b.command();
        // HOME is the workspace: `status` counts doctor's problems in no real agent's settings.
        c.env("TZ", "UTC")
            .env("HOME", self.b.ws())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        c
    }

    fn name(&self, text: &str) -> String {
        let mut t = text.replace(&self.b.ws().display().to_string(), "[WS]");
        for (id, name) in &self.names {
            t = t.replace(id.as_str(), name);
        }
        for (id, name) in &self.names {
            let (kind, rest) = id.split_once('_').expect("prefixed");
            t = t.replace(&format!("{kind}_{}", &rest[..8]), name);
        }
        t
    }
}

/// A session of three turns: a created and a modified file, a deletion, a shell-like bulk
/// change; then the person edits a file the agent wrote.
fn fixture() -> Fixture {
    let mut f = Fixture {
        b: Bench::new(),
        names: Vec::new(),
        step: 0,
    };
    let session = s(&f.rec(&["session", "new", "--title", "parser fixes"]), "id");
    f.b.write("src/lib.rs", b"fn parse() {\n    todo!()\n}\n");
    f.b.write("old.txt", b"obsolete\n");
    let turn = |f: &mut Fixture, text: &str| {
        let t = f.rec(&["prompt", &session, "--text", text]);
        s(&t, "turnId")
    };
    let record = |f: &mut Fixture, t: &str, path: &str, before: Option<&[u8]>, after: &[u8]| {
        let before_file = ordinary_temp_file();
        let mut args = vec!["edit", session.as_str(), "--turn", t, "--path", path];
        let bp = before_file.path().display().to_string();
        match before {
            Some(b) => {
                std::fs::write(before_file.path(), b).expect("before");
                args.extend(["--before-file", bp.as_str()]);
            }
            None => args.push("--created"),
        }
        f.b.write(path, after);
        f.rec(&args);
    };
    let t1 = turn(&mut f, "Implement the parser\nwith a test");
    record(
        &mut f,
        &t1,
        "src/lib.rs",
        Some(b"fn parse() {\n    todo!()\n}\n"),
        b"fn parse() {\n    tokens().collect()\n}\n",
    );
    record(
        &mut f,
        &t1,
        "tests/parse.rs",
        None,
        b"#[test]\nfn parses() {}\n",
    );
    f.rec(&[
        "reply",
        &session,
        "--turn",
        &t1,
        "--text",
        "Implemented parse() and a test.",
    ]);
    f.rec(&["turn-end", &session, "--turn", &t1]);

    let t2 = turn(&mut f, "Remove the obsolete notes");
    let before = ordinary_temp_file();
    std::fs::write(before.path(), b"obsolete\n").expect("before");
    std::fs::remove_file(f.b.path("old.txt")).expect("rm");
    let bp = before.path().display().to_string();
    f.rec(&[
        "edit",
        &session,
        "--turn",
        &t2,
        "--path",
        "old.txt",
        "--before-file",
        &bp,
        "--deleted",
    ]);
    f.rec(&[
        "reply",
        &session,
        "--turn",
        &t2,
        "--text",
        "Deleted old.txt.",
    ]);
    f.rec(&["turn-end", &session, "--turn", &t2]);

    let t3 = turn(&mut f, "Document the parser");
    record(
        &mut f,
        &t3,
        "src/lib.rs",
        Some(b"fn parse() {\n    tokens().collect()\n}\n"),
        b"/// Parses tokens.\nfn parse() {\n    tokens().collect()\n}\n",
    );
    f.rec(&[
        "reply",
        &session,
        "--turn",
        &t3,
        "--text",
        "Added a doc comment.",
    ]);
    f.rec(&["turn-end", &session, "--turn", &t3]);
    // The person's own edit after the agent.
    f.b.write(
        "src/lib.rs",
        b"/// Parses tokens.\nfn parse() {\n    tokens().collect()\n}\n\nfn mine() {}\n",
    );
    f
}

#[test]
fn every_command_reads_well_without_colour() {
    let mut f = fixture();
    for (name, args) in [
        ("session_list", vec!["session", "list"]),
        ("log", vec!["log"]),
        ("checkpoints", vec!["checkpoints"]),
        ("resume", vec!["resume"]),
        ("preview_conflict", vec!["preview", "--since", "#1"]),
        ("preview_patch", vec!["preview", "--turn", "@", "-p"]),
        ("diff", vec!["diff", "--since", "#1"]),
        ("diff_stat", vec!["diff", "--since", "#1", "--stat"]),
        ("apply_blocked", vec!["apply", "--since", "#1"]),
        ("stats", vec!["stats"]),
        ("status", vec!["status"]),
        ("status_short", vec!["status", "--short"]),
        ("show", vec!["show", "#1"]),
        ("show_stat", vec!["show", "@-1", "--stat"]),
        ("ambiguous_unknown", vec!["log", "ffffffff"]),
    ] {
        let mut full = vec!["--color", "never"];
        full.extend(args);
        insta::assert_snapshot!(name, f.show(&full));
    }
    // A rewind, its undo, and the log of both.
    let apply = f.show(&[
        "--color", "never", "apply", "--since", "#1", "--policy", "merge",
    ]);
    f.learn(&f.b.ok(&["ops"]));
    insta::assert_snapshot!("apply_merge", f.name(&apply));
    let undo = f.show(&["--color", "never", "undo"]);
    f.learn(&f.b.ok(&["ops"]));
    insta::assert_snapshot!("undo", f.name(&undo));
    insta::assert_snapshot!("ops", f.show(&["--color", "never", "ops"]));
    insta::assert_snapshot!(
        "ops_absolute",
        f.show(&["--color", "never", "ops", "--absolute"])
    );
}

#[test]
fn colour_marks_ids_changes_and_conflicts_on_request_and_never_in_a_pipe() {
    let f = fixture();
    for (name, args) in [
        ("log_color", vec!["log"]),
        ("preview_color", vec!["preview", "--since", "#1"]),
        ("diff_color", vec!["diff", "--since", "#1"]),
        ("status_color", vec!["status"]),
        ("show_color", vec!["show", "#1"]),
        ("session_list_color", vec!["session", "list"]),
    ] {
        let mut always = vec!["--color", "always"];
        always.extend(args.iter().copied());
        let coloured = f.show(&always);
        assert!(
            coloured.contains("\x1b["),
            "{name}: no colour with --color always"
        );
        insta::assert_snapshot!(name, coloured);
        // Through a pipe (the test's) auto means none; NO_COLOR beats always-on terminals.
        let plain = f.show(&args);
        assert!(!plain.contains('\x1b'), "{name}: colour in a pipe");
        let mut never = vec!["--color", "never"];
        never.extend(args.iter().copied());
        assert_eq!(plain, f.show(&never));
    }
    let out = f
        .command()
        .env("NO_COLOR", "1")
        .args(["log"])
        .output()
        .expect("run");
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\x1b'));
}

/// `show` and learn the ids the command made, so later snapshots name them.
fn step(f: &mut Fixture, name: &str, args: &[&str]) {
    let mut full = vec!["--color", "never"];
    full.extend(args);
    let text = f.show(&full);
    // The ids it made are in its JSON twin's store now: learn them from the log and ops.
    f.learn(&f.b.ok(&["log", "--all"]));
    f.learn(&f.b.ok(&["ops"]));
    f.learn(&f.b.ok(&["session", "list"]));
    insta::assert_snapshot!(name, f.name(&text));
}

#[test]
fn recording_and_rewinding_commands_read_well() {
    let mut f = fixture();
    step(
        &mut f,
        "prompt",
        &["prompt", "--text", "Add error handling"],
    );
    f.b.write("src/err.rs", b"pub enum Error {}\n");
    step(
        &mut f,
        "edit",
        &["edit", "--turn", "@", "--path", "src/err.rs", "--created"],
    );
    step(
        &mut f,
        "notice",
        &["notice", "--text", "tests are slow today"],
    );
    step(
        &mut f,
        "reply",
        &["reply", "--turn", "@", "--text", "Added an Error type."],
    );
    step(&mut f, "turn_end", &["turn-end", "--turn", "@"]);
    step(
        &mut f,
        "compaction",
        &["compaction", "--summary", "The parser is done."],
    );
    step(&mut f, "retry", &["retry"]);
    step(
        &mut f,
        "edit_prompt",
        &["edit-prompt", "--text", "Add error handling, please"],
    );
    step(
        &mut f,
        "failed_capture",
        &[
            "failed-capture",
            "--turn",
            "@",
            "--path",
            "huge.bin",
            "--reason",
            "too_large",
        ],
    );
    step(&mut f, "conversation", &["conversation", "--to", "#3"]);
    step(&mut f, "log_after_rewind", &["log"]);
    step(
        &mut f,
        "fork",
        &["fork", "--at", "#2", "--command-id", "fork-1"],
    );
    step(
        &mut f,
        "fork_replayed",
        &["fork", "--at", "#2", "--command-id", "fork-1"],
    );
    step(&mut f, "side_chat", &["side-chat"]);
    step(&mut f, "gc_dry_run", &["gc", "--dry-run"]);
    step(&mut f, "recover", &["recover"]);
    step(&mut f, "log_all", &["log", "--all"]);
    step(&mut f, "undo_conversation", &["undo"]);
    step(&mut f, "ops_after_undo_conversation", &["ops"]);
}

#[test]
fn both_undo_and_redo_read_well() {
    let mut f = fixture();
    step(&mut f, "both_blocked", &["both", "--to", "#2"]);
    step(
        &mut f,
        "both_merge",
        &["both", "--to", "#2", "--policy", "merge"],
    );
    step(&mut f, "undo_latest", &["undo"]);
    step(&mut f, "redo", &["redo"]);
    step(&mut f, "undo_nothing_to_redo", &["redo"]);
    step(&mut f, "undo_again", &["undo"]);
    step(&mut f, "ops_after_redo", &["ops"]);
}

/// A temp file for `--before-file` with the 0644 of the files it stands for (`rewind edit` records
/// its mode; a temp file is made 0600).
fn ordinary_temp_file() -> tempfile::NamedTempFile {
    use std::os::unix::fs::PermissionsExt as _;
    let f = tempfile::NamedTempFile::new().expect("temp");
    std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(0o644)).expect("chmod");
    f
}
