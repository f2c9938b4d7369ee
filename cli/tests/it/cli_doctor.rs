//! `rewind doctor` through the binary, with HOME a scratch directory: nothing installed, a
//! healthy install, each kind of problem it can see (a missing binary, an outdated entry, an
//! untrusted Gemini folder), the events it counts, its JSON, and that it writes nothing.
#![cfg(unix)]

use crate::common;

use common::Bench;
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// A workspace and a HOME of its own.
struct Doctor {
    b: Bench,
    home: tempfile::TempDir,
}

impl Doctor {
    fn new() -> Self {
        Self {
            b: Bench::new(),
            home: tempfile::tempdir().expect("home"),
        }
    }

    fn command(&self) -> Command {
        let mut c = self.b.command();
        c.env("HOME", self.home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME");
        c
    }

    fn json(&self, args: &[&str]) -> (i32, Value) {
        let out = self
            .command()
            .arg("--json")
            .args(args)
            .output()
            .expect("run");
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (out.status.code().expect("exit code"), doc)
    }

    fn text(&self, args: &[&str]) -> (i32, String) {
        let out = self.command().args(args).output().expect("run");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        (out.status.code().expect("exit code"), text)
    }

    fn init(&self, agent: &str) {
        let (code, doc) = self.json(&["init", agent]);
        assert_eq!(code, 0, "{doc}");
    }

    /// One hook event through `rewind hook <agent>`.
    fn hook(&self, agent: &str, payload: Value) {
        let mut child = self
            .command()
            .args(["hook", agent])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn hook");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(payload.to_string().as_bytes())
            .expect("payload");
        drop(stdin);
        let out = child.wait_with_output().expect("hook");
        assert_eq!(out.stdout, b"{}\n", "the hook answers {{}}");
    }

    fn claude_event(&self, event: &str, tool: Option<&str>) {
        let mut p = json!({
            "session_id": "s-doctor", "hook_event_name": event,
            "cwd": self.b.ws(), "transcript_path": "",
        });
        if let Some(t) = tool {
            p["tool_name"] = json!(t);
            p["tool_input"] = json!({ "file_path": self.b.path("notes.txt") });
        }
        self.hook("claude-code", p);
    }
}

fn agent<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["agent"] == name)
        .unwrap_or_else(|| panic!("{name} in {doc}"))
}

#[test]
fn with_nothing_installed_every_agent_is_listed_and_all_is_well() {
    let d = Doctor::new();
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 0, "{doc}");
    let agents = doc["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 11);
    assert!(agents.iter().all(|a| a["installed"] == false), "{doc}");
    assert_eq!(doc["problems"], 0);
    let (code, text) = d.text(&["doctor"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("not installed: Claude Code, Gemini CLI"),
        "{text}"
    );
    assert!(text.contains("no problems found"), "{text}");
    assert!(!d.b.path(".rewind").exists(), "doctor made no store");
}

#[test]
fn a_fresh_claude_code_install_is_healthy_and_its_events_are_seen() {
    let d = Doctor::new();
    d.init("claude-code");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 0, "{doc}");
    let claude = agent(&doc, "claude-code");
    assert_eq!(claude["installed"], true);
    assert_eq!(claude["upToDate"], true);
    assert_eq!(claude["problems"], json!([]));
    assert_eq!(claude["events"], json!([]));

    d.claude_event("SessionStart", None);
    d.claude_event("UserPromptSubmit", None);
    d.claude_event("SessionStart", None);
    let (_, doc) = d.json(&["doctor"]);
    let events = agent(&doc, "claude-code")["events"]
        .as_array()
        .expect("events")
        .clone();
    let start = events
        .iter()
        .find(|e| e["event"] == "SessionStart")
        .expect("start");
    assert_eq!(start["count"], 2, "{events:?}");
    assert_eq!(start["host"], "installed");
    assert!(start["lastMs"].as_u64().expect("ms") > 1_600_000_000_000);
    assert_eq!(events[0]["event"], "SessionStart", "newest first");
    let (_, text) = d.text(&["doctor"]);
    assert!(text.contains("Claude Code: installed in"), "{text}");
    assert!(text.contains("last event: SessionStart"), "{text}");
}

