//! Ignored files and shell capture, through the binary on real files: a path the session
//! recorded stays tracked whatever `.gitignore` says, and small ignored files in walked
//! directories (`.env`) are tracked by default, ignored directories (`target/`) are not.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|p| p.as_str().expect("a path").to_owned())
        .collect()
}

/// A session with a running turn: (session, turn, prompt).
fn turn(b: &Bench) -> (String, String, String) {
    let session = s(&b.ok(&["session", "new", "--title", "ignored"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "build it"]);
    (session, s(&t, "turnId"), s(&t, "messageId"))
}

/// `rewind --json exec` of `script` (which prints nothing); its report.
fn exec(b: &Bench, session: &str, t: &str, script: &str) -> serde_json::Value {
    let out = b
        .command()
        .args([
            "--json", "exec", session, "--turn", t, "--", "sh", "-c", script,
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    serde_json::from_str(&stdout).expect("a json report")
}

/// What a report says changed: (created, modified, deleted).
fn changed(doc: &serde_json::Value) -> [Vec<String>; 3] {
    ["created", "modified", "deleted"].map(|k| names(&doc[k]))
}

fn tree(b: &Bench) {
    b.write(".gitignore", b"*.log\n.env\n.env.local\nbig.bin\ntarget/\n");
    b.write("src/main.rs", b"fn main() {}\n");
    b.write(".env", b"SECRET=hunter2\n\xff\x00binary-safe\n");
    b.write(".env.local", b"PORT=8080\n");
    b.write("target/debug/app", b"old build\n");
    b.write("target/keep.txt", b"keep me\n");
    b.write("big.bin", &vec![7u8; 2 << 20]);
}

#[test]
fn a_tool_write_to_a_gitignored_path_is_not_a_phantom_deletion() {
    let b = Bench::new();
    b.write(".gitignore", b"*.log\n");
    b.write("src/main.rs", b"fn main() {}\n");
    // With the rule off, the walk never lists a.log: only the session's record keeps it.
    b.ok(&["config", "--ignored-files", "off"]);
    let (session, t, p) = turn(&b);
    b.ok(&["snapshot", &session, "--turn", &t]);
    b.write("a.log", b"written by the Write tool\n");
    let args = [
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "a.log",
        "--created",
    ];
    b.ok(&args);
    let snap = b.ok(&["snapshot", &session, "--turn", &t]);
    assert_eq!(snap["checkpointId"], serde_json::Value::Null, "{snap}");
    assert!(names(&snap["deleted"]).is_empty(), "{snap}");
    // Tracked from now on: a command's change to it is the command's.
    let out = exec(&b, &session, &t, "echo more >> a.log");
    assert_eq!(names(&out["modified"]), ["a.log"], "{out}");
    let preview = b.ok(&["preview", &session, "--since", &p]);
    assert_eq!(preview["canApply"], true, "{preview}");
    b.ok(&["apply", &session, "--since", &p]);
    assert_eq!(b.read("a.log"), None);
    assert!(b.read("src/main.rs").is_some());
}

#[test]
fn rm_of_an_ignored_env_file_is_recorded_and_rewound_byte_for_byte() {
    let b = Bench::new();
    tree(&b);
    let env = b.read(".env").expect(".env");
    let (session, t, p) = turn(&b);
    let script = "rm .env && : > .env.local && echo new > target/debug/app \
                  && echo changed > target/keep.txt && echo x >> big.bin";
    let out = exec(&b, &session, &t, script);
    let [created, modified, deleted] = changed(&out);
    assert!(created.is_empty(), "{out}");
    assert_eq!(
        modified,
        [".env.local"],
        "target/ and the 2 MiB file are not tracked"
    );
    assert_eq!(deleted, [".env"]);

    b.ok(&["apply", &session, "--since", &p]);
    assert_eq!(b.read(".env"), Some(env));
    assert_eq!(b.read(".env.local").as_deref(), Some(&b"PORT=8080\n"[..]));
    // Not the rewind's: left as the command left them.
    assert_eq!(b.read("target/debug/app").as_deref(), Some(&b"new\n"[..]));
    assert_eq!(b.read("big.bin").map(|v| v.len()), Some((2 << 20) + 2));
}

#[test]
fn rewindignore_re_includes_into_an_ignored_directory_and_excludes() {
    let b = Bench::new();
    tree(&b);
    b.write(".rewindignore", b"!target/keep.txt\n.env.local\n");
    let (session, t, p) = turn(&b);
    let script = "echo changed > target/keep.txt && echo new > target/debug/app \
                  && echo PORT=1 > .env.local";
    let out = exec(&b, &session, &t, script);
    assert_eq!(names(&out["modified"]), ["target/keep.txt"], "{out}");
    b.ok(&["apply", &session, "--since", &p]);
    assert_eq!(
        b.read("target/keep.txt").as_deref(),
        Some(&b"keep me\n"[..])
    );
    assert_eq!(b.read(".env.local").as_deref(), Some(&b"PORT=1\n"[..]));
}

#[test]
fn the_off_switch_and_the_cap_are_config_keys() {
    let b = Bench::new();
    tree(&b);
    let shown = b.ok(&["config", "--ignored-files", "off"]);
    assert_eq!(shown["trackIgnoredFiles"], false, "{shown}");
    let (session, t, _) = turn(&b);
    let out = exec(&b, &session, &t, "rm .env");
    assert_eq!(out["checkpointId"], serde_json::Value::Null, "{out}");
    assert!(b.read(".env").is_none());

    // A cap of 12 bytes: .env.local (10 bytes) is tracked, the 2 MiB file still is not.
    let shown = b.ok(&["config", "--ignored-files", "12"]);
    assert_eq!(shown["ignoredFileMaxBytes"], 12, "{shown}");
    assert_eq!(shown["trackIgnoredFiles"], true, "{shown}");
    b.ok(&["snapshot", &session, "--turn", &t]);
    let out = exec(
        &b,
        &session,
        &t,
        "echo PORT=1 > .env.local && echo y >> big.bin",
    );
    assert_eq!(names(&out["modified"]), [".env.local"], "{out}");
    let (code, err) = b.json(&["config", "--ignored-files", "lots"]);
    assert_eq!(
        (code, s(&err["error"], "code")),
        (1, "invalid_input".into()),
        "{err}"
    );
}

#[test]
fn ignored_files_by_nested_rules_and_the_exclude_file_are_brought_back() {
    let b = Bench::new();
    b.write(".gitignore", b"target/\n");
    b.write("config/.gitignore", b"*.pem\n!public.pem\n");
    b.write(
        "config/server.pem",
        b"-----BEGIN PRIVATE KEY-----\nsecret\n",
    );
    b.write("config/public.pem", b"-----BEGIN PUBLIC KEY-----\n");
    b.write(".git/info/exclude", b"local.toml\n");
    b.write("local.toml", b"token = \"t0\"\n");
    b.write("target/debug/app", b"old build\n");
    let key = b.read("config/server.pem").expect("key");
    let (session, t, p) = turn(&b);
    let out = exec(
        &b,
        &session,
        &t,
        "rm config/server.pem local.toml target/debug/app",
    );
    let [created, modified, deleted] = changed(&out);
    assert!(created.is_empty() && modified.is_empty(), "{out}");
    assert_eq!(deleted, ["config/server.pem", "local.toml"], "{out}");
    b.ok(&["apply", &session, "--since", &p]);
    assert_eq!(b.read("config/server.pem"), Some(key));
    assert_eq!(
        b.read("local.toml").as_deref(),
        Some(&b"token = \"t0\"\n"[..])
    );
    // Inside an ignored directory: not the rewind's.
    assert_eq!(b.read("target/debug/app"), None);
}
