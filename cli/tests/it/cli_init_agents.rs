//! `rewind init <agent>` for the agents with a format of their own (issue 28): Codex's
//! `hooks.json` / `config.toml`, Copilot's `.github/hooks/rewind.json`, Cursor's and Windsurf's
//! flat `hooks.json`, Continue's Claude-style `.continue/settings.json`, Cline's hook scripts and
//! the OpenCode / Kilo plugin. For each: a fresh install, a second run that changes nothing, the
//! person's own settings and hooks kept, `--dry-run` writing nothing, `--remove` taking out only
//! rewind's, `--user` writing under HOME.

use crate::common;

use common::Bench;
use serde_json::{Value, json};
use std::path::Path;

/// One agent: where its hooks go in a workspace and under HOME, how many of rewind's entries
/// an install makes, and a file of the person's to merge with (`None`: rewind's file is its
/// own, the person's hooks live elsewhere).
struct Case {
    agent: &'static str,
    project: &'static str,
    user: &'static str,
    entries: usize,
    theirs: Option<&'static str>,
}

const CURSOR_THEIRS: &str = r#"{
  "version": 1,
  "hooks": {
    "afterFileEdit": [
      {
        "command": "./hooks/format.sh"
      }
    ],
    "stop": [
      {
        "command": "say done"
      }
    ]
  }
}
"#;

const WINDSURF_THEIRS: &str = r#"{
  "hooks": {
    "post_write_code": [
      {
        "command": "python3 /path/to/lint.py",
        "show_output": true
      }
    ]
  }
}
"#;

const CONTINUE_THEIRS: &str = r#"{
  "model": "mine",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ]
  }
}
"#;

const CODEX_THEIRS: &str = r#"{
  "description": "my hooks",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
"#;

const CASES: [Case; 8] = [
    Case {
        agent: "codex",
        project: ".codex/hooks.json",
        user: ".codex/hooks.json",
        entries: 5,
        theirs: Some(CODEX_THEIRS),
    },
    Case {
        agent: "copilot",
        project: ".github/hooks/rewind.json",
        user: ".copilot/hooks/rewind.json",
        entries: 7,
        theirs: None,
    },
    Case {
        agent: "cursor",
        project: ".cursor/hooks.json",
        user: ".cursor/hooks.json",
        entries: 9,
        theirs: Some(CURSOR_THEIRS),
    },
    Case {
        agent: "continue",
        project: ".continue/settings.json",
        user: ".continue/settings.json",
        entries: 5,
        theirs: Some(CONTINUE_THEIRS),
    },
    Case {
        agent: "windsurf",
        project: ".windsurf/hooks.json",
        user: ".codeium/windsurf/hooks.json",
        entries: 6,
        theirs: Some(WINDSURF_THEIRS),
    },
    Case {
        agent: "cline",
        project: ".clinerules/hooks",
        user: "Documents/Cline/Hooks",
        entries: 7,
        theirs: None,
    },
    Case {
        agent: "opencode",
        project: ".opencode/plugins/rewind.js",
        user: ".config/opencode/plugins/rewind.js",
        entries: 1,
        theirs: None,
    },
    Case {
        agent: "kilo",
        project: ".kilo/plugins/rewind.js",
        user: ".config/kilo/plugins/rewind.js",
        entries: 1,
        theirs: None,
    },
];

fn exe() -> String {
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_rewind")).expect("binary path");
    exe.to_str().expect("utf-8 path").to_owned()
}

/// The command rewind writes when run as the test binary.
fn ours(agent: &str) -> String {
    format!("{} hook {agent}", exe())
}

