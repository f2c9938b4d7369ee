//! `rewind serve --http` attacked over real sockets, as a web page, a DNS-rebinding page and
//! a lying or huge upload would, while a normal client keeps working: each attack is refused
//! with a JSON-RPC error object carrying the stable code, changes nothing, and takes neither a
//! worker nor the server down. Slow clients and the stop: serve_slow.rs.

use crate::common;
use crate::common::serve_attack as attack;

use attack::{alive, chunked, create, post, proper, refused, start, stop};
use common::serve::{raw, rewind, rpc_ok};
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn a_web_page_cannot_drive_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, ep) = start(&dir, &[]);
    let port = ep.addr.port();
    let auth = format!("Authorization: Bearer {}\r\n", ep.token);
    let json = "Content-Type: application/json\r\n";
    // What a page sends: a "simple" request (text/plain, no preflight), its own Host, its
    // Origin, no token.
    let page = "Host: evil.example\r\nOrigin: http://evil.example\r\n\
                Content-Type: text/plain;charset=UTF-8\r\n";
    refused(
        &raw(ep.addr, &post(page, &create("page"))),
        403,
        "untrusted",
    );
    // Each door holds alone, even given the token: a rebinding page's Host (its name, now
    // resolving to 127.0.0.1, on our port), a foreign or opaque Origin, a text body, none.
    let ours = format!("Host: localhost:{port}\r\n");
    let cases = [
        (
            format!("Host: evil.example:{port}\r\n{auth}{json}"),
            403,
            "untrusted",
        ),
        (
            format!("Host: 127.0.0.1.nip.io:{port}\r\n{auth}{json}"),
            403,
            "untrusted",
        ),
        (
            format!("Host: localhost:1\r\n{auth}{json}"),
            403,
            "untrusted",
        ),
        (
            format!("{ours}Origin: http://evil.example\r\n{auth}{json}"),
            403,
            "untrusted",
        ),
        (
            format!("{ours}Origin: http://localhost:{port}\r\n{auth}{json}"),
            403,
            "untrusted",
        ),
        (
            format!("{ours}Origin: null\r\n{auth}{json}"),
            403,
            "untrusted",
        ),
        (
            format!("{ours}{auth}Content-Type: text/plain\r\n"),
            415,
            "invalid_input",
        ),
        (
            format!("{ours}{auth}Content-Type: application/x-www-form-urlencoded\r\n"),
            415,
            "invalid_input",
        ),
        (format!("{ours}{auth}"), 415, "invalid_input"),
        (format!("{ours}{json}"), 401, "untrusted"),
        (format!("{json}{auth}"), 400, "invalid_input"),
    ];
    for (headers, status, code) in &cases {
        let r = raw(ep.addr, &post(headers, &create("page")));
        refused(&r, *status, code);
    }
    // A rebinding page reading /health is refused too.
    let r = raw(
        ep.addr,
        b"GET /health HTTP/1.1\r\nHost: evil.example\r\n\r\n",
    );
    refused(&r, 403, "untrusted");
    // Nothing was opened: no database, and a proper client (and the CLI) sees no session.
    assert!(!dir.path().join(".rewind/rewind.db").exists());
    assert_eq!(rpc_ok(ep, "listSessions", json!([])), json!([]));
    let out = rewind()
        .args(["session", "list", "--json", "--workspace"])
        .arg(dir.path())
        .output()
        .expect("session list");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    // The proper call goes through, with parameters on its media type.
    let headers = proper(ep).replace("json\r\n", "json; charset=utf-8\r\n");
    let r = raw(ep.addr, &post(&headers, &create("mine")));
    assert_eq!(r.status, 200, "{r:?}");
    alive(&mut child, ep);
    stop(child);
}

