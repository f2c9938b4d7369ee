//! `rewind edit --stdin`: several files, one checkpoint, from a JSON document; a bad document
//! records nothing.

use crate::common;

use base64::Engine as _;
use common::{Bench, s};
use std::io::Write as _;
use std::process::Stdio;

/// Run `rewind --json edit ARGS --stdin` with `doc` on stdin; the exit code and the document.
fn edit_stdin(b: &Bench, args: &[&str], doc: &[u8]) -> (i32, serde_json::Value) {
    let mut child = b
        .command()
        .arg("--json")
        .arg("edit")
        .args(args)
        .arg("--stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let doc = doc.to_vec();
    // A writer of its own: the child may stop reading (a document too large) and answer.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&doc);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().expect("exit code"), doc)
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A session with a running turn.
fn turn(b: &Bench) -> (String, String) {
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = s(&b.ok(&["prompt", &session, "--text", "multi"]), "turnId");
    (session, t)
}

/// The tool call id the store holds for the session's only checkpoint.
fn tool_call_id(b: &Bench, session: &str) -> Option<String> {
    let db = rewind_host::default_db_path(b.ws());
    let (engine, _) = rewind_host::open(b.ws(), &db).expect("open");
    let id = session.parse().expect("session id");
    let cps = rewind_core::load::checkpoints(engine.store(), &id).expect("checkpoints");
    assert_eq!(cps.items.len(), 1);
    cps.items[0].tool_call_id.clone()
}

const BIN_BEFORE: &[u8] = &[0, 0xff, 0xfe, b'\r', b'\n', 7, 0x80];
const BIN_AFTER: &[u8] = &[0xc3, 0x28, 0, 1, 2, 3];

#[test]
fn a_multi_file_document_is_one_checkpoint_and_rewinds_every_byte() {
    let b = Bench::new();
    let (session, t) = turn(&b);
    let refs = tempfile::tempdir().expect("refs");
    let before_ref = refs.path().join("ref.before");
    let after_ref = refs.path().join("ref.after");
    std::fs::write(&before_ref, b"referenced before\n").expect("write");
    std::fs::write(&after_ref, b"referenced after\n").expect("write");

    // The workspace as the tool left it.
    b.write("src/text.rs", b"fn after() {}\n");
    b.write("assets/blob.bin", BIN_AFTER);
    b.write("ref.txt", b"referenced after\n");
    b.write("created.txt", b"brand new\n");
    // deleted.txt is gone.

    let doc = serde_json::json!({
        "tool": "MultiEdit",
        "toolCallId": "call_42",
        "files": [
            { "path": "src/text.rs", "before": { "text": "fn before() {}\n" },
              "after": { "text": "fn after() {}\n" } },
            { "path": "assets/blob.bin", "before": { "base64": b64(BIN_BEFORE) },
              "after": { "base64": b64(BIN_AFTER) } },
            { "path": "ref.txt", "before": { "file": before_ref },
              "after": { "file": after_ref } },
            { "path": "created.txt", "before": null },
            { "path": "deleted.txt", "before": { "text": "doomed\n" }, "after": null },
        ]
    });
    let (code, out) = edit_stdin(&b, &[&session, "--turn", &t], doc.to_string().as_bytes());
    assert_eq!(code, 0, "{out}");
    let cp = s(&out, "checkpointId");
    let files = out["files"].as_array().expect("files");
    assert_eq!(files.len(), 5, "{out}");

    let cps = b.ok(&["checkpoints", &session]);
    let cps = cps.as_array().expect("list");
    assert_eq!(cps.len(), 1, "one checkpoint for all files: {cps:?}");
    assert_eq!(cps[0]["toolName"], "MultiEdit");
    assert_eq!(tool_call_id(&b, &session).as_deref(), Some("call_42"));
    let mut paths: Vec<&str> = cps[0]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "assets/blob.bin",
            "created.txt",
            "deleted.txt",
            "ref.txt",
            "src/text.rs"
        ]
    );

    let preview = b.ok(&["preview", &session, "--checkpoint", &cp]);
    assert_eq!(preview["canApply"], true, "{preview}");
    assert_eq!(preview["safeFiles"].as_array().expect("safe").len(), 5);

    let applied = b.ok(&["apply", &session, "--checkpoint", &cp]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(
        b.read("src/text.rs").as_deref(),
        Some(&b"fn before() {}\n"[..])
    );
    assert_eq!(b.read("assets/blob.bin").as_deref(), Some(BIN_BEFORE));
    assert_eq!(
        b.read("ref.txt").as_deref(),
        Some(&b"referenced before\n"[..])
    );
    assert_eq!(b.read("created.txt"), None, "created by the tool: removed");
    assert_eq!(b.read("deleted.txt").as_deref(), Some(&b"doomed\n"[..]));

    b.ok(&["undo", &session, &s(&applied, "operationId")]);
    assert_eq!(
        b.read("src/text.rs").as_deref(),
        Some(&b"fn after() {}\n"[..])
    );
    assert_eq!(b.read("assets/blob.bin").as_deref(), Some(BIN_AFTER));
    assert_eq!(
        b.read("ref.txt").as_deref(),
        Some(&b"referenced after\n"[..])
    );
    assert_eq!(b.read("created.txt").as_deref(), Some(&b"brand new\n"[..]));
    assert_eq!(b.read("deleted.txt"), None);
}

#[cfg(unix)]
#[test]
fn modes_and_the_current_session_and_flags_as_defaults() {
    use std::os::unix::fs::PermissionsExt as _;
    let b = Bench::new();
    let (session, t) = turn(&b);
    b.write("run.sh", b"#!/bin/sh\necho new\n");
    std::fs::set_permissions(b.path("run.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let doc = serde_json::json!({ "files": [
        { "path": "run.sh", "before": { "text": "#!/bin/sh\necho old\n" }, "beforeMode": 0o644 },
    ]});
    // No session: the current one; no tool in the document: --tool, then --tool-call-id.
    let (code, out) = edit_stdin(
        &b,
        &["--turn", &t, "--tool", "Patch", "--tool-call-id", "c9"],
        doc.to_string().as_bytes(),
    );
    assert_eq!(code, 0, "{out}");
    let cps = b.ok(&["checkpoints"]);
    let cp = &cps.as_array().expect("list")[0];
    assert_eq!(cp["toolName"], "Patch");
    assert_eq!(tool_call_id(&b, &session).as_deref(), Some("c9"));
    b.ok(&["apply", "--checkpoint", &s(cp, "checkpointId")]);
    assert_eq!(
        b.read("run.sh").as_deref(),
        Some(&b"#!/bin/sh\necho old\n"[..])
    );
    let mode = std::fs::metadata(b.path("run.sh"))
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644, "the before mode is restored");
}

