//! `rewind serve --http` with real clients over TCP: health, the token (given, or generated
//! into a 0600 file and kept), batches, many clients recording at once (nothing lost), clients
//! racing one precondition (one winner), and a graceful stop while an apply runs. Attacks on
//! the server (other origins, rebinding, lying lengths, slow clients) are in serve_attack.rs.

use crate::common;

use common::serve::{
    Endpoint, banner, count, http, http_server, many_files, rewind, rpc, rpc_ok, shown_token,
};
use serde_json::{Value, json};
use std::process::Child;

fn stop(mut child: Child) -> i32 {
    let _ = child.kill();
    child.wait().expect("wait").code().unwrap_or(-1)
}

fn root_arg(dir: &tempfile::TempDir) -> [String; 2] {
    ["--root".into(), dir.path().display().to_string()]
}

fn start(dir: &tempfile::TempDir) -> (Child, Endpoint) {
    let [a, b] = root_arg(dir);
    http_server(&[&a, &b], &[])
}

#[test]
fn health_routes_and_batches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, ep) = start(&dir);
    let addr = ep.addr;
    assert_eq!(
        http(addr, "GET", "/health", "", None),
        (200, r#"{"status":"ok"}"#.into())
    );
    assert_eq!(http(addr, "GET", "/rpc", "", None).0, 405);
    assert_eq!(http(addr, "GET", "/elsewhere", "", None).0, 404);
    // A batch: answered in order, the notification left out.
    let batch = json!([
        { "jsonrpc": "2.0", "method": "createSession", "params": [{ "title": "b" }], "id": 1 },
        { "jsonrpc": "2.0", "method": "listSessions" },
        { "jsonrpc": "2.0", "method": "listSessions", "id": 2 },
    ]);
    let (status, body) = http(addr, "POST", "/rpc", &batch.to_string(), Some(ep.token));
    assert_eq!(status, 200, "{body}");
    let replies: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(replies.as_array().map(Vec::len), Some(2), "{replies}");
    assert_eq!(replies[1]["result"][0]["id"], replies[0]["result"]["id"]);
    // Only notifications: no content; not JSON: a parse error.
    let note = json!({ "jsonrpc": "2.0", "method": "listSessions" }).to_string();
    assert_eq!(
        http(addr, "POST", "/rpc", &note, Some(ep.token)),
        (204, String::new())
    );
    let (status, body) = http(addr, "POST", "/rpc", "{oops", Some(ep.token));
    let parsed: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!((status, &parsed["error"]["code"]), (200, &json!(-32700)));
    stop(child);
}

#[test]
fn a_configured_token_is_required_on_rpc() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [a, b] = root_arg(&dir);
    let (child, ep) = http_server(&[&a, &b], &[("REWIND_SERVE_TOKEN", "s3cret")]);
    let addr = ep.addr;
    let call = json!({ "jsonrpc": "2.0", "method": "listSessions", "id": 1 }).to_string();
    assert_eq!(http(addr, "GET", "/health", "", None).0, 200);
    // Missing and wrong are told apart; both are 401 `untrusted` in the JSON-RPC shape.
    let refused = |token: Option<&str>| {
        let (status, body) = http(addr, "POST", "/rpc", &call, token);
        assert_eq!(status, 401, "{body}");
        let reply: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(reply["error"]["data"]["code"], "untrusted", "{reply}");
        assert_eq!(reply["id"], Value::Null);
        reply["error"]["message"]
            .as_str()
            .expect("message")
            .to_owned()
    };
    let missing = refused(None);
    assert!(missing.contains("a token is required"), "{missing}");
    for wrong in ["wrong", "s3cret!", "s3cre", ""] {
        let message = refused(Some(wrong));
        assert!(message.contains("the token is wrong"), "{message}");
        assert!(!message.contains("s3cret"), "the token leaked: {message}");
    }
    let (status, body) = http(addr, "POST", "/rpc", &call, Some("s3cret"));
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"jsonrpc":"2.0","result":[],"id":1}"#)
    );
    stop(child);
    // A given token is not written anywhere.
    assert!(!dir.path().join(".rewind/serve-token").exists());
    // Reachable from elsewhere without a token given: refused at the start.
    let out = rewind()
        .args(["serve", "--http", "0.0.0.0:0", &a, &b])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("token"));
}

#[cfg(unix)]
#[test]
fn a_generated_token_is_private_printed_and_kept() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join(".rewind/serve-token");
    let (child, ep) = start(&dir);
    let meta = std::fs::symlink_metadata(&file).expect("the token file");
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let kept = std::fs::read_to_string(&file).expect("read");
    assert_eq!(kept.trim(), ep.token, "the printed token is the file's");
    assert_eq!(ep.token.len(), 64);
    rpc_ok(ep, "createSession", json!([{ "title": "t" }]));
    stop(child);
    // Started again: the same token, the file untouched.
    let (child, again) = start(&dir);
    assert_eq!(again.token, ep.token);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), kept);
    assert_eq!(
        rpc_ok(again, "listSessions", json!([]))
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    stop(child);
    // A token file anyone else could read, a link, a directory: refused, not trusted or
    // repaired.
    let refused = |why: &str| {
        let [a, b] = root_arg(&dir);
        let out = rewind()
            .args(["serve", "--http", "0", &a, &b])
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(why) && err.contains("serve-token"), "{err}");
    };
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    refused("readable by others");
    std::fs::remove_file(&file).expect("rm");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::write(&elsewhere, &kept).expect("write");
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::os::unix::fs::symlink(&elsewhere, &file).expect("symlink");
    refused("symbolic link");
    std::fs::remove_file(&file).expect("rm");
    std::fs::create_dir(&file).expect("mkdir");
    refused("not a regular file");
    // Removed: a new one is made.
    std::fs::remove_dir(&file).expect("rmdir");
    let (child, fresh) = start(&dir);
    assert_ne!(fresh.token, ep.token);
    stop(child);
}