#[test]
fn configured_hosts_and_origins_are_let_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("serve.json");
    let cfg = json!({ "hosts": ["cfg.box"], "origins": ["http://cfg.example"] });
    std::fs::write(&config, cfg.to_string()).expect("config");
    let config = config.display().to_string();
    let args = [
        "--allow-host",
        "dev.box",
        "--allow-origin",
        "http://app.example:5173",
        "--config",
        &config,
    ];
    let (mut child, ep) = start(&dir, &args);
    let port = ep.addr.port();
    let with = |host: &str, origin: &str| {
        let headers = proper(ep).replace(
            &format!("Host: 127.0.0.1:{port}\r\n"),
            &format!("Host: {host}\r\nOrigin: {origin}\r\n"),
        );
        raw(ep.addr, &post(&headers, &create("allowed")))
    };
    for (host, origin) in [
        (format!("dev.box:{port}"), "http://app.example:5173"),
        ("cfg.box".to_owned(), "http://cfg.example"),
    ] {
        let r = with(&host, origin);
        assert_eq!(r.status, 200, "{r:?}");
        assert!(
            r.head
                .contains(&format!("Access-Control-Allow-Origin: {origin}\r\n")),
            "{}",
            r.head
        );
    }
    refused(&with("other.box", "http://cfg.example"), 403, "untrusted");
    refused(&with("dev.box", "http://app.example"), 403, "untrusted");
    // A browser's preflight from an allowed origin is granted; from another, refused.
    let preflight = |origin: &str| {
        let head = format!(
            "OPTIONS /rpc HTTP/1.1\r\nHost: localhost\r\nOrigin: {origin}\r\n\
             Access-Control-Request-Method: POST\r\n\
             Access-Control-Request-Headers: authorization, content-type\r\n\r\n"
        );
        raw(ep.addr, head.as_bytes())
    };
    let granted = preflight("http://cfg.example");
    assert_eq!(granted.status, 204, "{granted:?}");
    assert!(
        granted
            .head
            .contains("Access-Control-Allow-Headers: Authorization, Content-Type")
    );
    assert!(
        granted
            .head
            .contains("Access-Control-Allow-Origin: http://cfg.example")
    );
    refused(&preflight("http://evil.example"), 403, "untrusted");
    assert_eq!(
        rpc_ok(ep, "listSessions", json!([]))
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    alive(&mut child, ep);
    stop(child);
}

#[test]
fn huge_and_lying_lengths_are_refused_before_reading() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, ep) = start(&dir, &["--max-body", "1024"]);
    let lengths = [
        "1000000000000",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999999",
        "1025",
    ];
    // All at once (the old server died of two), no body sent: each answered at once.
    std::thread::scope(|s| {
        for length in lengths.iter().chain(&lengths) {
            s.spawn(move || {
                let t = Instant::now();
                let head = format!(
                    "POST /rpc HTTP/1.1\r\n{}Content-Length: {length}\r\n\r\n",
                    proper(ep)
                );
                let message = refused(&raw(ep.addr, head.as_bytes()), 413, "invalid_input");
                assert!(message.contains("1024 bytes"), "{message}");
                assert!(
                    t.elapsed() < Duration::from_secs(3),
                    "{length}: {:?}",
                    t.elapsed()
                );
                // Without the token: 401 at once, without waiting for the body either.
                let head = format!(
                    "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                     Content-Length: {length}\r\n\r\n"
                );
                refused(&raw(ep.addr, head.as_bytes()), 401, "untrusted");
            });
        }
    });
    alive(&mut child, ep);
    // Exactly the cap is served; lengths that are not numbers or disagree are refused.
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "listSessions" }).to_string();
    let padded = format!("{call:<1024}");
    let r = raw(ep.addr, &post(&proper(ep), &padded));
    assert_eq!(
        (r.status, r.json()["result"].clone()),
        (200, json!([])),
        "{r:?}"
    );
    for bad in [
        "Content-Length: 12abc\r\n",
        "Content-Length: -1\r\n",
        "Content-Length: 2\r\nContent-Length: 3\r\n",
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    ] {
        let head = format!("POST /rpc HTTP/1.1\r\n{}{bad}\r\n", proper(ep));
        refused(&raw(ep.addr, head.as_bytes()), 400, "invalid_input");
    }
    alive(&mut child, ep);
    stop(child);
}

#[test]
fn a_chunked_body_is_capped_as_it_grows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, ep) = start(&dir, &["--max-body", "1024"]);
    // Under the cap, in pieces, with an extension and a trailer: served.
    let (a, b) = r#"{"jsonrpc":"2.0","id":1,"method":"listSessions"}"#.split_at(20);
    let r = chunked(
        ep,
        &[
            (&format!("{:x};ext=1", a.len()), a),
            (&format!("{:x}", b.len()), b),
        ],
    );
    assert_eq!(
        (r.status, r.json()["result"].clone()),
        (200, json!([])),
        "{r:?}"
    );
    // Chunks that together pass the cap; one chunk that says it is huge.
    let filler = " ".repeat(500);
    let f = filler.as_str();
    refused(
        &chunked(ep, &[("1f4", f), ("1f4", f), ("1f4", f)]),
        413,
        "invalid_input",
    );
    refused(
        &chunked(ep, &[("ffffffffffffffff", "x")]),
        413,
        "invalid_input",
    );
    refused(
        &chunked(ep, &[("10000000000000000", "x")]),
        400,
        "invalid_input",
    );
    refused(&chunked(ep, &[("zz", "x")]), 400, "invalid_input");
    refused(&chunked(ep, &[("2", "xyz")]), 400, "invalid_input");
    alive(&mut child, ep);
    stop(child);
}
