//! `rewind serve`: what the JSON-RPC protocol costs per call, and what N clients get done at
//! once. The same calls (`recordPrompt`; `applyFileRewind` of a one-file turn) run in-process
//! through `rewind_host::rpc` (opening the store per call with one idle connection kept, as
//! the Node addon does) and over `rewind serve --stdio`, side by side in one run; then N HTTP
//! clients each record prompts into their own session through `rewind serve --http`.

use crate::harness::{Measured, Result, measure};
use crate::report::{Met, Table};
use rewind_host::native::Opener;
use rewind_host::rpc;
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

/// Prompts each HTTP client records.
const PER_CLIENT: usize = 40;
/// The concurrent HTTP clients measured.
const CLIENTS: &[usize] = &[1, 4, 16];

#[path = "../../host-node/tests/common/pg.rs"]
pub(crate) mod pg;

/// Something that runs one JS API call.
trait Caller {
    fn call(&mut self, method: &str, params: Value) -> Result<Value>;
}

/// In-process: `rpc::call` on an engine opened for the call (the addon's way).
struct InProcess {
    /// The one opener every front end uses, keeping its idle connection as the addon does.
    opener: Opener,
}

impl Caller for InProcess {
    fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let access = rpc::access(method, &params)?;
        let mut engine = self.opener.open(access)?.engine;
        Ok(rpc::call(&mut engine, method, params)?)
    }
}

/// `rewind serve --stdio`: one line out, one line back.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl StdioServer {
    /// A server in `ws`; on the PostgreSQL store `store` when given, else the SQLite file.
    fn start(bin: &Path, ws: &Path, store: Option<&str>) -> Result<Self> {
        let mut cmd = Command::new(bin);
        if let Some(url) = store {
            cmd.env("REWIND_STORE", url);
        } else {
            cmd.env_remove("REWIND_STORE");
        }
        let mut child = cmd
            .args(["serve", "--stdio"])
            .current_dir(ws)
            .env_remove("REWIND_DB")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            stdin,
            stdout,
        })
    }
}

/// A JSON-RPC reply's result, or its error as one.
fn result(reply: Value) -> Result<Value> {
    match reply.get("error") {
        Some(e) => Err(format!("rewind serve: {e}").into()),
        None => Ok(reply["result"].clone()),
    }
}

impl Caller for StdioServer {
    fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        writeln!(self.stdin, "{request}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        result(serde_json::from_str(&line)?)
    }
}

/// A fresh session; its id.
fn session(c: &mut dyn Caller) -> Result<Value> {
    Ok(c.call("createSession", json!([{ "title": "bench" }]))?["id"].clone())
}

/// recordPrompt and applyFileRewind latencies through `c`, in `ws`.
fn latencies(
    c: &mut dyn Caller,
    ws: &Path,
    samples: usize,
) -> Result<(crate::harness::Measured, crate::harness::Measured)> {
    let mut c = c;
    let s = session(c)?;
    let mut i = 0;
    let prompt = measure(
        &mut c,
        (3, samples),
        |_| Ok(()),
        |c, ()| {
            i += 1;
            c.call(
                "recordPrompt",
                json!([s, { "text": format!("prompt {i}") }]),
            )
        },
    )?;
    // Each apply rewinds a turn that created one small file (which the apply deletes).
    let apply = measure(
        &mut c,
        (3, samples),
        |c| {
            i += 1;
            let p = c.call(
                "recordPrompt",
                json!([s, { "text": format!("create {i}") }]),
            )?;
            let (path, bytes) = (format!("f{i}.txt"), format!("file {i}\n"));
            std::fs::write(ws.join(&path), &bytes)?;
            let after = rpc::bytes_json(Some(bytes.as_bytes()));
            c.call(
                "recordEdit",
                json!([s, { "turnId": p["turnId"], "path": path, "toolName": "Write",
                            "before": null, "after": after }]),
            )?;
            Ok(json!([s, { "since": p["messageId"] }]))
        },
        |c, params| {
            let out = c.call("applyFileRewind", params)?;
            if out["applied"] != true {
                return Err(format!("apply refused: {out}").into());
            }
            Ok(out)
        },
    )?;
    Ok((prompt, apply))
}

