//! `rewind import`: real agent records (kept with their agent version in
//! fixtures/import/<agent>-<version>/, made by tests/agents/import_fixture.py from sessions the
//! real agents ran against tests/agents/model_server.py) become a session bound to the agent
//! that rewinds byte for byte; importing twice changes nothing; bad records are a clear error or
//! a diagnostic, and the agent's files are only read.

use crate::common;

use common::{Bench, s};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const CLAUDE: &str = "claude-code-2.1.332";
const CLAUDE_SESSION: &str = "58499a85-d0f7-4a24-ba6c-59279e86e0e3";
const GEMINI: &str = "gemini-cli-0.61.0";
const GEMINI_SESSION: &str = "44cb375e-8209-40cc-842e-8fa87cbafa5e";
const QWEN: &str = "qwen-code-0.24.4";
const QWEN_SESSION: &str = "c4a7fc20-0dd4-4c4b-bab2-6707a8b257ac";

/// A workspace as the agent's session left it, and a home holding the agent's records of it.
struct Case {
    bench: Bench,
    home: tempfile::TempDir,
}

fn munged(p: &Path) -> String {
    let text = p.display().to_string();
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn copy_fixture(from: &Path, to: &Path, ws: &Path) {
    for entry in std::fs::read_dir(from).expect("fixture dir") {
        let entry = entry.expect("entry");
        let name = entry
            .file_name()
            .to_string_lossy()
            .replace("@WSDIR@", &munged(ws));
        let dst = to.join(name);
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&dst).expect("mkdir");
            copy_fixture(&entry.path(), &dst, ws);
        } else {
            let bytes = std::fs::read(entry.path()).expect("read fixture");
            let bytes = match entry.path().extension().and_then(|e| e.to_str()) {
                Some("jsonl" | "json") => String::from_utf8(bytes)
                    .expect("utf-8")
                    .replace("@WS@", &ws.display().to_string())
                    .into_bytes(),
                _ => bytes,
            };
            std::fs::write(dst, bytes).expect("write");
        }
    }
}

impl Case {
    /// `files`: the workspace as the session left it.
    fn new(fixture: &str, files: &[(&str, &[u8])]) -> Self {
        let bench = Bench::new();
        for (p, b) in files {
            bench.write(p, b);
        }
        let home = tempfile::tempdir().expect("home");
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import")
            .join(fixture);
        let ws = std::fs::canonicalize(bench.ws()).expect("canonical");
        copy_fixture(&from, home.path(), &ws);
        Self { bench, home }
    }

    fn import(&self, args: &[&str]) -> (i32, Value) {
        let mut all = vec!["import"];
        all.extend(args);
        self.bench.json_with(&all, |c| {
            c.env("HOME", self.home.path())
                .env_remove("CLAUDE_CONFIG_DIR");
        })
    }

    fn transcript(&self, agent_dir: &str, session: &str) -> PathBuf {
        let ws = std::fs::canonicalize(self.bench.ws()).expect("canonical");
        let dir = self
            .home
            .path()
            .join(agent_dir)
            .join("projects")
            .join(munged(&ws));
        match agent_dir {
            ".qwen" => dir.join("chats").join(format!("{session}.jsonl")),
            _ => dir.join(format!("{session}.jsonl")),
        }
    }

    /// Every file under the home, with its bytes: the agent's records, to see them unchanged.
    fn home_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(d: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            for e in std::fs::read_dir(d)
                .expect("dir")
                .map(|e| e.expect("entry"))
            {
                if e.file_type().expect("type").is_dir() {
                    walk(&e.path(), out);
                } else {
                    out.push((e.path(), std::fs::read(e.path()).expect("read")));
                }
            }
        }
        let mut out = Vec::new();
        walk(self.home.path(), &mut out);
        out.sort();
        out
    }
}

fn claude_case() -> Case {
    Case::new(
        CLAUDE,
        &[
            ("README.md", b"seed\n"),
            ("keep.txt", b"orig\n"),
            ("a.txt", b"two\n"),
            ("b.txt", b"bee\n"),
            ("c.txt", b"sh"),
        ],
    )
}