/// The settings file, edited.
fn edit(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json");
    f(&mut v);
    std::fs::write(path, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
}

#[test]
fn a_hook_that_runs_a_missing_binary_is_a_problem_with_its_fix() {
    let d = Doctor::new();
    d.init("claude-code");
    let settings = d.b.path(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("settings");
    let exe = env!("CARGO_BIN_EXE_rewind");
    std::fs::write(&settings, text.replace(exe, "/gone/bin/rewind")).expect("write");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let problems = &agent(&doc, "claude-code")["problems"];
    assert_eq!(problems.as_array().expect("problems").len(), 1, "{doc}");
    let what = problems[0]["what"].as_str().expect("what");
    assert!(
        what.contains("/gone/bin/rewind") && what.contains("not there"),
        "{what}"
    );
    assert_eq!(
        problems[0]["fix"],
        "run `rewind init claude-code` to point them at this rewind"
    );
    let (code, text) = d.text(&["doctor"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("  problem: ") && text.contains("    fix: run `rewind init"),
        "{text}"
    );
    assert!(text.contains("1 problem needs you"), "{text}");
    d.init("claude-code");
    assert_eq!(d.json(&["doctor"]).0, 0, "the fix fixes it");
}

#[test]
fn an_outdated_entry_is_a_problem() {
    let d = Doctor::new();
    d.init("claude-code");
    edit(&d.b.path(".claude/settings.json"), |v| {
        v["hooks"].as_object_mut().expect("hooks").remove("Stop");
    });
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let claude = agent(&doc, "claude-code");
    assert_eq!(claude["upToDate"], false);
    let what = claude["problems"][0]["what"].as_str().expect("what");
    assert!(
        what.contains("not what `rewind init claude-code` writes now"),
        "{what}"
    );
}

#[test]
fn disabled_hooks_are_a_problem() {
    let d = Doctor::new();
    d.init("claude-code");
    edit(&d.b.path(".claude/settings.json"), |v| {
        v["disableAllHooks"] = json!(true);
    });
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let what = agent(&doc, "claude-code")["problems"][0]["what"]
        .as_str()
        .expect("what");
    assert!(what.contains("disableAllHooks"), "{what}");
}

#[test]
fn a_gemini_folder_it_does_not_trust_is_a_problem() {
    let d = Doctor::new();
    d.init("gemini-cli");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 0, "no trust file: a note, not a problem: {doc}");
    let rules = d.home.path().join(".gemini/trustedFolders.json");
    std::fs::create_dir_all(rules.parent().expect("dir")).expect("mkdir");
    let ws = std::path::absolute(d.b.ws()).expect("absolute");
    let ws = ws.to_str().expect("utf-8");
    std::fs::write(&rules, json!({ ws: "DO_NOT_TRUST" }).to_string()).expect("rules");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let problem = &agent(&doc, "gemini-cli")["problems"][0];
    assert!(
        problem["what"]
            .as_str()
            .expect("what")
            .contains("does not trust"),
        "{doc}"
    );
    assert!(
        problem["fix"]
            .as_str()
            .expect("fix")
            .contains("trust the folder")
    );

    std::fs::write(&rules, json!({ ws: "TRUST_FOLDER" }).to_string()).expect("rules");
    assert_eq!(d.json(&["doctor"]).0, 0, "trusted");

    // Hooks switched off in the user's settings.
    let user = d.home.path().join(".gemini/settings.json");
    std::fs::write(&user, r#"{"hooksConfig": {"enabled": false}}"#).expect("settings");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let what = agent(&doc, "gemini-cli")["problems"][0]["what"]
        .as_str()
        .expect("what");
    assert!(what.contains("switch hooks off"), "{what}");
}

#[test]
fn ignored_events_are_counted_and_lost_captures_shown() {
    let d = Doctor::new();
    d.init("claude-code");
    d.claude_event("SessionStart", None);
    d.claude_event("PreToolUse", Some("Read"));
    d.claude_event("PreToolUse", Some("Read"));
    d.claude_event("PostToolUse", Some("Grep"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis();
    let log = format!(
        "{now} claude-code PostToolUse session s-doctor: cannot read x: not recorded\n\
         1000 claude-code Stop session old: long ago\n"
    );
    std::fs::write(d.b.path(".rewind/hook.log"), log).expect("log");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 0, "ignored events are not problems: {doc}");
    let ignored = doc["ignored"].as_array().expect("ignored");
    let read = ignored
        .iter()
        .find(|i| i["tool"] == "Read")
        .expect("Read counted");
    assert_eq!(read["count"], 2, "{ignored:?}");
    assert_eq!(read["event"], "PreToolUse");
    assert_eq!(read["agent"], "claude-code");
    assert_eq!(read["host"], "installed");
    let not = doc["notCaptured"].as_array().expect("notCaptured");
    assert_eq!(not.len(), 1, "only the last week's: {not:?}");
    assert!(not[0].as_str().expect("line").contains("cannot read x"));
    let (_, text) = d.text(&["doctor"]);
    assert!(text.contains("PreToolUse Read ×2"), "{text}");
    assert!(text.contains("not captured in the last week"), "{text}");
}

#[test]
fn the_json_has_its_documented_shape() {
    let d = Doctor::new();
    d.init("claude-code");
    let (_, doc) = d.json(&["doctor"]);
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&doc),
        [
            "agents",
            "ignored",
            "notCaptured",
            "problems",
            "scope",
            "workspace"
        ]
    );
    assert_eq!(doc["scope"], "workspace");
    assert_eq!(
        keys(agent(&doc, "claude-code")),
        [
            "agent",
            "events",
            "installed",
            "name",
            "notes",
            "path",
            "problems",
            "upToDate"
        ]
    );
    let (_, user) = d.json(&["doctor", "--user"]);
    assert_eq!(user["scope"], "user");
    assert_eq!(
        agent(&user, "claude-code")["installed"],
        false,
        "the user's settings are apart"
    );
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(tree(&path));
        } else {
            out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
        }
    }
    out.sort();
    out
}

