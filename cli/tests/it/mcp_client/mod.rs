//! A client for `rewind mcp` tests: the real binary over stdio, raw JSON-RPC lines, and a
//! session to act on.

#![allow(dead_code)]

use crate::common::{Bench, s};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `rewind mcp` and the lines it writes.
pub(crate) struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next: u64,
}

impl Mcp {
    pub(crate) fn start(b: &Bench) -> Self {
        let mut child = b
            .command()
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start rewind mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            next: 100,
        }
    }

    /// Started and initialized with these client capabilities.
    pub(crate) fn ready(b: &Bench, capabilities: Value) -> Self {
        let mut m = Self::start(b);
        let r = m.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities,
                "clientInfo": { "name": "cli_mcp", "version": "1" } }),
        );
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
        m.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        m
    }

    pub(crate) fn send_raw(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to rewind mcp");
        self.stdin.flush().expect("flush");
    }

    /// The next line the server writes, as JSON (within 20 s).
    pub(crate) fn read(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("rewind mcp answered nothing");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send_raw(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string(),
        );
        let reply = self.read();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// `tools/call`'s result.
    pub(crate) fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        );
        assert!(r["error"].is_null(), "{name}: {r}");
        r["result"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A session with two turns: #1 changes a.txt (one → two), #2 creates b.txt.
pub(crate) fn two_turns(b: &Bench) -> String {
    b.write("a.txt", b"one\n");
    let session = s(&b.ok(&["session", "new"]), "id");
    let t1 = s(
        &b.ok(&["prompt", &session, "--text", "make it two"]),
        "turnId",
    );
    b.record(&session, &t1, "a.txt", Some(b"one\n"), b"two\n", &[]);
    b.ok(&["turn-end", &session, "--turn", &t1]);
    let t2 = s(
        &b.ok(&["prompt", &session, "--text", "add b\nsecond line"]),
        "turnId",
    );
    b.record(&session, &t2, "b.txt", None, b"bee\n", &["--tool", "Write"]);
    b.ok(&["turn-end", &session, "--turn", &t2]);
    session
}

pub(crate) fn operations(b: &Bench) -> usize {
    b.ok(&["ops"]).as_array().expect("ops is a list").len()
}
