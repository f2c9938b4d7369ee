//! `rewind init <agent>` through the binary: the settings file it writes, merging with the
//! documented examples of each agent, backups, `--remove`, `--dry-run`, `--user`, refusals.

use crate::common;

use common::Bench;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const CLAUDE_TOOLS: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell";
const GEMINI_TOOLS: &str = "write_file|replace|run_shell_command";
const QWEN_TOOLS: &str = "write_file|edit|notebook_edit|run_shell_command";

/// Hook events with their matchers.
type Events = &'static [(&'static str, Option<&'static str>)];

/// Each agent: its settings directory and the events rewind installs.
const AGENTS: [(&str, &str, Events); 3] = [
    (
        "claude-code",
        ".claude",
        &[
            ("SessionStart", None),
            ("UserPromptSubmit", None),
            ("PreToolUse", Some(CLAUDE_TOOLS)),
            ("PostToolUse", Some(CLAUDE_TOOLS)),
            ("PostToolUseFailure", Some(CLAUDE_TOOLS)),
            ("Stop", None),
            ("StopFailure", None),
        ],
    ),
    (
        "gemini-cli",
        ".gemini",
        &[
            ("SessionStart", None),
            ("BeforeAgent", None),
            ("BeforeTool", Some(GEMINI_TOOLS)),
            ("AfterTool", Some(GEMINI_TOOLS)),
            ("AfterAgent", None),
        ],
    ),
    (
        "qwen-code",
        ".qwen",
        &[
            ("SessionStart", None),
            ("UserPromptSubmit", None),
            ("PreToolUse", Some(QWEN_TOOLS)),
            ("PostToolUse", Some(QWEN_TOOLS)),
            ("PostToolUseFailure", Some(QWEN_TOOLS)),
            ("Stop", None),
            ("StopFailure", None),
        ],
    ),
];

const CLAUDE_EXAMPLE: &[u8] = include_bytes!("../fixtures/hooks/claude-code/settings.example.json");
const CLAUDE_BLOCK_RM: &[u8] =
    include_bytes!("../fixtures/hooks/claude-code/settings.block-rm.json");
const GEMINI_EXAMPLE: &[u8] = include_bytes!("../fixtures/hooks/gemini-cli/settings.example.json");
const GEMINI_COMPLETE: &[u8] =
    include_bytes!("../fixtures/hooks/gemini-cli/settings.complete-example.json");
const QWEN_EXAMPLE: &[u8] = include_bytes!("../fixtures/hooks/qwen-code/settings.example.json");

/// The command rewind writes when run as the test binary.
fn ours(agent: &str) -> String {
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_rewind")).expect("binary path");
    format!("{} hook {agent}", exe.to_str().expect("utf-8 path"))
}

/// The events rewind installs for `agent`.
fn events_of(agent: &str) -> Events {
    AGENTS.iter().find(|a| a.0 == agent).expect("known agent").2
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("settings are JSON")
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// Every handler in `settings` whose command is `command`, as (event, matcher).
fn handlers_with<'a>(settings: &'a Value, command: &str) -> Vec<(&'a str, Option<&'a str>)> {
    let mut found = Vec::new();
    for (event, groups) in settings["hooks"].as_object().expect("hooks") {
        for group in groups.as_array().into_iter().flatten() {
            for h in group["hooks"].as_array().into_iter().flatten() {
                if h["command"] == command {
                    assert_eq!(h["type"], "command");
                    found.push((event.as_str(), group["matcher"].as_str()));
                }
            }
        }
    }
    found
}

fn backup_of(settings: &Path) -> PathBuf {
    settings.with_file_name("settings.json.rewind-backup")
}