#[test]
fn doctor_on_a_read_only_store_writes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let d = Doctor::new();
    d.init("claude-code");
    d.claude_event("SessionStart", None);
    d.claude_event("PreToolUse", Some("Read"));
    let store = d.b.path(".rewind");
    let (before, home_before) = (tree(d.b.ws()), tree(d.home.path()));
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let (code, doc) = d.json(&["doctor"]);
    let (user_code, _) = d.json(&["doctor", "--user"]);
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!((code, user_code), (0, 0), "{doc}");
    assert_eq!(agent(&doc, "claude-code")["events"][0]["count"], 1);
    assert_eq!(
        tree(d.b.ws()),
        before,
        "the workspace and its store are as they were"
    );
    assert_eq!(tree(d.home.path()), home_before, "HOME is as it was");
}

#[test]
fn codex_hooks_and_projects_it_has_not_trusted_are_problems() {
    let d = Doctor::new();
    d.init("codex");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let problems = agent(&doc, "codex")["problems"]
        .as_array()
        .expect("problems")
        .clone();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0]["what"]
            .as_str()
            .expect("what")
            .contains("not trusted rewind's hooks")
    );
    assert!(problems[0]["fix"].as_str().expect("fix").contains("/hooks"));
    assert!(
        problems[1]["what"]
            .as_str()
            .expect("what")
            .contains("does not trust the project")
    );

    // What Codex writes once the person trusted both (the keys of its `hook_trust_status`).
    let ws = std::path::absolute(d.b.ws()).expect("absolute");
    let hooks = ws.join(".codex/hooks.json");
    let mut config = format!(
        "[projects.{:?}]\ntrust_level = \"trusted\"\n",
        ws.display().to_string()
    );
    for event in [
        "session_start",
        "user_prompt_submit",
        "pre_tool_use",
        "post_tool_use",
        "stop",
    ] {
        let key = format!("{}:{event}:0:0", hooks.display());
        config.push_str(&format!(
            "\n[hooks.state.{key:?}]\ntrusted_hash = \"sha256:00\"\n"
        ));
    }
    let codex = d.home.path().join(".codex");
    std::fs::create_dir_all(&codex).expect("mkdir");
    std::fs::write(codex.join("config.toml"), config).expect("config");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 0, "{doc}");
    let note = agent(&doc, "codex")["notes"][0]
        .as_str()
        .expect("a note")
        .to_owned();
    assert!(note.contains("cannot be read from files"), "{note}");
}