#[test]
fn concurrent_clients_lose_no_write() {
    const CLIENTS: usize = 8;
    const EACH: usize = 10;
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, addr) = start(&dir);
    let session = rpc_ok(addr, "createSession", json!([{}]))["id"].clone();
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let session = session.clone();
            s.spawn(move || {
                for i in 0..EACH {
                    let text = format!("client {c} prompt {i}");
                    rpc_ok(addr, "recordPrompt", json!([session, { "text": text }]));
                }
            });
        }
    });
    let state = rpc_ok(addr, "resume", json!([session]));
    let mut texts: Vec<String> = state["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["text"].as_str().map(str::to_owned))
        .collect();
    texts.sort();
    let mut want: Vec<String> = (0..CLIENTS)
        .flat_map(|c| (0..EACH).map(move |i| format!("client {c} prompt {i}")))
        .collect();
    want.sort();
    assert_eq!(texts, want);
    stop(child);
}

#[test]
fn racing_clients_have_exactly_one_winner() {
    const FILES: usize = 200;
    let dir = tempfile::tempdir().expect("tempdir");
    let (session, prompt) = many_files(dir.path(), FILES);
    let (child, addr) = start(&dir);
    let race = |method: &str, opts: Value| -> Vec<Value> {
        std::thread::scope(|s| {
            let calls: Vec<_> = (0..4)
                .map(|_| s.spawn(|| rpc(addr, method, json!([session, opts]))))
                .collect();
            calls
                .into_iter()
                .map(|c| c.join().expect("client"))
                .collect()
        })
    };
    // Four applies of one rewind: one writes the files, the rest find nothing to do (or are
    // refused while it runs); the log has one rewind.
    let applies = race("applyFileRewind", json!({ "since": prompt }));
    let won = applies
        .iter()
        .filter(|r| r["result"]["applied"] == true)
        .count();
    assert_eq!(won, 1, "{applies:?}");
    assert_eq!(count(dir.path(), FILES, "before"), FILES);
    let ops = rpc_ok(addr, "operations", json!([session]));
    let rewinds = ops
        .as_array()
        .expect("ops")
        .iter()
        .filter(|o| o["kind"] == "file_rewind");
    assert_eq!(rewinds.count(), 1, "{ops}");
    // Four forks with one command id: one child, the others replay it.
    let forks = race("fork", json!({ "at": prompt, "commandId": "cmd_race" }));
    let children: std::collections::BTreeSet<String> = forks
        .iter()
        .map(|r| r["result"]["childId"].as_str().expect("childId").to_owned())
        .collect();
    assert_eq!(children.len(), 1, "{forks:?}");
    let fresh = forks
        .iter()
        .filter(|r| r["result"]["replayed"] == false)
        .count();
    assert_eq!(fresh, 1, "{forks:?}");
    assert_eq!(
        rpc_ok(addr, "listSessions", json!([]))
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    stop(child);
}

#[cfg(unix)]
#[test]
fn sigterm_lets_a_running_apply_finish() {
    const FILES: usize = 400;
    let dir = tempfile::tempdir().expect("tempdir");
    let (session, prompt) = many_files(dir.path(), FILES);
    let (mut child, ep) = start(&dir);
    let ws = dir.path();
    std::thread::scope(|s| {
        let apply = s.spawn(|| rpc(ep, "applyFileRewind", json!([session, { "since": prompt }])));
        // Once the apply has written a file (and is still going), ask the server to stop.
        while count(ws, FILES, "before") == 0 && !apply.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let mid = count(ws, FILES, "before") < FILES;
        let killed = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        let reply = apply.join().expect("client");
        assert_eq!(reply["result"]["applied"], json!(true), "{reply}");
        eprintln!("signal arrived mid-apply: {mid}");
    });
    assert_eq!(count(ws, FILES, "before"), FILES);
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    // Stopped: nothing listens any more.
    assert!(std::net::TcpStream::connect(ep.addr).is_err());
}

#[test]
fn servers_starting_at_once_share_one_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [a, b] = root_arg(&dir);
    // Spawned together, before any has printed: one makes the file, the others read it whole.
    let mut children: Vec<Child> = (0..4)
        .map(|_| {
            rewind()
                .args(["serve", "--http", "0", &a, &b])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let tokens: std::collections::BTreeSet<String> = children
        .iter_mut()
        .map(|c| shown_token(&banner(c).token_line).expect("a token"))
        .collect();
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    let file = std::fs::read_to_string(dir.path().join(".rewind/serve-token")).expect("read");
    assert_eq!(tokens.first().map(String::as_str), Some(file.trim()));
    for c in children {
        stop(c);
    }
}
