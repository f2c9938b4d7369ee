//! The attacks' tools: a server over a scratch root, raw requests with our Host and token
//! or without, the refusal shape every non-200 answer has, crowds of stalled clients.

#![allow(dead_code)]

use crate::common::serve::{Endpoint, Response, http, http_server, raw, rpc_ok};
use serde_json::{Value, json};
use std::io::Write as _;
use std::net::TcpStream;
use std::process::Child;
use std::time::Duration;

pub(crate) fn start(dir: &tempfile::TempDir, extra: &[&str]) -> (Child, Endpoint) {
    let root = dir.path().display().to_string();
    let mut args = vec!["--root", root.as_str()];
    args.extend_from_slice(extra);
    http_server(&args, &[])
}

pub(crate) fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// `POST /rpc` with these header lines (each ending in CRLF) and `body`.
pub(crate) fn post(headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /rpc HTTP/1.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The header lines of a proper call: our Host, the token, JSON.
pub(crate) fn proper(ep: Endpoint) -> String {
    format!(
        "Host: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n",
        ep.addr.port(),
        ep.token
    )
}

/// A refusal: `status`, and the JSON-RPC error object the README promises, with `code`.
pub(crate) fn refused(r: &Response, status: u16, code: &str) -> String {
    assert_eq!(r.status, status, "{r:?}");
    let v = r.json();
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    assert_eq!(v["id"], Value::Null, "{v}");
    assert!(v["error"]["code"].is_i64(), "{v}");
    assert_eq!(v["error"]["data"]["code"], code, "{v}");
    assert!(r.head.contains("Content-Length:"), "{}", r.head);
    v["error"]["message"].as_str().expect("message").to_owned()
}

/// The server still runs and still answers a normal client.
pub(crate) fn alive(child: &mut Child, ep: Endpoint) {
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "the server died"
    );
    assert_eq!(http(ep.addr, "GET", "/health", "", None).0, 200);
    assert!(rpc_ok(ep, "listSessions", json!([])).is_array());
}

pub(crate) fn create(title: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "createSession", "params": [{ "title": title }] })
        .to_string()
}

/// A chunked POST /rpc of these chunks (each `(size line, data)`), then the end.
pub(crate) fn chunked(ep: Endpoint, chunks: &[(&str, &str)]) -> Response {
    let mut req = format!(
        "POST /rpc HTTP/1.1\r\n{}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        proper(ep)
    );
    for (size, data) in chunks {
        req.push_str(&format!("{size}\r\n{data}\r\n"));
    }
    req.push_str("0\r\nX-Trailer: yes\r\n\r\n");
    raw(ep.addr, req.as_bytes())
}

/// A connection that sent `bytes` and then nothing.
pub(crate) fn stalled(ep: Endpoint, bytes: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(ep.addr).expect("connect");
    s.write_all(bytes).expect("send");
    s.set_read_timeout(Some(Duration::from_secs(15)))
        .expect("timeout");
    s
}

/// 50 connections stopped halfway through a head and 10 halfway through a body.
pub(crate) fn crowd(ep: Endpoint) -> (Vec<TcpStream>, Vec<TcpStream>) {
    let heads = (0..50)
        .map(|_| stalled(ep, b"POST /rpc HTTP/1.1\r\nHost: localhost\r\nX-Slow: "))
        .collect();
    let head = format!(
        "POST /rpc HTTP/1.1\r\n{}Content-Length: 5000\r\n\r\n{{\"jsonr",
        proper(ep)
    );
    let bodies = (0..10).map(|_| stalled(ep, head.as_bytes())).collect();
    (heads, bodies)
}
