//! `rewind serve --stdio` driven as a client would: the JSON-RPC spec's examples, a whole
//! session with bytes in base64 (and the Python client's session and the example of docs/server.md), and
//! the roots a server may touch.

use crate::common;

use common::serve::{StdioServer, rewind};
use serde_json::{Value, json};
use std::path::Path;

/// An error reply's (JSON-RPC code, stable rewind code).
fn error(r: &Value) -> (i64, String) {
    let e = &r["error"];
    assert!(e.is_object(), "not an error: {r}");
    let code = e["data"]["code"].as_str().expect("data.code").to_owned();
    (e["code"].as_i64().expect("code"), code)
}

/// A reply as the fixture can state it: `data` dropped, the message cut to the expected one
/// (the server adds what exactly was wrong after the spec's words).
fn comparable(got: &Value, want: &Value) -> Value {
    match (got, want) {
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => {
            Value::Array(g.iter().zip(w).map(|(g, w)| comparable(g, w)).collect())
        }
        (Value::Object(_), Value::Object(_)) if got.get("error").is_some() => {
            let mut g = got.clone();
            let e = g["error"].as_object_mut().expect("error object");
            assert!(e.remove("data").is_some(), "no data in {got}");
            let (msg, prefix) = (e["message"].as_str(), want["error"]["message"].as_str());
            if let (Some(msg), Some(prefix)) = (msg, prefix) {
                assert!(
                    msg.starts_with(prefix),
                    "{msg:?} does not start with {prefix:?}"
                );
                e.insert("message".into(), json!(prefix));
            }
            g
        }
        _ => got.clone(),
    }
}

#[test]
fn the_json_rpc_spec_examples() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = include_str!("../fixtures/serve/jsonrpc-spec.txt");
    let mut server = StdioServer::start(dir.path(), &[]);
    let mut checked = 0;
    let mut pending: Option<String> = None;
    for line in fixture.lines() {
        if let Some(req) = line.strip_prefix("--> ") {
            server.send(req);
            pending = Some(req.to_owned());
        } else if let Some(want) = line.strip_prefix("<-- ") {
            let want: Value = serde_json::from_str(want).expect("fixture reply");
            let got = server.reply();
            let req = pending.take().expect("a reply follows a request");
            assert_eq!(comparable(&got, &want), want, "request: {req}");
            checked += 1;
        }
    }
    assert!(checked == 13, "{checked} replies checked");
    // Notifications got nothing (else a reply would be left over), and nothing was created.
    assert_eq!(server.finish(), 0);
    assert!(!dir.path().join(".rewind").exists());
}

#[test]
fn a_whole_session_with_base64_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path();
    let mut s = StdioServer::start(ws, &[]);
    let id = s.ok("createSession", json!([{ "title": "stdio" }]))["id"].clone();
    let p = s.ok("recordPrompt", json!([id, { "text": "make it binary" }]));
    // Not UTF-8: only base64 carries these bytes.
    std::fs::write(ws.join("bin.dat"), [0xff, 0x00, 0xfe]).expect("write");
    s.ok(
        "recordEdit",
        json!([id, { "turnId": p["turnId"], "path": "bin.dat", "toolName": "Write",
                     "before": "gAE=", "after": { "base64": "/wD+" } }]),
    );
    s.ok("completeTurn", json!([id, { "turnId": p["turnId"] }]));
    let since = json!({ "since": p["messageId"] });
    let preview = s.ok("previewFileRewind", json!([id, since]));
    assert_eq!(preview["canApply"], json!(true), "{preview}");
    let applied = s.ok("applyFileRewind", json!([id, since]));
    assert_eq!(applied["applied"], json!(true), "{applied}");
    assert_eq!(
        std::fs::read(ws.join("bin.dat")).expect("read"),
        [0x80, 0x01]
    );
    s.ok(
        "undo",
        json!([id, { "operationId": applied["operationId"] }]),
    );
    assert_eq!(
        std::fs::read(ws.join("bin.dat")).expect("read"),
        [0xff, 0x00, 0xfe]
    );
    // Bad base64 and a forgotten side are the engine's invalid_input, as in the JS API.
    let bad = s.request(
        "recordEdit",
        json!([id, { "turnId": p["turnId"], "path": "x", "toolName": "W",
                     "before": "%%%", "after": null }]),
        None,
    );
    assert_eq!(error(&bad), (-32000, "invalid_input".into()), "{bad}");
    let forgot = s.request(
        "recordEdit",
        json!([id, { "turnId": p["turnId"], "path": "x", "toolName": "W", "after": null }]),
        None,
    );
    assert_eq!(error(&forgot), (-32000, "invalid_input".into()), "{forgot}");
    // A line that is not JSON, then the server goes on.
    s.send("this is not json");
    assert_eq!(error(&s.reply()), (-32700, "invalid_input".into()));
    assert_eq!(
        s.ok("listSessions", json!([])).as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(s.finish(), 0);
}

