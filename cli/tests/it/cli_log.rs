//! `rewind log` as git's: `-n N` (the latest N turns), `--stat` and `-p` (each turn's own
//! changes, counted and drawn as `rewind show` does), snapshotted with colour off and on (the
//! clock fixed, ids named in the order they were made, as in `cli_snapshots`); and a log that
//! streams: a checkpoint recorded for an old turn pages later still shows under its prompt, and
//! `rewind log | head -1` on a long session ends at once, quietly.

#![cfg(unix)]

use crate::common;

use common::serve::StdioServer;
use common::{Bench, s};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// 2026-11-30 09:00:00 UTC: the session is recorded from here, a minute per step.
const T0: i64 = 1_796_029_200_000;

/// A tool's change: the path, its bytes before (`None`: created) and after.
type Change<'a> = (&'a str, Option<&'a [u8]>, &'a [u8]);

struct Fixture {
    b: Bench,
    session: String,
    /// (full id, name) in the order they were made.
    names: Vec<(String, String)>,
    step: i64,
}

impl Fixture {
    /// `rewind --json ARGS` at the next minute; learn the ids it returns.
    fn rec(&mut self, args: &[&str]) -> Value {
        self.step += 1;
        let now = (T0 + self.step * 60_000).to_string();
        let (code, doc) = self.b.json_with(args, |c| {
            c.env("REWIND_TEST_NOW_MS", &now);
        });
        assert_eq!(code, 0, "{args:?}: {doc}");
        self.learn(&doc);
        doc
    }

    fn learn(&mut self, doc: &Value) {
        match doc {
            Value::String(v) => {
                let Some((kind, rest)) = v.split_once('_') else {
                    return;
                };
                if ["ses", "msg", "trn", "ckp"].contains(&kind)
                    && rest.len() == 32
                    && !self.names.iter().any(|(id, _)| id == v)
                {
                    let n = self.names.iter().filter(|(id, _)| id.starts_with(kind));
                    let name = format!("{kind}_{}", n.count() + 1);
                    self.names.push((v.clone(), name));
                }
            }
            Value::Array(a) => a.iter().for_each(|v| self.learn(v)),
            Value::Object(o) => o.values().for_each(|v| self.learn(v)),
            _ => {}
        }
    }

    /// A tool's change of `path` in turn `t`, recorded.
    fn edit(&mut self, t: &str, path: &str, before: Option<&[u8]>, after: &[u8]) {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        let bp = file.path().display().to_string();
        let session = self.session.clone();
        let mut args = vec!["edit", session.as_str(), "--turn", t, "--path", path];
        match before {
            Some(b) => {
                std::fs::write(file.path(), b).expect("before");
                args.extend(["--before-file", bp.as_str()]);
            }
            None => args.push("--created"),
        }
        self.b.write(path, after);
        self.rec(&args);
    }

