//! Driving `rewind serve`: a stdio process, an HTTP server on a free port, a bare HTTP/1.1
//! client (std only), and a turn that changed many files (for applies that take a while).

use rewind_core::model::CheckpointKind;
use rewind_core::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The binary, with no store location inherited from the environment.
pub(crate) fn rewind() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rewind"));
    c.env_remove("REWIND_DB")
        .env_remove("REWIND_SERVE_TOKEN")
        .env_remove("REWIND_TEST_PAUSE_AFTER_WRITE");
    c
}

/// `rewind serve --stdio` with `args`, one request line at a time.
pub(crate) struct StdioServer {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl StdioServer {
    pub(crate) fn start(cwd: &Path, args: &[&str]) -> Self {
        let mut child = rewind()
            .args(["serve", "--stdio"])
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn rewind serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            stdin,
            stdout,
        }
    }

    /// Write one line (no reply read).
    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Read one reply line.
    pub(crate) fn reply(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "the server ended");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// A request with id 1 (and a workspace, if given); the whole reply.
    pub(crate) fn request(&mut self, method: &str, params: Value, ws: Option<&Path>) -> Value {
        let mut r = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        if let Some(ws) = ws {
            r["workspace"] = json!(ws);
        }
        self.send(&r.to_string());
        self.reply()
    }

    /// A request that must succeed: its result.
    pub(crate) fn ok(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params, None);
        assert!(r.get("error").is_none(), "{method}: {r}");
        r["result"].clone()
    }

    /// Close stdin; the exit code.
    pub(crate) fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).expect("read");
        assert_eq!(rest, "", "output after the last reply");
        self.child.wait().expect("wait").code().expect("code")
    }
}

/// `rewind serve --http 127.0.0.1:0` with `args`; the child and the address it printed.
pub(crate) fn http_server(args: &[&str], env: &[(&str, &str)]) -> (Child, SocketAddr) {
    let mut c = rewind();
    c.args(["serve", "--http", "127.0.0.1:0"]).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rewind serve --http");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("read stderr");
    let addr = line
        .trim()
        .strip_prefix("rewind serve: listening on http://")
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .expect("address");
    // The rest of stderr goes on to ours (and never fills the pipe).
    std::thread::spawn(move || {
        for l in err.lines().map_while(Result::ok) {
            eprintln!("{l}");
        }
    });
    (child, addr)
}

/// One HTTP/1.1 request (`Connection: close`); the status and the body.
pub(crate) fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    token: Option<&str>,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         {auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("receive");
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, body.to_owned())
}

/// `POST /rpc` of one call (id 1) without a token; the whole reply.
pub(crate) fn rpc(addr: SocketAddr, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let (status, text) = http(addr, "POST", "/rpc", &body.to_string(), None);
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).expect("JSON reply")
}

/// [`rpc`] that must succeed: its result.
pub(crate) fn rpc_ok(addr: SocketAddr, method: &str, params: Value) -> Value {
    let r = rpc(addr, method, params);
    assert!(r.get("error").is_none(), "{method}: {r}");
    r["result"].clone()
}

/// The path of the `i`th file of [`many_files`].
pub(crate) fn file(i: usize) -> String {
    format!("src/m{}/f{i}.txt", i % 10)
}

/// One turn that changed `n` files from "before i" to "after i" (recorded through the library,
/// in one call); (session id, prompt message id).
pub(crate) fn many_files(ws: &Path, n: usize) -> (String, String) {
    let db = rewind_host::default_db_path(ws);
    let (mut engine, _) = rewind_host::open(ws, &db).expect("open");
    let session = engine
        .create_session(SessionOptions::default())
        .expect("session")
        .id;
    let prompt = PromptOptions {
        text: "touch everything".into(),
        payload: None,
    };
    let turn = engine.record_prompt(&session, prompt).expect("prompt");
    let mut changes = Vec::new();
    for i in 0..n {
        let p = ws.join(file(i));
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, format!("after {i}\n")).expect("write");
        changes.push(EditChange {
            path: file(i),
            before: Some(format!("before {i}\n").into_bytes()),
            after: Some(format!("after {i}\n").into_bytes()),
            patch: None,
            before_mode: None,
            after_mode: None,
        });
    }
    let edit = EditOptions {
        turn_id: turn.turn_id,
        tool_name: "Bulk".into(),
        tool_call_id: None,
        tool_message_id: None,
        kind: CheckpointKind::Edit,
        changes,
    };
    engine.record_edit(&session, edit).expect("edit");
    (session.to_string(), turn.message_id.to_string())
}

/// How many of the `n` files hold `word` ("before" or "after").
pub(crate) fn count(ws: &Path, n: usize, word: &str) -> usize {
    (0..n)
        .filter(|&i| std::fs::read(ws.join(file(i))).ok() == Some(format!("{word} {i}\n").into()))
        .count()
}