#[test]
fn a_fresh_install_writes_every_event_for_each_agent() {
    for (agent, dir, events) in AGENTS {
        let b = Bench::new();
        let doc = b.ok(&["init", agent]);
        let path = b.path(&format!("{dir}/settings.json"));
        assert_eq!(doc["agent"], agent);
        assert_eq!(doc["path"], path.to_str().expect("utf-8"));
        assert_eq!(doc["changed"], true);
        assert_eq!(doc["backup"], Value::Null);
        assert_eq!(doc["removed"], false);
        assert_eq!(doc["dryRun"], false);
        let names: Vec<&str> = events.iter().map(|(e, _)| *e).collect();
        assert_eq!(doc["events"], json!(names));

        let bytes = std::fs::read(&path).expect("settings written");
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        assert!(
            text.ends_with("}\n") && text.contains("\n  \"hooks\": {\n    \""),
            "{text}"
        );
        let settings = parse(&bytes);
        match agent {
            // With Gemini CLI's session cleanup off (init/gemini.rs).
            "gemini-cli" => assert_eq!(keys(&settings), ["hooks", "general"]),
            _ => assert_eq!(keys(&settings), ["hooks"]),
        }
        assert_eq!(keys(&settings["hooks"]), names, "{agent}");
        assert_eq!(handlers_with(&settings, &ours(agent)), events, "{agent}");
        for (event, matcher) in events {
            let group = &settings["hooks"][event][0];
            assert_eq!(
                group.get("matcher").is_some(),
                matcher.is_some(),
                "{agent} {event}"
            );
            assert_eq!(
                group["hooks"][0].as_object().expect("handler").len(),
                2,
                "no timeout"
            );
        }
        assert!(
            !backup_of(&path).exists(),
            "no backup of a file that was not there"
        );
    }
}

#[test]
fn merging_keeps_every_other_key_and_hook_in_order_and_remove_restores_the_file() {
    for (agent, dir, fixture) in [
        ("claude-code", ".claude", CLAUDE_EXAMPLE),
        ("claude-code", ".claude", CLAUDE_BLOCK_RM),
        ("gemini-cli", ".gemini", GEMINI_EXAMPLE),
        ("gemini-cli", ".gemini", GEMINI_COMPLETE),
        ("qwen-code", ".qwen", QWEN_EXAMPLE),
    ] {
        let b = Bench::new();
        let rel = format!("{dir}/settings.json");
        let path = b.path(&rel);
        // The documented example, with other settings around it (in no sorted order).
        let mut start = serde_json::Map::new();
        start.insert("model".into(), json!("big"));
        start.insert(
            "permissions".into(),
            json!({ "deny": ["Read(.env)"], "allow": [] }),
        );
        start.insert("hooks".into(), parse(fixture)["hooks"].clone());
        start.insert("env".into(), json!({ "Z_LAST": "1", "A_FIRST": "2" }));
        let mut original = serde_json::to_string_pretty(&start).expect("json");
        original.push('\n');
        b.write(&rel, original.as_bytes());
        let before = parse(original.as_bytes());

        let doc = b.ok(&["init", agent]);
        assert_eq!(doc["changed"], true);
        assert_eq!(doc["backup"], backup_of(&path).to_str().expect("utf-8"));
        assert_eq!(
            b.read(&format!("{rel}.rewind-backup")).expect("backup"),
            original.as_bytes()
        );
        let after = parse(&b.read(&rel).expect("settings"));
        let mut want = vec!["model", "permissions", "hooks", "env"];
        if agent == "gemini-cli" {
            // Gemini CLI's session cleanup off (it deletes resumed sessions: init/gemini.rs).
            want.push("general");
            assert_eq!(
                after["general"],
                json!({ "sessionRetention": { "enabled": false } })
            );
        }
        assert_eq!(keys(&after), want, "{agent}");
        assert_eq!(keys(&after["env"]), ["Z_LAST", "A_FIRST"]);
        assert_eq!(after["permissions"], before["permissions"]);
        assert_eq!(after["model"], before["model"]);
        // Their events first, in their order, with their groups first and unchanged.
        let theirs = keys(&before["hooks"]);
        assert_eq!(keys(&after["hooks"])[..theirs.len()], theirs[..], "{agent}");
        for event in theirs {
            let old = before["hooks"][event].as_array().expect("list");
            let new = after["hooks"][event].as_array().expect("list");
            assert_eq!(new[..old.len()], old[..], "{agent} {event}");
        }
        assert_eq!(
            handlers_with(&after, &ours(agent)).len(),
            events_of(agent).len()
        );

        // Taking ours out gives back the very bytes we started from.
        std::fs::remove_file(backup_of(&path)).expect("remove backup");
        let installed = b.read(&rel).expect("settings");
        let doc = b.ok(&["init", agent, "--remove"]);
        assert_eq!(doc["changed"], true);
        assert_eq!(doc["removed"], true);
        assert_eq!(
            doc["events"].as_array().expect("events").len(),
            events_of(agent).len()
        );
        assert_eq!(
            b.read(&rel).expect("settings"),
            original.as_bytes(),
            "{agent}"
        );
        assert_eq!(
            b.read(&format!("{rel}.rewind-backup")).expect("backup"),
            installed
        );

        // And again: nothing to take out, nothing written.
        std::fs::remove_file(backup_of(&path)).expect("remove backup");
        let doc = b.ok(&["init", agent, "--remove"]);
        assert_eq!(doc["changed"], false);
        assert_eq!(doc["events"], json!([]));
        assert_eq!(doc["backup"], Value::Null);
        assert_eq!(b.read(&rel).expect("settings"), original.as_bytes());
        assert!(!backup_of(&path).exists());
    }
}