fn only(doc: &Value) -> &Value {
    let sessions = doc["sessions"].as_array().expect("sessions");
    assert_eq!(sessions.len(), 1, "{doc}");
    &sessions[0]
}

#[test]
fn a_claude_code_session_imports_bound_to_the_agent_and_rewinds_byte_for_byte() {
    let c = claude_case();
    let home_before = c.home_files();
    let doc = c.import(&["claude-code"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    assert_eq!(got["agentSessionId"], CLAUDE_SESSION);
    assert_eq!(got["version"], "2.1.332");
    assert_eq!(
        (got["turns"].as_u64(), got["checkpoints"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(got["failedCaptures"], 0, "{doc}");
    let session = s(got, "sessionId");

    // Bound to the agent's session, the prompt keeping where the agent's history stood.
    let listed = c.bench.ok(&["session", "list"]);
    let row = &listed.as_array().expect("sessions")[0];
    assert_eq!(row["agent"]["sessionId"], CLAUDE_SESSION, "{listed}");
    assert_eq!(row["agent"]["agent"], "claude-code");

    // Twice: nothing changes.
    let log = c.bench.ok(&["log", &session]);
    let again = c.import(&["claude-code", "--session", CLAUDE_SESSION]).1;
    assert_eq!(only(&again)["status"], "already-imported");
    assert_eq!(s(only(&again), "sessionId"), session);
    assert_eq!(c.bench.ok(&["log", &session]), log);

    // Rewind to before turn 2: a.txt as turn 1 wrote it, b.txt gone.
    c.bench.ok(&["apply", &session, "--since", "#2"]);
    assert_eq!(c.bench.read("a.txt").as_deref(), Some(&b"one\n"[..]));
    assert_eq!(c.bench.read("b.txt"), None);
    c.bench.ok(&["undo"]);
    // Before turn 1: a.txt did not exist; the files no tool touched stay.
    c.bench.ok(&["apply", &session, "--since", "#1"]);
    assert_eq!(c.bench.read("a.txt"), None);
    assert_eq!(c.bench.read("keep.txt").as_deref(), Some(&b"orig\n"[..]));
    assert_eq!(
        c.home_files(),
        home_before,
        "the agent's records were only read"
    );
}

#[test]
fn the_prompts_keep_the_agent_point_resuming_needs() {
    let c = claude_case();
    let session = s(only(&c.import(&["claude-code"]).1), "sessionId");
    // The prompts' payloads, as stored (no command shows them).
    let db = rusqlite::Connection::open(c.bench.path(".rewind/rewind.db")).expect("open db");
    let mut q = db
        .prepare("SELECT body FROM messages WHERE session_id = ?1 ORDER BY seq")
        .expect("query");
    let points: Vec<Value> = q
        .query_map([&session], |r| r.get::<_, String>(0))
        .expect("rows")
        .map(|b| serde_json::from_str::<Value>(&b.expect("body")).expect("json"))
        .filter(|m| m["kind"] == "prompt")
        .map(|m| m["payload"]["agentPoint"].clone())
        .collect();
    let transcript = c
        .transcript(".claude", CLAUDE_SESSION)
        .display()
        .to_string();
    assert_eq!(points.len(), 3);
    for p in &points {
        assert_eq!(p["agent"], "claude-code");
        assert_eq!(p["sessionId"], CLAUDE_SESSION);
        assert_eq!(p["transcriptPath"], transcript.as_str());
    }
    // The first prompt has nothing before it; turn 2's follows the entry before it in the
    // agent's transcript.
    assert_eq!(points[0].get("before"), None, "{points:?}");
    assert_eq!(points[1]["before"], "f666d4d5-8241-4773-97ee-824d17fe3028");
}

#[test]
fn a_qwen_code_session_imports_and_rewinds_byte_for_byte() {
    let c = Case::new(
        QWEN,
        &[
            ("README.md", b"seed\n"),
            ("keep.txt", b"orig\n"),
            ("a.txt", b"one\n"),
            ("b.txt", b"bee\n"),
        ],
    );
    let doc = c.import(&["qwen-code", "--all"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    assert_eq!(got["agentSessionId"], QWEN_SESSION);
    assert_eq!(
        (got["turns"].as_u64(), got["checkpoints"].as_u64()),
        (Some(3), Some(2))
    );
    let session = s(got, "sessionId");
    assert_eq!(
        only(&c.import(&["qwen-code"]).1)["status"],
        "already-imported"
    );
    c.bench.ok(&["apply", &session, "--since", "#2"]);
    assert_eq!(c.bench.read("b.txt"), None);
    assert_eq!(c.bench.read("a.txt").as_deref(), Some(&b"one\n"[..]));
    c.bench.ok(&["apply", &session, "--since", "#1"]);
    assert_eq!(c.bench.read("a.txt"), None);
}

#[test]
fn an_import_failing_part_way_writes_nothing_and_the_next_run_imports_it_whole() {
    let c = claude_case();
    // The store refuses the fourth of the import's commits (the session, its first prompt and
    // its first change are staged by then): none of them may be written.
    let mut all = vec!["import", "claude-code"];
    let (code, doc) = c.bench.json_with(&all, |cmd| {
        cmd.env("HOME", c.home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("REWIND_TEST_STAGED_FAIL_AT", "4");
    });
    assert_eq!(code, 3, "{doc}");
    assert_eq!(doc["error"]["code"], "host_error", "{doc}");
    assert_eq!(c.bench.ok(&["session", "list"]), json!([]));
    let dry = c.import(&["claude-code", "--dry-run"]).1;
    assert_eq!(only(&dry)["status"], "would-import", "{dry}");

    all.push("--all");
    let again = c.import(&all[1..]).1;
    let got = only(&again);
    assert_eq!(got["status"], "imported", "{again}");
    assert_eq!(
        (got["turns"].as_u64(), got["checkpoints"].as_u64()),
        (Some(3), Some(3))
    );
    let session = s(got, "sessionId");
    let listed = c.bench.ok(&["session", "list"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    c.bench.ok(&["apply", &session, "--since", "#2"]);
    assert_eq!(c.bench.read("a.txt").as_deref(), Some(&b"one\n"[..]));
    assert_eq!(c.bench.read("b.txt"), None);
}

/// The Qwen Code session with file-history snapshots (hand-made per qwen-spec.md: real headless
/// runs write none), whose turn 2 keeps b.txt's contents only in them.
fn qwen_snapshots_case() -> Case {
    Case::new(
        "qwen-code-0.24.4-snapshots",
        &[
            ("README.md", b"seed\n"),
            ("keep.txt", b"orig\n"),
            ("a.txt", b"one\n"),
            ("b.txt", b"bee\n"),
        ],
    )
}

#[test]
fn qwen_code_file_history_snapshots_make_exact_what_the_chat_does_not_keep() {
    let c = qwen_snapshots_case();
    let doc = c.import(&["qwen-code"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    assert_eq!(
        (got["checkpoints"].as_u64(), got["failedCaptures"].as_u64()),
        (Some(2), Some(0)),
        "{doc}"
    );
    let session = s(got, "sessionId");
    c.bench.ok(&["apply", &session, "--since", "#2"]);
    assert_eq!(c.bench.read("b.txt"), None);
    assert_eq!(c.bench.read("a.txt").as_deref(), Some(&b"one\n"[..]));
}

#[test]
fn a_missing_qwen_code_backup_is_a_failed_capture_with_the_reason() {
    let c = qwen_snapshots_case();
    let dir = c.home.path().join(".qwen/file-history").join(QWEN_SESSION);
    std::fs::remove_file(dir.join("8e4b21f7d09c6a53@v2")).expect("remove the backup");
    let doc = c.import(&["qwen-code"]).1;
    let got = only(&doc);
    assert_eq!(
        (got["checkpoints"].as_u64(), got["failedCaptures"].as_u64()),
        (Some(1), Some(1)),
        "{doc}"
    );
    let session = s(got, "sessionId");
    let log = c.bench.ok(&["log", &session]).to_string();
    assert!(
        log.contains("8e4b21f7d09c6a53@v2 of b.txt is missing"),
        "{log}"
    );
}

#[test]
fn dry_run_writes_nothing() {
    let c = claude_case();
    let doc = c.import(&["claude-code", "--dry-run"]).1;
    assert_eq!(only(&doc)["status"], "would-import", "{doc}");
    assert!(!c.bench.path(".rewind").exists());
}

/// The error code of a failed import, after checking that nothing was made.
fn refused(c: &Case, args: &[&str]) -> String {
    let home_before = c.home_files();
    let (code, doc) = c.import(args);
    assert_ne!(code, 0, "{doc}");
    assert!(!c.bench.path(".rewind").exists(), "{doc}");
    assert_eq!(c.home_files(), home_before);
    doc["error"]["code"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_session_that_does_not_exist_is_not_found() {
    let c = claude_case();
    assert_eq!(
        refused(&c, &["claude-code", "--session", "nope"]),
        "not_found"
    );
    // No records for this workspace at all (another agent's): not found either.
    assert_eq!(refused(&c, &["qwen-code"]), "not_found");
}

#[test]
fn session_and_all_together_are_refused() {
    let c = claude_case();
    let out = c
        .bench
        .command()
        .env("HOME", c.home.path())
        .args([
            "import",
            "claude-code",
            "--all",
            "--session",
            CLAUDE_SESSION,
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    assert!(!c.bench.path(".rewind").exists());
}

#[test]
fn an_unknown_record_version_is_refused_and_reported() {
    let c = claude_case();
    let t = c.transcript(".claude", CLAUDE_SESSION);
    let text = std::fs::read_to_string(&t).expect("read");
    std::fs::write(
        &t,
        text.replace("\"version\":\"2.1.332\"", "\"version\":\"9.0.0\""),
    )
    .expect("write");
    assert_eq!(
        refused(&c, &["claude-code", "--session", CLAUDE_SESSION]),
        "invalid_input"
    );
    let doc = c.import(&["claude-code", "--all"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "not-imported", "{doc}");
    assert!(
        got["diagnostics"][0]
            .as_str()
            .unwrap_or_default()
            .contains("9.0.0"),
        "{doc}"
    );
}

#[test]
fn a_truncated_transcript_imports_what_it_holds_with_a_diagnostic() {
    let c = claude_case();
    let t = c.transcript(".claude", CLAUDE_SESSION);
    let bytes = std::fs::read(&t).expect("read");
    let cut = bytes.len() - 40;
    std::fs::write(&t, &bytes[..cut]).expect("write");
    let doc = c.import(&["claude-code"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    let diagnostics = got["diagnostics"].to_string();
    assert!(diagnostics.contains("not a JSON record"), "{doc}");
    assert_eq!(got["checkpoints"], 3, "{doc}");
}

#[test]
fn a_missing_transcript_is_not_found() {
    let c = claude_case();
    std::fs::remove_file(c.transcript(".claude", CLAUDE_SESSION)).expect("rm");
    assert_eq!(
        refused(&c, &["claude-code", "--session", CLAUDE_SESSION]),
        "not_found"
    );
}

#[test]
fn a_missing_file_history_backup_is_a_diagnostic() {
    let c = claude_case();
    let blob = c
        .home
        .path()
        .join(".claude/file-history")
        .join(CLAUDE_SESSION)
        .join("c3e3f724ad1dabcf@v2");
    std::fs::remove_file(blob).expect("rm");
    let doc = c.import(&["claude-code"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    assert!(
        got["diagnostics"]
            .to_string()
            .contains("backup of a.txt missing"),
        "{doc}"
    );
    // The transcript's own record of the file before the Write still makes the change exact.
    let session = s(got, "sessionId");
    c.bench.ok(&["apply", &session, "--since", "#2"]);
    assert_eq!(c.bench.read("a.txt").as_deref(), Some(&b"one\n"[..]));
}

#[test]
fn a_backup_that_disagrees_with_the_transcript_is_a_failed_capture_not_a_guess() {
    let c = claude_case();
    let blob = c
        .home
        .path()
        .join(".claude/file-history")
        .join(CLAUDE_SESSION)
        .join("c3e3f724ad1dabcf@v2");
    std::fs::write(blob, b"not what the tool saw\n").expect("write");
    let doc = c.import(&["claude-code"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    assert_eq!(
        (got["checkpoints"].as_u64(), got["failedCaptures"].as_u64()),
        (Some(2), Some(1))
    );
    // The rewind reports a.txt instead of restoring either version.
    let session = s(got, "sessionId");
    let preview = c.bench.ok(&["preview", &session, "--since", "#2"]);
    assert!(preview.to_string().contains("a.txt"), "{preview}");
    c.bench.json(&["apply", &session, "--since", "#2"]);
    assert_ne!(
        c.bench.read("a.txt").as_deref(),
        Some(&b"not what the tool saw\n"[..])
    );
}

#[test]
fn a_session_the_hooks_already_recorded_is_not_imported_again() {
    let c = claude_case();
    // The hooks saw the agent's session start: a rewind session bound to it exists.
    let mut start = common::fixture("claude-code", "SessionStart");
    start["cwd"] = json!(std::fs::canonicalize(c.bench.ws()).expect("ws"));
    start["session_id"] = json!(CLAUDE_SESSION);
    let mut hook = std::process::Command::new(env!("CARGO_BIN_EXE_rewind"));
    hook.args(["hook", "claude-code"]);
    common::expect_hook_continues(hook, &start);
    let listed = c.bench.ok(&["session", "list"]);
    let bound = s(&listed.as_array().expect("sessions")[0], "id");
    let doc = c.import(&["claude-code"]).1;
    assert_eq!(only(&doc)["status"], "already-imported", "{doc}");
    assert_eq!(s(only(&doc), "sessionId"), bound);
    assert_eq!(c.bench.ok(&["session", "list"]), listed);
}

#[test]
fn a_gemini_cli_session_spanning_a_resume_imports_and_rewinds_byte_for_byte() {
    let c = Case::new(
        GEMINI,
        &[
            ("README.md", b"seed\n"),
            ("keep.txt", b"kept\n"),
            ("a.txt", b"three\n"),
            ("b.txt", b"bee\n"),
            ("c.txt", b"sh"),
        ],
    );
    let home_before = c.home_files();
    let doc = c.import(&["gemini-cli"]).1;
    let got = only(&doc);
    assert_eq!(got["status"], "imported", "{doc}");
    assert_eq!(got["agentSessionId"], GEMINI_SESSION);
    // Turn 1's tool calls survive Gemini CLI rewriting the list on resume.
    assert_eq!(
        (got["turns"].as_u64(), got["checkpoints"].as_u64()),
        (Some(3), Some(5))
    );
    let session = s(got, "sessionId");
    assert_eq!(
        only(&c.import(&["gemini-cli", "--all"]).1)["status"],
        "already-imported"
    );
    c.bench.ok(&["apply", &session, "--since", "#3"]);
    assert_eq!(c.bench.read("a.txt").as_deref(), Some(&b"two\n"[..]));
    c.bench.ok(&["apply", &session, "--since", "#1"]);
    assert_eq!(c.bench.read("a.txt"), None);
    assert_eq!(c.bench.read("b.txt"), None);
    assert_eq!(c.bench.read("keep.txt").as_deref(), Some(&b"orig\n"[..]));
    assert_eq!(c.home_files(), home_before);
}

#[test]
fn gemini_cli_without_records_for_the_workspace_is_not_found() {
    let c = claude_case();
    assert_eq!(refused(&c, &["gemini-cli"]), "not_found");
}
