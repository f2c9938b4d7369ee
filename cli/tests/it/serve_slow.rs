//! `rewind serve --http` against slow and stalled clients (slow heads, stalled bodies, idle
//! kept-alive connections, more connections than allowed): they cost a socket each, never a
//! worker, a normal client keeps being answered beside them, and SIGTERM still stops the
//! server at once. Also: every refusal the server makes is a JSON-RPC error object.

use crate::common;
use crate::common::serve_attack as attack;

use attack::{alive, crowd, post, proper, refused, stalled, start, stop};
use common::serve::{http, raw, read_response, rpc_ok};
use serde_json::json;
use std::io::Write as _;
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[test]
fn slow_clients_cost_a_socket_not_a_worker() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = [
        "--workers",
        "2",
        "--read-timeout",
        "3",
        "--idle-timeout",
        "0.5",
    ];
    let (mut child, ep) = start(&dir, &args);
    let began = Instant::now();
    let (mut heads, mut bodies) = crowd(ep);
    // While all of them hold their sockets, a normal client is answered at once, again and
    // again.
    let mut slowest = Duration::ZERO;
    for i in 0..5 {
        let t = Instant::now();
        assert_eq!(http(ep.addr, "GET", "/health", "", None).0, 200);
        rpc_ok(ep, "createSession", json!([{ "title": format!("s{i}") }]));
        slowest = slowest.max(t.elapsed());
    }
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "the crowd was gone: {:?}",
        began.elapsed()
    );
    assert!(
        slowest < Duration::from_secs(1),
        "a normal call took {slowest:?}"
    );
    eprintln!("slowest normal exchange beside 60 stalled clients: {slowest:?}");
    // Their time up, the stalled get a 408 each and are closed.
    let r = read_response(&mut bodies[0]).expect("a 408");
    refused(&r, 408, "unavailable");
    let r = read_response(&mut heads[0]).expect("a 408");
    refused(&r, 408, "unavailable");
    assert!(began.elapsed() >= Duration::from_secs(3));
    // A kept-alive connection idle past --idle-timeout is closed.
    let mut s = TcpStream::connect(ep.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let health = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n";
    s.write_all(health.repeat(2).as_bytes()).expect("send");
    assert_eq!(read_response(&mut s).expect("first").status, 200);
    assert_eq!(read_response(&mut s).expect("pipelined").status, 200);
    let t = Instant::now();
    assert!(
        read_response(&mut s).is_err(),
        "the idle connection was not closed"
    );
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    heads.clear();
    bodies.clear();
    alive(&mut child, ep);
    assert_eq!(
        rpc_ok(ep, "listSessions", json!([]))
            .as_array()
            .map(Vec::len),
        Some(5)
    );
    stop(child);
}

#[cfg(unix)]
#[test]
fn sigterm_with_stalled_clients_connected_exits_promptly() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The default 10 s read timeout: only the stop can end these clients in time.
    let (mut child, ep) = start(&dir, &[]);
    let (heads, mut bodies) = crowd(ep);
    // And one idle kept-alive connection.
    let mut idle = TcpStream::connect(ep.addr).expect("connect");
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .expect("send");
    assert_eq!(read_response(&mut idle).expect("health").status, 200);
    let t = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let code = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status.code();
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(0));
    eprintln!(
        "exited {:?} after SIGTERM with 61 clients connected",
        t.elapsed()
    );
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // The stalled body was told the server stops (or simply closed); nothing listens now.
    if let Ok(r) = read_response(&mut bodies[0]) {
        refused(&r, 503, "unavailable");
    }
    drop(heads);
    assert!(TcpStream::connect(ep.addr).is_err());
}