#[test]
fn a_cline_hook_that_is_not_executable_is_a_problem() {
    use std::os::unix::fs::PermissionsExt;
    let d = Doctor::new();
    d.init("cline");
    assert_eq!(d.json(&["doctor"]).0, 0);
    let dir = d.b.path(".clinerules/hooks");
    let script = std::fs::read_dir(&dir)
        .expect("hooks")
        .flatten()
        .next()
        .expect("a script");
    std::fs::set_permissions(script.path(), std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 1, "{doc}");
    let problem = &agent(&doc, "cline")["problems"][0];
    assert!(
        problem["what"]
            .as_str()
            .expect("what")
            .contains("not executable"),
        "{doc}"
    );
    assert!(
        problem["fix"]
            .as_str()
            .expect("fix")
            .starts_with("chmod +x")
    );
}

#[test]
fn two_installs_that_both_run_are_told_and_user_needs_home() {
    let d = Doctor::new();
    d.init("claude-code");
    d.init("continue");
    let (code, doc) = d.json(&["doctor"]);
    assert_eq!(code, 0, "{doc}");
    let note = agent(&doc, "continue")["notes"][0]
        .as_str()
        .expect("a note")
        .to_owned();
    assert!(note.contains("runs twice"), "{note}");

    let out = d
        .command()
        .args(["--json", "doctor", "--user"])
        .env_remove("HOME")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(err.to_string().contains("HOME is not set"), "{err}");
}

#[test]
fn a_bare_program_name_is_looked_up_on_path() {
    let d = Doctor::new();
    d.init("claude-code");
    let settings = d.b.path(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("settings");
    let exe = env!("CARGO_BIN_EXE_rewind");
    std::fs::write(&settings, text.replace(exe, "rewind")).expect("write");
    let what = |path: &str| {
        let out = d
            .command()
            .args(["--json", "doctor"])
            .env("PATH", path)
            .output()
            .expect("run");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        agent(&doc, "claude-code")["problems"][0]["what"]
            .as_str()
            .expect("what")
            .to_owned()
    };
    let bin = Path::new(exe)
        .parent()
        .expect("bin dir")
        .to_str()
        .expect("utf-8");
    assert!(what(bin).contains("not what `rewind init claude-code` writes now"));
    assert!(what("/nowhere").contains("run rewind, which is not there"));
}

/// `rewind status`: one line — no store yet (and none made), then the hook's session
/// recording a turn, its last event, and doctor's problem count once the install breaks.
#[test]
fn status_says_in_one_line_what_records_the_last_event_and_doctors_count() {
    let d = Doctor::new();
    let (code, text) = d.text(&["status", "--short"]);
    assert_eq!(code, 0);
    assert_eq!(
        text.trim_end(),
        "no current session; no agent event yet; doctor: no problems"
    );
    assert!(!d.b.path(".rewind").exists(), "status made no store");

    d.init("claude-code");
    let mut p = json!({
        "session_id": "s-status", "hook_event_name": "UserPromptSubmit",
        "cwd": d.b.ws(), "prompt": "make notes",
    });
    d.hook("claude-code", p.clone());
    let (code, doc) = d.json(&["status"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["agent"], "claude-code");
    assert_eq!(doc["recording"], true, "{doc}");
    assert!(
        doc["runningTurn"]
            .as_str()
            .is_some_and(|t| t.starts_with("trn_"))
    );
    assert_eq!(doc["lastEvent"]["event"], "UserPromptSubmit");
    assert_eq!(doc["problems"], 0);

    p["hook_event_name"] = json!("Stop");
    d.hook("claude-code", p);
    let settings = d.b.path(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("settings");
    let exe = env!("CARGO_BIN_EXE_rewind");
    std::fs::write(&settings, text.replace(exe, "/gone/bin/rewind")).expect("write");
    let (code, text) = d.text(&["status", "--short"]);
    assert_eq!(code, 0, "status reports; doctor is the check that fails");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("(claude-code): not recording"), "{text}");
    assert!(
        text.contains("last agent event: claude-code Stop "),
        "{text}"
    );
    assert!(
        text.ends_with("doctor: 1 problem (rewind doctor)\n"),
        "{text}"
    );
}
