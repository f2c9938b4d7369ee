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

/// A running HTTP server: where it listens and the token `/rpc` needs (leaked: a test
/// starts a handful of servers, and a `Copy` endpoint moves into client threads as it is).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Endpoint {
    pub(crate) addr: SocketAddr,
    pub(crate) token: &'static str,
}

/// What a server printed on stderr before it served: its address, its roots line and its
/// token line.
pub(crate) struct Banner {
    pub(crate) addr: SocketAddr,
    pub(crate) token_line: String,
}

/// Read the three start lines from a server's stderr, then pass the rest on to ours.
pub(crate) fn banner(child: &mut Child) -> Banner {
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut line = String::new();
        err.read_line(&mut line).expect("read stderr");
        lines.push(line.trim().to_owned());
    }
    let addr = lines[0]
        .strip_prefix("rewind serve: listening on http://")
        .unwrap_or_else(|| panic!("no address in {lines:?}"))
        .parse()
        .expect("address");
    // The rest of stderr goes on to ours (and never fills the pipe).
    std::thread::spawn(move || {
        for l in err.lines().map_while(Result::ok) {
            eprintln!("{l}");
        }
    });
    Banner {
        addr,
        token_line: lines[2].clone(),
    }
}

/// The token a start line shows (`… Bearer <hex> on POST /rpc`), if it shows one.
pub(crate) fn shown_token(line: &str) -> Option<String> {
    let t = line.split("Bearer ").nth(1)?.split(' ').next()?;
    (t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit())).then(|| t.to_owned())
}

/// `rewind serve --http 127.0.0.1:0` with `args`; the child and its endpoint (the token given
/// in `env`, or the one it generated and printed).
pub(crate) fn http_server(args: &[&str], env: &[(&str, &str)]) -> (Child, Endpoint) {
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
    let b = banner(&mut child);
    let given = env.iter().find(|(k, _)| *k == "REWIND_SERVE_TOKEN");
    let token = match given {
        Some((_, t)) => (*t).to_owned(),
        None => {
            shown_token(&b.token_line).unwrap_or_else(|| panic!("no token in {:?}", b.token_line))
        }
    };
    let token = Box::leak(token.into_boxed_str());
    (
        child,
        Endpoint {
            addr: b.addr,
            token,
        },
    )
}

/// A response as it came: the status, the head's text and the body.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

impl Response {
    /// The body as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {:?}", self.status, self.body))
    }
}

/// Read one response from `s` (its head, then Content-Length bytes of body).
pub(crate) fn read_response(s: &mut TcpStream) -> std::io::Result<Response> {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        raw.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&raw).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    s.read_exact(&mut body)?;
    Ok(Response {
        status,
        head,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Send `bytes` on a new connection and read the one response (at most 10 s).
pub(crate) fn raw(addr: SocketAddr, bytes: &[u8]) -> Response {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    s.write_all(bytes).expect("send");
    read_response(&mut s).expect("a response")
}

/// One HTTP/1.1 request (`Connection: close`, JSON) with the token if given; the status and
/// the body.
pub(crate) fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    token: Option<&str>,
) -> (u16, String) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let r = raw(
        addr,
        format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             {auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    (r.status, r.body)
}

/// `POST /rpc` of one call (id 1) with the server's token; the whole reply.
pub(crate) fn rpc(ep: Endpoint, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let (status, text) = http(ep.addr, "POST", "/rpc", &body.to_string(), Some(ep.token));
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).expect("JSON reply")
}

/// [`rpc`] that must succeed: its result.
pub(crate) fn rpc_ok(ep: Endpoint, method: &str, params: Value) -> Value {
    let r = rpc(ep, method, params);
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