#[test]
fn every_refusal_is_a_json_rpc_error_with_its_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = [
        "--max-body",
        "64",
        "--read-timeout",
        "1",
        "--max-connections",
        "8",
    ];
    let (mut child, ep) = start(&dir, &args);
    let get = |path: &str| format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").into_bytes();
    let big = format!(
        "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: {}\r\n\r\n",
        "a".repeat(70_000)
    );
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"GARBAGE\r\n\r\n".to_vec(), 400, "invalid_input"),
        (
            b"GET /health HTTP/1.1\r\n\r\n".to_vec(),
            400,
            "invalid_input",
        ),
        (
            b"GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".to_vec(),
            400,
            "invalid_input",
        ),
        (
            post(
                "Host: localhost\r\nContent-Type: application/json\r\n",
                "{}",
            ),
            401,
            "untrusted",
        ),
        (
            b"GET /health HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_vec(),
            403,
            "untrusted",
        ),
        (get("/nowhere"), 404, "not_found"),
        (get("/rpc"), 405, "invalid_input"),
        (
            b"DELETE /health HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec(),
            405,
            "invalid_input",
        ),
        (post(&proper(ep), &" ".repeat(65)), 413, "invalid_input"),
        (
            post(&proper(ep).replace("application/json", "text/plain"), "{}"),
            415,
            "invalid_input",
        ),
        (
            format!(
                "POST /rpc HTTP/1.1\r\n{}Expect: magic\r\nContent-Length: 2\r\n\r\n{{}}",
                proper(ep)
            )
            .into_bytes(),
            417,
            "invalid_input",
        ),
        (big.into_bytes(), 431, "invalid_input"),
        (
            format!(
                "POST /rpc HTTP/1.1\r\n{}Transfer-Encoding: gzip\r\n\r\n",
                proper(ep)
            )
            .into_bytes(),
            501,
            "invalid_input",
        ),
        (
            b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Half".to_vec(),
            408,
            "unavailable",
        ),
        (
            format!(
                "POST /rpc HTTP/1.1\r\n{}Content-Length: 10\r\n\r\n{{",
                proper(ep)
            )
            .into_bytes(),
            408,
            "unavailable",
        ),
    ];
    for (request, status, code) in &cases {
        refused(&raw(ep.addr, request), *status, code);
    }
    // Past --max-connections: 503, while the held ones wait (once the connections above
    // have all been closed on the server's side too).
    std::thread::sleep(Duration::from_millis(300));
    let held: Vec<TcpStream> = (0..8).map(|_| stalled(ep, b"GET /he")).collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut extra = TcpStream::connect(ep.addr).expect("connect");
    extra
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    refused(
        &read_response(&mut extra).expect("a 503"),
        503,
        "unavailable",
    );
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    alive(&mut child, ep);
    stop(child);
}

#[test]
fn a_client_that_does_not_read_its_answer_is_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, ep) = start(&dir, &["--write-timeout", "1"]);
    // An answer far larger than the sockets' buffers: a batch of resumes of a session holding
    // a 1 MB prompt.
    let session = rpc_ok(ep, "createSession", json!([{}]))["id"].clone();
    let text = "x".repeat(1 << 20);
    rpc_ok(ep, "recordPrompt", json!([session, { "text": text }]));
    let batch: Vec<_> = (0..40)
        .map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "resume", "params": [session] }))
        .collect();
    let mut s = stalled(ep, &post(&proper(ep), &json!(batch).to_string()));
    // Never read while the server writes: it gives up after --write-timeout.
    std::thread::sleep(Duration::from_millis(2500));
    alive(&mut child, ep);
    let mut got = Vec::new();
    let _ = std::io::Read::read_to_end(&mut s, &mut got);
    let head = String::from_utf8_lossy(&got[..got.len().min(400)]).into_owned();
    let announced: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no length in {head:?}"));
    assert!(announced > 40 << 20, "{announced}");
    assert!(
        got.len() < announced,
        "the whole answer arrived: {}",
        got.len()
    );
    eprintln!(
        "a reader that stalled got {} of {announced} bytes",
        got.len()
    );
    stop(child);
}