#[test]
fn only_workspaces_inside_the_roots_are_touched() {
    let base = tempfile::tempdir().expect("tempdir");
    let (root, other) = (base.path().join("root"), base.path().join("other"));
    std::fs::create_dir_all(root.join("project")).expect("mkdir");
    std::fs::create_dir_all(&other).expect("mkdir");
    let root_arg = root.display().to_string();
    let mut s = StdioServer::start(base.path(), &["--root", &root_arg]);
    let create = json!([{ "title": "x" }]);
    let refused = |s: &mut StdioServer, ws: &Path| {
        let r = s.request("createSession", create.clone(), Some(ws));
        assert_eq!(
            error(&r),
            (-32000, "invalid_input".into()),
            "{}: {r}",
            ws.display()
        );
    };
    refused(&mut s, &other);
    refused(&mut s, &root.join("..").join("other"));
    refused(&mut s, &root.join("project/../../other"));
    refused(&mut s, Path::new("relative/path"));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&other, root.join("escape")).expect("symlink");
        refused(&mut s, &root.join("escape"));
        // A store directory that leads out of the root.
        std::fs::create_dir_all(root.join("linked")).expect("mkdir");
        std::os::unix::fs::symlink(&other, root.join("linked/.rewind")).expect("symlink");
        let r = s.request("createSession", create.clone(), Some(&root.join("linked")));
        assert_eq!(error(&r), (-32000, "untrusted".into()), "{r}");
    }
    let missing = s.request("listSessions", json!([]), Some(&root.join("nope")));
    assert_eq!(error(&missing), (-32000, "not_found".into()), "{missing}");
    assert_eq!(
        std::fs::read_dir(&other).expect("ls").count(),
        0,
        "outside touched"
    );
    // The root itself is the default workspace; a directory inside it is one of its own.
    let r = s.request("createSession", create.clone(), None);
    assert!(r["result"]["id"].is_string(), "{r}");
    assert!(root.join(".rewind/rewind.db").exists());
    let r = s.request("createSession", create.clone(), Some(&root.join("project")));
    assert!(r["result"]["id"].is_string(), "{r}");
    assert!(root.join("project/.rewind/rewind.db").exists());
    assert_eq!(s.finish(), 0);
}

#[test]
fn with_several_roots_a_request_names_its_workspace() {
    let (a, b) = (
        tempfile::tempdir().expect("a"),
        tempfile::tempdir().expect("b"),
    );
    let config = a.path().join("serve.json");
    let roots = json!({ "roots": [a.path().join("w"), b.path()] });
    std::fs::create_dir(a.path().join("w")).expect("mkdir");
    std::fs::write(&config, roots.to_string()).expect("config");
    let cfg = config.display().to_string();
    let mut s = StdioServer::start(b.path(), &["--config", &cfg]);
    let r = s.request("listSessions", json!([]), None);
    assert_eq!(error(&r), (-32000, "invalid_input".into()), "{r}");
    for ws in [a.path().join("w"), b.path().to_path_buf()] {
        let r = s.request("createSession", json!([{}]), Some(&ws));
        assert!(r["result"]["id"].is_string(), "{r}");
        assert!(ws.join(".rewind/rewind.db").exists());
    }
    // The config file's own directory is not a root.
    let r = s.request("listSessions", json!([]), Some(a.path()));
    assert_eq!(error(&r), (-32000, "invalid_input".into()), "{r}");
    assert_eq!(s.finish(), 0);
}

#[test]
fn a_bad_start_is_a_usage_or_input_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = rewind().args(["serve"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "neither --stdio nor --http");
    let missing = dir.path().join("missing").display().to_string();
    let out = rewind()
        .args(["serve", "--stdio", "--root", &missing])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid_input"));
}

fn python(script: &str, args: &[&Path], cwd: &Path) {
    let bin = Path::new(env!("CARGO_BIN_EXE_rewind"));
    let path = std::env::join_paths(
        std::iter::once(bin.parent().expect("bin dir").to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .expect("PATH");
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/clients")
        .join(script);
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(args)
        .current_dir(cwd)
        .env("PATH", path)
        .env_remove("REWIND_DB")
        .output()
        .expect("python3 (the Python client's tests need it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}: {stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_python_client_drives_a_whole_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = Path::new(env!("CARGO_BIN_EXE_rewind"));
    python("session.py", &[bin, dir.path()], dir.path());
}

#[test]
fn the_readme_python_example_runs() {
    // docs/server.md shows this very program; a change to one must be made to the other.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = std::fs::read_to_string(root.join("tests/clients/example.py")).expect("example");
    let page = std::fs::read_to_string(root.join("docs/server.md")).expect("docs/server.md");
    assert!(
        page.contains(&format!("```python\n{example}```")),
        "docs/server.md must show tests/clients/example.py word for word"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    python("example.py", &[], dir.path());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).expect("a.txt"),
        "one\n"
    );
}