/// How many of rewind's entries are at `path` (a file, or Cline's directory of scripts).
fn count_ours(path: &Path, agent: &str) -> usize {
    if path.is_dir() {
        return std::fs::read_dir(path)
            .expect("dir")
            .map(|e| std::fs::read_to_string(e.expect("entry").path()).unwrap_or_default())
            .filter(|t| t.contains(&format!("exec {}", ours(agent))))
            .count();
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    if agent == "opencode" || agent == "kilo" {
        let named = text.contains(&format!("const REWIND = {}", json!(exe())))
            && text.contains(&format!("const AGENT = \"{agent}\""));
        return usize::from(named);
    }
    text.matches(&format!("{}", json!(ours(agent)))).count()
}

/// Everything under `dir`, as relative paths, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).expect("inside").display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn each_agent_installs_once_keeps_the_persons_and_removes_only_its_own() {
    for case in CASES {
        let a = case.agent;
        let b = Bench::new();
        if let Some(theirs) = case.theirs {
            b.write(case.project, theirs.as_bytes());
        }
        let doc = b.ok(&["init", a]);
        let path = b.path(case.project);
        assert_eq!(doc["agent"], a);
        assert_eq!(doc["path"], path.to_str().expect("utf-8"), "{a}");
        assert_eq!(doc["changed"], true, "{a}");
        assert_eq!(count_ours(&path, a), case.entries, "{a}");
        let installed = tree(b.ws());

        // A second run changes nothing and writes no backup.
        if case.theirs.is_some() {
            let backup = format!("{}.rewind-backup", case.project);
            assert_eq!(
                b.read(&backup).as_deref(),
                case.theirs.map(str::as_bytes),
                "{a}"
            );
            std::fs::remove_file(b.path(&backup)).expect("remove backup");
        }
        let kept = snapshot(&path);
        let doc = b.ok(&["init", a]);
        assert_eq!(doc["changed"], false, "{a}: {doc}");
        assert_eq!(doc["backup"], Value::Null);
        assert_eq!(snapshot(&path), kept, "{a}");
        let text = String::from_utf8(b.text(&["init", a]).stdout).expect("utf-8");
        assert!(text.contains("already in"), "{a}: {text}");

        // The person's settings and hooks are still there.
        if let Some(theirs) = case.theirs {
            let after: Value =
                serde_json::from_slice(&b.read(case.project).expect("file")).expect("json");
            let before: Value = serde_json::from_str(theirs).expect("json");
            for (key, value) in before.as_object().expect("object") {
                if key != "hooks" {
                    assert_eq!(&after[key], value, "{a} {key}");
                }
            }
            for (event, list) in before["hooks"].as_object().expect("hooks") {
                let old = list.as_array().expect("list");
                let new = after["hooks"][event].as_array().expect("list");
                assert_eq!(new[..old.len()], old[..], "{a} {event}");
            }
        }

        // --remove takes out only rewind's: the person's file comes back byte for byte, a
        // file or directory of rewind's own goes.
        let doc = b.ok(&["init", a, "--remove"]);
        assert_eq!(doc["changed"], true, "{a}");
        assert_eq!(count_ours(&path, a), 0, "{a}");
        match case.theirs {
            Some(theirs) => assert_eq!(
                b.read(case.project).as_deref(),
                Some(theirs.as_bytes()),
                "{a}"
            ),
            None if path.is_dir() => assert!(tree(&path).is_empty(), "{a}: {:?}", tree(&path)),
            None => assert!(!path.exists(), "{a}"),
        }
        let doc = b.ok(&["init", a, "--remove"]);
        assert_eq!(doc["changed"], false, "{a}");
        assert!(installed.len() >= tree(b.ws()).len());
    }
}

/// A file's bytes, or a directory's files' bytes.
fn snapshot(path: &Path) -> Vec<(String, Vec<u8>)> {
    if path.is_dir() {
        return tree(path)
            .into_iter()
            .map(|rel| {
                let bytes = std::fs::read(path.join(&rel)).unwrap_or_default();
                (rel, bytes)
            })
            .collect();
    }
    vec![(String::new(), std::fs::read(path).expect("file"))]
}

#[test]
fn dry_run_writes_nothing_for_any_agent() {
    for case in CASES {
        let b = Bench::new();
        let before = tree(b.ws());
        let doc = b.ok(&["init", case.agent, "--dry-run"]);
        assert_eq!(doc["changed"], true, "{}", case.agent);
        assert_eq!(doc["dryRun"], true);
        let diff = doc["diff"].as_str().expect("diff");
        assert!(
            diff.starts_with("--- /dev/null\n+++ "),
            "{}: {diff}",
            case.agent
        );
        assert_eq!(tree(b.ws()), before, "{}", case.agent);
    }
}