#[test]
fn gemini_cli_s_session_cleanup_goes_off_unless_the_file_says_and_init_says_which() {
    let b = Bench::new();
    let out = b.text(&["init", "gemini-cli"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("session cleanup is off"), "{text}");
    assert!(text.contains("gemini-cli#27368"), "{text}");
    let b = Bench::new();
    let on = br#"{"general": {"sessionRetention": {"enabled": true, "maxAge": "7d"}}}"#;
    b.write(".gemini/settings.json", on);
    let out = b.text(&["init", "gemini-cli"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("keeps Gemini CLI's session cleanup on"),
        "{text}"
    );
    let settings = parse(&b.read(".gemini/settings.json").expect("settings"));
    assert_eq!(
        settings["general"],
        json!({ "sessionRetention": { "enabled": true, "maxAge": "7d" } })
    );
    b.ok(&["init", "gemini-cli", "--remove"]);
    let settings = parse(&b.read(".gemini/settings.json").expect("settings"));
    assert_eq!(settings["general"]["sessionRetention"]["enabled"], true);
}

#[test]
fn a_second_init_changes_nothing_and_writes_no_backup() {
    let b = Bench::new();
    b.write(".qwen/settings.json", QWEN_EXAMPLE);
    b.ok(&["init", "qwen-code"]);
    let first = b.read(".qwen/settings.json").expect("settings");
    std::fs::remove_file(b.path(".qwen/settings.json.rewind-backup")).expect("remove backup");
    let doc = b.ok(&["init", "qwen-code"]);
    assert_eq!(doc["changed"], false);
    assert_eq!(doc["backup"], Value::Null);
    assert_eq!(b.read(".qwen/settings.json").expect("settings"), first);
    assert!(b.read(".qwen/settings.json.rewind-backup").is_none());
    let out = b.text(&["init", "qwen-code"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("already in"));
}

#[test]
fn an_init_after_the_binary_moved_replaces_the_old_entries() {
    let b = Bench::new();
    let old = "/opt/old place/rewind";
    let old_cmd = format!("'{old}' hook claude-code");
    let settings = json!({ "hooks": {
        "Stop": [{ "hooks": [
            { "type": "command", "command": "say done" },
            { "type": "command", "command": old_cmd, "timeout": 20 }
        ] }],
        "PreToolUse": [{ "matcher": CLAUDE_TOOLS, "hooks": [{ "type": "command", "command": old_cmd }] }],
        "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": old_cmd }] }],
        "SessionEnd": [{ "hooks": [{ "type": "command", "command": "rewind hook claude-code" }] }],
        "SessionStart": [{ "hooks": [
            { "type": "command", "command": "/usr/bin/not-rewind hook claude-code" },
            { "type": "command", "command": "/usr/bin/rewind hook gemini-cli" }
        ] }]
    } });
    b.write(".claude/settings.json", settings.to_string().as_bytes());
    b.ok(&["init", "claude-code"]);
    let after = parse(&b.read(".claude/settings.json").expect("settings"));
    let cmd = ours("claude-code");
    assert!(!after.to_string().contains(old), "{after}");
    // One entry per event; the Stop one kept its place and its timeout; the one under another
    // matcher went, ours came with ours; the hand-added SessionEnd one follows the binary.
    let mut found = handlers_with(&after, &cmd);
    found.sort_unstable();
    let mut want = events_of("claude-code").to_vec();
    want.push(("SessionEnd", None));
    want.sort_unstable();
    assert_eq!(found, want);
    assert_eq!(after["hooks"]["Stop"][0]["hooks"][1]["timeout"], 20);
    assert_eq!(after["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
    assert_eq!(
        after["hooks"]["PostToolUse"]
            .as_array()
            .expect("list")
            .len(),
        1
    );
    // Not ours: another program, another agent's hook.
    assert_eq!(
        settings["hooks"]["SessionStart"][0],
        after["hooks"]["SessionStart"][0]
    );
}

#[test]
fn a_path_with_spaces_is_quoted_and_still_recognised() {
    let b = Bench::new();
    let dir = b.path("my tools");
    std::fs::create_dir(&dir).expect("mkdir");
    let exe = dir.join("rewind");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_rewind"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_rewind"), &exe).expect("copy the binary");
    }
    let out = std::process::Command::new(&exe)
        .args([
            "--workspace",
            b.ws().to_str().expect("utf-8"),
            "init",
            "gemini-cli",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let quoted = format!("'{}' hook gemini-cli", exe.to_str().expect("utf-8"));
    let settings = parse(&b.read(".gemini/settings.json").expect("settings"));
    assert_eq!(handlers_with(&settings, &quoted).len(), 5);
    // Back with the usual binary: the quoted entries are recognised as ours and replaced.
    b.ok(&["init", "gemini-cli"]);
    let settings = parse(&b.read(".gemini/settings.json").expect("settings"));
    assert!(handlers_with(&settings, &quoted).is_empty());
    assert_eq!(handlers_with(&settings, &ours("gemini-cli")).len(), 5);
}

#[test]
fn dry_run_shows_a_diff_and_writes_nothing() {
    let b = Bench::new();
    let out = b.text(&["init", "claude-code", "--dry-run"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.starts_with("--- /dev/null\n+++ "), "{text}");
    assert!(text.contains(&format!(
        "+            \"command\": \"{}\"",
        ours("claude-code")
    )));
    assert!(!b.path(".claude").exists(), "not even the directory");

    b.write(".claude/settings.json", CLAUDE_EXAMPLE);
    let doc = b.ok(&["init", "claude-code", "--dry-run"]);
    assert_eq!(doc["changed"], true);
    assert_eq!(doc["dryRun"], true);
    assert_eq!(doc["backup"], Value::Null);
    let diff = doc["diff"].as_str().expect("diff");
    assert!(
        diff.contains("@@ ") && diff.contains("+    \"SessionStart\": ["),
        "{diff}"
    );
    assert_eq!(
        b.read(".claude/settings.json").expect("settings"),
        CLAUDE_EXAMPLE
    );
    assert!(b.read(".claude/settings.json.rewind-backup").is_none());

    b.ok(&["init", "claude-code"]);
    let out = b.text(&["init", "claude-code", "--dry-run"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("no change"));
    let out = b.text(&["init", "claude-code", "--dry-run", "--remove"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("-    \"SessionStart\": ["), "{text}");
    assert!(
        b.read(".claude/settings.json")
            .is_some_and(|s| s != CLAUDE_EXAMPLE)
    );
}

#[test]
fn user_settings_go_under_home() {
    let b = Bench::new();
    let home = tempfile::tempdir().expect("home");
    for (agent, dir, events) in AGENTS {
        let (code, doc) = b.json_with(&["init", agent, "--user"], |c| {
            c.env("HOME", home.path()).env_remove("CLAUDE_CONFIG_DIR");
        });
        assert_eq!(code, 0, "{doc}");
        let path = home.path().join(dir).join("settings.json");
        assert_eq!(doc["path"], path.to_str().expect("utf-8"));
        let settings = parse(&std::fs::read(&path).expect("user settings"));
        assert_eq!(handlers_with(&settings, &ours(agent)), events);
        assert!(!b.path(dir).exists(), "the workspace is left alone");
    }

    // Claude Code keeps its user files in CLAUDE_CONFIG_DIR when that is set.
    let config = home.path().join("elsewhere");
    let doc = b
        .json_with(&["init", "claude-code", "--user"], |c| {
            c.env("HOME", home.path()).env("CLAUDE_CONFIG_DIR", &config);
        })
        .1;
    assert_eq!(
        doc["path"],
        config.join("settings.json").to_str().expect("utf-8")
    );

    let (code, doc) = b.json_with(&["init", "qwen-code", "--user"], |c| {
        c.env_remove("HOME");
    });
    assert_eq!(code, 1);
    assert_eq!(doc["error"]["code"], "invalid_input");
    assert!(
        doc["error"]["message"]
            .as_str()
            .expect("message")
            .contains("HOME is not set")
    );
}

#[test]
fn a_file_that_is_not_a_json_object_is_refused_and_left_alone() {
    let cases: [(&[u8], &str); 5] = [
        (b"{\"hooks\": {}", "not valid JSON"),
        (b"{\n  // mine\n  \"model\": \"x\"\n}\n", "not valid JSON"),
        (b"[{\"hooks\": {}}]\n", "an array, not a JSON object"),
        (
            b"{\"hooks\": [\"x\"]}\n",
            "`hooks` is an array, not an object",
        ),
        (
            b"{\"hooks\": {\"Stop\": {}}}\n",
            "`hooks.Stop` is an object, not a list",
        ),
    ];
    for (bytes, why) in cases {
        let b = Bench::new();
        b.write(".claude/settings.json", bytes);
        let (code, doc) = b.json(&["init", "claude-code"]);
        assert_eq!(code, 1, "{doc}");
        assert_eq!(doc["error"]["code"], "invalid_input");
        let message = doc["error"]["message"].as_str().expect("message");
        assert!(message.contains(b.path(".claude/settings.json").to_str().expect("utf-8")));
        assert!(message.contains(why), "{message}");
        assert_eq!(b.read(".claude/settings.json").expect("settings"), bytes);
        assert!(b.read(".claude/settings.json.rewind-backup").is_none());
    }
    // --remove refuses what it cannot read, too.
    let b = Bench::new();
    b.write(".gemini/settings.json", b"{,}");
    assert_eq!(b.json(&["init", "gemini-cli", "--remove"]).0, 1);
    assert_eq!(b.read(".gemini/settings.json").expect("settings"), b"{,}");
}

#[test]
fn an_unknown_agent_is_a_usage_error_naming_the_known_ones() {
    let b = Bench::new();
    let out = b.text(&["init", "aider"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for name in [
        "claude-code",
        "gemini-cli",
        "qwen-code",
        "codex",
        "opencode",
        "cline",
    ] {
        assert!(err.contains(name), "{err}");
    }
}

/// The command installed for `event` whose group matches `tool` (exact names, as Claude Code
/// and Qwen Code read a `|` list); panics when there is none.
fn installed(settings: &Value, event: &str, tool: Option<&str>) -> String {
    let groups = settings["hooks"][event].as_array();
    let group = groups
        .into_iter()
        .flatten()
        .find(|g| match (g["matcher"].as_str(), tool) {
            (Some(m), Some(t)) => m.split('|').any(|n| n == t),
            (None, _) => true,
            (Some(_), None) => false,
        })
        .unwrap_or_else(|| panic!("nothing installed for {event} {tool:?}"));
    group["hooks"][0]["command"]
        .as_str()
        .expect("command")
        .to_owned()
}

/// Run an installed hook command the way the agents do: `sh -c`, payload on stdin, from
/// another directory, with no rewind options.
#[cfg(unix)]
fn run_hook(command: &str, payload: &Value) {
    let mut sh = std::process::Command::new("sh");
    sh.args(["-c", command]);
    common::expect_hook_continues(sh, payload);
}

/// What `init` installs drives `rewind hook`: a shell command that fails after changing a file
/// (Claude Code then sends PostToolUseFailure, not PostToolUse) is still the agent's change.
#[cfg(unix)]
#[test]
fn the_installed_hooks_record_a_failed_shell_command_as_the_agents() {
    let b = Bench::new();
    b.write("a.txt", b"colour\n");
    b.ok(&["init", "claude-code"]);
    let settings = parse(&b.read(".claude/settings.json").expect("settings"));
    let cwd = b.ws().canonicalize().expect("ws");
    let send = |event: &str, tool: Option<&str>, fields: Value| {
        let mut payload = json!({
            "session_id": "s-1",
            "cwd": cwd,
            "hook_event_name": event,
        });
        for (k, v) in fields.as_object().expect("fields") {
            payload[k] = v.clone();
        }
        run_hook(&installed(&settings, event, tool), &payload);
    };
    let bash = json!({
        "tool_name": "Bash",
        "tool_input": { "command": "sed -i s/colour/color/ a.txt && false" },
        "tool_use_id": "toolu_1",
    });
    send("SessionStart", None, json!({ "source": "startup" }));
    send("UserPromptSubmit", None, json!({ "prompt": "spell it" }));
    send("PreToolUse", Some("Bash"), bash.clone());
    b.write("a.txt", b"color\n");
    send("PostToolUseFailure", Some("Bash"), bash);
    send("Stop", None, json!({ "last_assistant_message": "tried" }));
    send("UserPromptSubmit", None, json!({ "prompt": "again" }));

    let session = std::fs::read_to_string(b.path(".rewind/current-session")).expect("session");
    let cps = b.ok(&["checkpoints", session.trim()]);
    let tools: Vec<&str> = cps
        .as_array()
        .expect("list")
        .iter()
        .map(|c| c["toolName"].as_str().expect("toolName"))
        .collect();
    assert_eq!(tools, ["Bash"], "not the person's change: {cps}");
}