#[test]
fn a_bad_document_is_refused_naming_the_problem_and_records_nothing() {
    let b = Bench::new();
    let (session, t) = turn(&b);
    b.write("a.txt", b"now\n");
    let good = r#"{ "path": "a.txt", "before": { "text": "then\n" } }"#;
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "read nothing"),
        ("{ not json".into(), "not valid"),
        (r#"{"files": []}"#.into(), "at least one file"),
        (r#"{"file": []}"#.into(), "unknown field `file`"),
        (
            format!(r#"{{"files": [{good}], "extra": 1}}"#),
            "unknown field `extra`",
        ),
        (
            r#"{"files": [{"path": "a.txt"}]}"#.into(),
            "files[0] (a.txt): before: missing",
        ),
        (
            format!(r#"{{"files": [{good}, {{"path": "b.txt", "before": {{"hex": "00"}}}}]}}"#),
            "unknown field `hex`",
        ),
        (
            format!(r#"{{"files": [{good}, {{"path": "b.txt", "before": {{"base64": "*!"}}}}]}}"#),
            "files[1] (b.txt): before: not valid base64",
        ),
        (
            r#"{"files": [{"path": "a.txt", "before": {"text": "x", "base64": "eA=="}}]}"#.into(),
            "exactly one of",
        ),
        (
            r#"{"files": [{"path": "a.txt", "before": "then"}]}"#.into(),
            "expected null, {\"base64\"",
        ),
        (
            r#"{"files": [{"path": "a.txt", "before": {"file": "/no/such/file"}}]}"#.into(),
            "files[0] (a.txt): before: cannot read /no/such/file",
        ),
        (
            format!(r#"{{"files": [{good}, {{"path": "gone.txt", "before": null}}]}}"#),
            "gone.txt does not exist; give \"after\": null",
        ),
        (format!(r#"{{"files": [{good}, {good}]}}"#), "appears twice"),
        (
            r#"{"files": [{"path": "a.txt", "before": null, "afterMode": -1}]}"#.into(),
            "expected u32",
        ),
    ];
    for (doc, said) in &cases {
        let (code, out) = edit_stdin(&b, &[&session, "--turn", &t], doc.as_bytes());
        assert_eq!(
            (code, out["error"]["code"].as_str()),
            (1, Some("invalid_input")),
            "{doc}: {out}"
        );
        let message = out["error"]["message"].as_str().expect("message");
        assert!(
            message.contains(said),
            "{doc}: {message:?} should say {said:?}"
        );
    }
    // A path outside the workspace is the engine's invalid_path.
    let (code, out) = edit_stdin(
        &b,
        &[&session, "--turn", &t],
        br#"{"files": [{"path": "../x", "before": null, "after": {"text": "x"}}]}"#,
    );
    assert_eq!(
        (code, out["error"]["code"].as_str()),
        (1, Some("invalid_path")),
        "{out}"
    );

    let cps = b.ok(&["checkpoints", &session]);
    assert!(
        cps.as_array().expect("list").is_empty(),
        "nothing recorded: {cps}"
    );
    assert_eq!(b.read("a.txt").as_deref(), Some(&b"now\n"[..]), "untouched");
}

#[test]
fn stdin_excludes_the_single_file_flags_and_is_bounded() {
    let b = Bench::new();
    let (session, t) = turn(&b);
    for extra in [
        &["--path", "a.txt"][..],
        &["--created"],
        &["--deleted"],
        &["--before-file", "/dev/null"],
        &["--after-file", "/dev/null"],
    ] {
        let out = b
            .command()
            .args(["edit", &session, "--turn", &t, "--stdin"])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
    // Neither --stdin nor a --path: a usage error, as before.
    assert_eq!(
        b.text(&["edit", &session, "--turn", &t]).status.code(),
        Some(2)
    );

    // One byte over 256 MiB: refused, nothing recorded.
    let mut big = Vec::with_capacity((256 << 20) + 1);
    big.extend_from_slice(br#"{"files": [], "pad": ""#);
    big.resize((256 << 20) + 1, b' ');
    let (code, out) = edit_stdin(&b, &[&session, "--turn", &t], &big);
    assert_eq!(
        (code, out["error"]["code"].as_str()),
        (1, Some("invalid_input")),
        "{out}"
    );
    let message = out["error"]["message"].as_str().expect("message");
    assert!(message.contains("larger than 256 MiB"), "{message}");
    assert!(
        b.ok(&["checkpoints", &session])
            .as_array()
            .expect("list")
            .is_empty()
    );
}