    /// A turn: its prompt, the edits, a reply, its end.
    fn turn(&mut self, prompt: &str, edits: &[Change<'_>], reply: &str) {
        let session = self.session.clone();
        let t = s(&self.rec(&["prompt", &session, "--text", prompt]), "turnId");
        for (path, before, after) in edits {
            self.edit(&t, path, *before, after);
        }
        self.rec(&["reply", &session, "--turn", &t, "--text", reply]);
        self.rec(&["turn-end", &session, "--turn", &t]);
    }

    /// The text of `rewind ARGS`, "now" three hours after the recording, ids named.
    fn show(&self, args: &[&str]) -> String {
        let out = self
            .b
            .command()
            .env("REWIND_TEST_NOW_MS", (T0 + 3 * 3_600_000).to_string())
            .env("TZ", "UTC")
            .env_remove("NO_COLOR")
            .args(args)
            .output()
            .expect("run");
        let mut t = format!("exit {}\n", out.status.code().unwrap_or(-1));
        t.push_str(&String::from_utf8(out.stdout).expect("utf-8"));
        t.push_str(&String::from_utf8(out.stderr).expect("utf-8"));
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

/// Three turns: a modified and a created file, a deletion, an edit of the first file again.
fn fixture() -> Fixture {
    let b = Bench::new();
    b.write("src/lib.rs", b"fn parse() {\n    todo!()\n}\n");
    b.write("old.txt", b"obsolete\n");
    let mut f = Fixture {
        b,
        session: String::new(),
        names: Vec::new(),
        step: 0,
    };
    f.session = s(&f.rec(&["session", "new", "--title", "parser"]), "id");
    let (v0, v1): (&[u8], &[u8]) = (
        b"fn parse() {\n    todo!()\n}\n",
        b"fn parse() {\n    tokens().collect()\n}\n",
    );
    f.turn(
        "Implement the parser",
        &[
            ("src/lib.rs", Some(v0), v1),
            ("tests/parse.rs", None, b"#[test]\nfn parses() {}\n"),
        ],
        "Implemented parse() and a test.",
    );
    std::fs::remove_file(f.b.path("old.txt")).expect("rm");
    let session = f.session.clone();
    let t2 = s(
        &f.rec(&["prompt", &session, "--text", "Remove the notes"]),
        "turnId",
    );
    let before = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(before.path(), b"obsolete\n").expect("before");
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
    let v2: &[u8] = b"/// Parses tokens.\nfn parse() {\n    tokens().collect()\n}\n";
    f.turn(
        "Document the parser",
        &[("src/lib.rs", Some(v1), v2)],
        "Added a doc comment.",
    );
    f
}

#[test]
fn log_stat_patch_and_max_count_read_well_with_and_without_colour() {
    let f = fixture();
    for (name, args) in [
        ("log_stat", vec!["log", "--stat"]),
        ("log_patch", vec!["log", "-p"]),
        ("log_latest_two", vec!["log", "-n", "2", "--stat"]),
        (
            "log_latest_one_patch",
            vec!["log", "--max-count", "1", "--patch", "--stat"],
        ),
    ] {
        let mut never = vec!["--color", "never"];
        never.extend(args.iter().copied());
        insta::assert_snapshot!(name, f.show(&never));
    }
    for (name, args) in [
        ("log_stat_color", vec!["log", "--stat"]),
        ("log_patch_color", vec!["log", "-p"]),
    ] {
        let mut always = vec!["--color", "always"];
        always.extend(args.iter().copied());
        let coloured = f.show(&always);
        assert!(coloured.contains("\x1b["), "{name}: no colour");
        insta::assert_snapshot!(name, coloured);
    }
    // Without a flag the log is as it was; `-n` larger than the session is the whole log.
    assert_eq!(f.show(&["log", "-n", "9"]), f.show(&["log"]));
    assert!(
        f.show(&["log", "-n", "0"])
            .ends_with("3 turns (the latest 0 shown)\n")
    );
}

#[test]
fn log_json_gives_each_turn_the_diff_show_gives_it() {
    let f = fixture();
    let patch = f.b.ok(&["log", "-p"]);
    let stat = f.b.ok(&["log", "--stat"]);
    let prompts = |doc: &Value| -> Vec<Value> {
        let all = doc["messages"].as_array().expect("messages").clone();
        all.into_iter()
            .filter(|m| m["turnNumber"].is_u64())
            .collect()
    };
    let (patched, counted) = (prompts(&patch), prompts(&stat));
    assert_eq!(patched.len(), 3, "{patch}");
    for (n, (p, c)) in patched.iter().zip(&counted).enumerate() {
        let show = f.b.ok(&["show", &format!("#{}", n + 1)]);
        assert_eq!(p["diff"], show["diff"], "#{}: the same diff as show", n + 1);
        assert_eq!(c["diff"]["stats"], show["diff"]["stats"]);
        for file in c["diff"]["files"].as_array().expect("files") {
            assert_eq!(file["hunks"], json!([]), "--stat alone has no hunks");
        }
    }
    // Replies carry no diff, and a plain log none at all.
    assert!(patch["messages"][1].get("diff").is_none(), "{patch}");
    let plain = f.b.ok(&["log"]);
    assert!(
        plain["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .all(|m| m.get("diff").is_none())
    );
    // The latest turn only, numbered as in the whole log.
    let last = f.b.ok(&["log", "-n", "1"]);
    let msgs = last["messages"].as_array().expect("messages");
    assert_eq!(msgs.len(), 2, "{last}");
    assert_eq!(msgs[0]["turnNumber"], 3);
    assert_eq!(msgs[0]["checkpoints"][0]["files"][0]["path"], "src/lib.rs");
}

/// A session of `turns` turns of a prompt and a reply through one `rewind serve` (one process
/// for them all); turn 1's tool records an edit after the last prompt. Its id and turn 1's.
fn long_session(b: &Bench, turns: usize) -> (String, Value) {
    let mut srv = StdioServer::start(b.ws(), &[]);
    let id = srv.ok("createSession", json!([{ "title": "long" }]))["id"].clone();
    let first = srv.ok("recordPrompt", json!([id, { "text": "turn 1" }]));
    for n in 2..=turns {
        let p = srv.ok("recordPrompt", json!([id, { "text": format!("turn {n}") }]));
        let reply = json!([id, { "turnId": p["turnId"], "text": format!("reply {n}") }]);
        srv.ok("recordReply", reply);
    }
    std::fs::write(b.path("late.txt"), b"late\n").expect("write");
    let edit = json!({ "turnId": first["turnId"], "path": "late.txt", "toolName": "Write",
                       "before": null, "after": { "base64": "bGF0ZQo=" } });
    srv.ok("recordEdit", json!([id, edit]));
    assert_eq!(srv.finish(), 0);
    (id.as_str().expect("id").to_owned(), first)
}

#[test]
fn a_long_log_streams_and_a_reader_that_goes_away_ends_it_quietly() {
    let b = Bench::new();
    const TURNS: usize = 1500;
    let (session, first) = long_session(&b, TURNS);
    // The late checkpoint lies pages after its prompt, and still shows under it.
    let doc = b.ok(&["log", &session]);
    let msgs = doc["messages"].as_array().expect("messages");
    assert_eq!(msgs.len(), 2 * TURNS - 1);
    assert_eq!(msgs[0]["id"], first["messageId"]);
    assert_eq!(
        msgs[0]["checkpoints"][0]["files"][0]["path"], "late.txt",
        "{}",
        msgs[0]
    );
    assert_eq!(msgs.last().expect("last")["text"], format!("reply {TURNS}"));
    let text = b.text(&["--color", "never", "log", &session]);
    let text = String::from_utf8(text.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[1].contains("turn 1") && lines[2].ends_with("Write late.txt"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + 2 * TURNS);

    let started = Instant::now();
    let whole = b.text(&["log", &session]);
    let whole_took = started.elapsed();
    assert!(whole.status.success());
    // `rewind log | head -1`: the first line comes before the rest is read, and when the
    // reader goes away the log ends, exit 0, nothing said.
    let started = Instant::now();
    let mut child = b
        .command()
        .args(["log", &session])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first_line = String::new();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    out.read_line(&mut first_line).expect("read");
    let first_at = started.elapsed();
    drop(out);
    let status = child.wait().expect("wait");
    let took = started.elapsed();
    assert!(first_line.starts_with("session "), "{first_line}");
    assert_eq!(status.code(), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert_eq!(err, "");
    // The header is written before the first page is read: it comes well before a whole log
    // could have been made (a log that printed at the end would give it at `whole_took`).
    eprintln!("first line after {first_at:?}, exit after {took:?}, whole log {whole_took:?}");
    assert!(
        first_at * 2 < whole_took,
        "the first line came after {first_at:?}; the whole log takes {whole_took:?}"
    );
    assert!(took < whole_took + Duration::from_secs(2), "{took:?}");
}