#[test]
fn user_installs_go_under_home_and_leave_the_workspace_alone() {
    for case in CASES {
        let b = Bench::new();
        let home = tempfile::tempdir().expect("home");
        let (code, doc) = b.json_with(&["init", case.agent, "--user"], |c| {
            c.env("HOME", home.path())
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("CODEX_HOME");
        });
        assert_eq!(code, 0, "{doc}");
        let path = home.path().join(case.user);
        assert_eq!(doc["path"], path.to_str().expect("utf-8"), "{}", case.agent);
        assert_eq!(
            count_ours(&path, case.agent),
            case.entries,
            "{}",
            case.agent
        );
        let first = case.project.split('/').next().expect("dir");
        assert!(
            !b.path(first).exists(),
            "{}: the workspace is left alone",
            case.agent
        );
    }
}

#[test]
fn codex_writes_into_config_toml_when_that_has_hooks_and_says_to_trust_them() {
    let b = Bench::new();
    let theirs = "# mine\nmodel = \"gpt-5\"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"say done\"\n";
    b.write(".codex/config.toml", theirs.as_bytes());
    let out = b.text(&["init", "codex"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("/hooks") && text.contains("trust"), "{text}");
    let toml = String::from_utf8(b.read(".codex/config.toml").expect("toml")).expect("utf-8");
    assert!(toml.starts_with("# mine\nmodel = \"gpt-5\"\n"), "{toml}");
    assert_eq!(
        toml.matches(&format!("command = {}", json!(ours("codex"))))
            .count(),
        5,
        "{toml}"
    );
    assert!(
        b.read(".codex/hooks.json").is_none(),
        "one format per layer"
    );
    let doc = b.ok(&["init", "codex"]);
    assert_eq!(doc["changed"], false);
    b.ok(&["init", "codex", "--remove"]);
    assert_eq!(
        b.read(".codex/config.toml").as_deref(),
        Some(theirs.as_bytes())
    );
}

#[test]
fn copilot_points_the_vs_code_agent_to_the_claude_install() {
    let b = Bench::new();
    let text = String::from_utf8(b.text(&["init", "copilot"]).stdout).expect("utf-8");
    assert!(
        text.contains(".claude/settings.json") && text.contains("rewind init claude-code"),
        "{text}"
    );
    let file: Value =
        serde_json::from_slice(&b.read(".github/hooks/rewind.json").expect("file")).expect("json");
    assert_eq!(file["version"], 1);
    assert_eq!(
        file["hooks"]["PreToolUse"][0],
        json!({ "type": "command", "bash": ours("copilot") })
    );
}

#[cfg(unix)]
#[test]
fn cline_scripts_are_executable_and_a_persons_hook_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let b = Bench::new();
    b.ok(&["init", "cline"]);
    let script = b.path(".clinerules/hooks/PreToolUse");
    let mode = std::fs::metadata(&script)
        .expect("script")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "{mode:o}");
    b.ok(&["init", "cline", "--remove"]);
    b.write(".clinerules/hooks/PostToolUse", b"#!/bin/sh\necho mine\n");
    let (code, doc) = b.json(&["init", "cline"]);
    assert_eq!(code, 1);
    assert_eq!(doc["error"]["code"], "invalid_input");
    assert!(
        b.read(".clinerules/hooks/PreToolUse").is_none(),
        "nothing was changed"
    );
    b.ok(&["init", "cline", "--remove"]);
    assert_eq!(
        b.read(".clinerules/hooks/PostToolUse").as_deref(),
        Some(&b"#!/bin/sh\necho mine\n"[..])
    );
}

#[test]
fn a_plugin_of_the_persons_named_rewind_js_is_refused() {
    let b = Bench::new();
    b.write(
        ".opencode/plugins/rewind.js",
        b"export const Mine = async () => ({})\n",
    );
    let (code, doc) = b.json(&["init", "opencode"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(
        b.read(".opencode/plugins/rewind.js").as_deref(),
        Some(&b"export const Mine = async () => ({})\n"[..])
    );
}