/// A fresh directory under `data`.
pub(crate) fn fresh(data: &Path, name: &str) -> Result<PathBuf> {
    let dir = data.join("serve").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The same calls on PostgreSQL (a throwaway local cluster over a unix socket), side by side;
/// `None` when no cluster can be made here.
fn stdio_on_postgres(
    bin: &Path,
    data: &Path,
    samples: usize,
) -> Result<Option<(Measured, Measured)>> {
    let Some(cluster) = pg::cluster() else {
        return Ok(None);
    };
    eprintln!("bench: serve, stdio on PostgreSQL");
    let ws = fresh(data, "stdio-postgres")?;
    let url = cluster.url(&cluster.fresh_db());
    let mut server = StdioServer::start(bin, &ws, Some(&url))?;
    let timed = latencies(&mut server, &ws, samples)?;
    drop(server.stdin);
    server.child.wait()?;
    Ok(Some(timed))
}

/// The PostgreSQL rows and their ratio to SQLite, both over stdio.
fn postgres_rows(
    t: &mut Table,
    (io_prompt, io_apply): (&Measured, &Measured),
    (pg_prompt, pg_apply): &(Measured, Measured),
) {
    t.timed(
        "recordPrompt, serve --stdio, PostgreSQL",
        pg_prompt,
        "",
        Met::None,
    );
    t.timed(
        "applyFileRewind (1 file), serve --stdio, PostgreSQL",
        pg_apply,
        "",
        Met::None,
    );
    for (name, a, b) in [
        ("recordPrompt", io_prompt, pg_prompt),
        ("applyFileRewind", io_apply, pg_apply),
    ] {
        let ratio = b.samples.median().as_secs_f64() / a.samples.median().as_secs_f64().max(1e-9);
        t.value(
            &format!("{name}: PostgreSQL / SQLite (median, over stdio)"),
            format!("{ratio:.2}x"),
            "",
            Met::None,
        );
    }
}

/// The scenario's table.
pub fn run_scenario(data: &Path, samples: usize) -> Result<Table> {
    let bin = crate::hook::rewind_bin()?;
    let samples = samples.max(20);
    let mut t = Table::new("rewind serve: JSON-RPC per call and N HTTP clients");
    eprintln!("bench: serve, in-process vs stdio");
    let ws = fresh(data, "inproc")?;
    let mut inproc = InProcess {
        opener: Opener::new(&ws, rewind_host::default_db_path(&ws)).keeping_idle(),
    };
    let (ip_prompt, ip_apply) = latencies(&mut inproc, &ws, samples)?;
    drop(inproc);
    let ws = fresh(data, "stdio")?;
    let mut stdio = StdioServer::start(&bin, &ws, None)?;
    let (io_prompt, io_apply) = latencies(&mut stdio, &ws, samples)?;
    drop(stdio.stdin);
    stdio.child.wait()?;
    // The same calls on PostgreSQL (a throwaway local cluster over a unix socket), side by side.
    let postgres = stdio_on_postgres(&bin, data, samples)?;
    t.timed(
        "recordPrompt, in-process (rpc::call)",
        &ip_prompt,
        "",
        Met::None,
    );
    t.timed("recordPrompt, serve --stdio", &io_prompt, "", Met::None);
    t.timed(
        "applyFileRewind (1 file), in-process",
        &ip_apply,
        "",
        Met::None,
    );
    t.timed(
        "applyFileRewind (1 file), serve --stdio",
        &io_apply,
        "",
        Met::None,
    );
    if let Some(pg) = &postgres {
        postgres_rows(&mut t, (&io_prompt, &io_apply), pg);
    }
    for (name, a, b) in [
        ("recordPrompt", &ip_prompt, &io_prompt),
        ("applyFileRewind", &ip_apply, &io_apply),
    ] {
        let extra = b.samples.median().saturating_sub(a.samples.median());
        t.value(
            &format!("{name}: stdio minus in-process (median)"),
            crate::harness::fmt_ms(extra),
            "",
            Met::None,
        );
    }
    eprintln!("bench: serve, concurrent HTTP clients");
    for &n in CLIENTS {
        let rate = http_throughput(&bin, data, n)?;
        t.value(
            &format!("{n} HTTP client(s) × {PER_CLIENT} recordPrompt: calls/s"),
            format!("{rate:.0}"),
            "",
            Met::None,
        );
    }
    t.note(
        "PostgreSQL rows: a local throwaway cluster (initdb, unix socket, fsync and \
         synchronous_commit off, as in the tests), so they show the protocol and round-trip cost, \
         not a durable server's disk. ",
    );
    t.note(
        "In-process opens the store per call as the Node addon does (one idle connection kept); \
         the stdio rows add the server process, one JSON line each way and the pipe. HTTP: \
         `--workers 8`, one TCP connection per call, each client in its own session.",
    );
    Ok(t)
}

/// Calls per second of `n` clients recording prompts at once over HTTP.
fn http_throughput(bin: &Path, data: &Path, n: usize) -> Result<f64> {
    let ws = fresh(data, &format!("http{n}"))?;
    let mut child = Command::new(bin)
        .args(["serve", "--http", "127.0.0.1:0", "--workers", "8", "--root"])
        .arg(&ws)
        .env_remove("REWIND_DB")
        .env("REWIND_SERVE_TOKEN", HTTP_TOKEN)
        .stderr(Stdio::piped())
        .spawn()?;
    let mut err = BufReader::new(child.stderr.take().ok_or("no stderr")?);
    let mut line = String::new();
    err.read_line(&mut line)?;
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("rewind serve: listening on http://")
        .ok_or_else(|| format!("rewind serve said {line:?}"))?
        .parse()?;
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let sessions = (0..n)
        .map(|_| Ok(post(addr, "createSession", json!([{}]))?["id"].clone()))
        .collect::<Result<Vec<Value>>>()?;
    let t0 = Instant::now();
    let outcomes: Vec<std::result::Result<(), String>> = std::thread::scope(|s| {
        let clients: Vec<_> = sessions
            .iter()
            .map(|id| {
                s.spawn(move || {
                    for i in 0..PER_CLIENT {
                        let params = json!([id, { "text": format!("prompt {i}") }]);
                        post(addr, "recordPrompt", params).map_err(|e| e.to_string())?;
                    }
                    Ok(())
                })
            })
            .collect();
        clients
            .into_iter()
            .map(|c| c.join().unwrap_or_else(|_| Err("client panicked".into())))
            .collect()
    });
    let secs = t0.elapsed().as_secs_f64();
    let _ = child.kill();
    child.wait()?;
    for o in outcomes {
        o?;
    }
    Ok((n * PER_CLIENT) as f64 / secs)
}

/// The token the measured server is given (`/rpc` always needs one).
pub(crate) const HTTP_TOKEN: &str = "bench-token";

/// One `POST /rpc` on its own connection; the result (an error reply as an error naming the
/// method).
pub(crate) fn post(addr: SocketAddr, method: &str, params: Value) -> Result<Value> {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
    let mut s = TcpStream::connect(addr)?;
    write!(
        s,
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Authorization: Bearer {HTTP_TOKEN}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = String::new();
    s.read_to_string(&mut raw)?;
    let (_, body) = raw.split_once("\r\n\r\n").ok_or("no HTTP body")?;
    result(serde_json::from_str(body)?).map_err(|e| format!("{method}: {e}").into())
}
