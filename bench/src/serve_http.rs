//! `rewind serve --http` under N concurrent clients, each recording prompts into its own
//! session: calls per second and the latency of one call, on the SQLite file or on PostgreSQL
//! (`REWIND_STORE`), side by side (see `serve`).

use crate::harness::{Measured, Result, Samples};
use crate::report::{Met, Table};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Prompts each HTTP client records.
const PER_CLIENT: usize = 40;

/// What N clients got done.
pub(crate) struct Clients {
    /// Calls per second, all clients together.
    rate: f64,
    /// Each call's time as its client saw it.
    calls: Measured,
}

/// `n` clients recording prompts at once through one `rewind serve --http` (`--workers 8`),
/// on the PostgreSQL store `store` when given.
pub(crate) fn clients(bin: &Path, data: &Path, n: usize, store: Option<&str>) -> Result<Clients> {
    let kind = if store.is_some() { "pg" } else { "" };
    let ws = fresh(data, &format!("http{n}{kind}"))?;
    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--http", "127.0.0.1:0", "--workers", "8", "--root"])
        .arg(&ws)
        .env_remove("REWIND_DB")
        .env("REWIND_SERVE_TOKEN", HTTP_TOKEN)
        .stderr(Stdio::piped());
    match store {
        Some(url) => cmd.env("REWIND_STORE", url),
        None => cmd.env_remove("REWIND_STORE"),
    };
    let mut child = cmd.spawn()?;
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
    let outcomes: Vec<std::result::Result<Vec<Duration>, String>> = std::thread::scope(|s| {
        let clients: Vec<_> = sessions
            .iter()
            .map(|id| {
                s.spawn(move || {
                    let mut took = Vec::with_capacity(PER_CLIENT);
                    for i in 0..PER_CLIENT {
                        let params = json!([id, { "text": format!("prompt {i}") }]);
                        let start = Instant::now();
                        post(addr, "recordPrompt", params).map_err(|e| e.to_string())?;
                        took.push(start.elapsed());
                    }
                    Ok(took)
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
    let mut all = Vec::new();
    for o in outcomes {
        all.extend(o?);
    }
    Ok(Clients {
        rate: (n * PER_CLIENT) as f64 / secs,
        calls: Measured {
            samples: Samples::new(all),
            peak_kib: None,
        },
    })
}

/// The rows of one run: throughput and per-call latency.
pub(crate) fn rows(t: &mut Table, n: usize, on: &str, c: &Clients) {
    t.value(
        &format!("{n} HTTP client(s) × {PER_CLIENT} recordPrompt{on}: calls/s"),
        format!("{:.0}", c.rate),
        "",
        Met::None,
    );
    t.timed(
        &format!("{n} HTTP client(s) recordPrompt{on}: one call"),
        &c.calls,
        "",
        Met::None,
    );
}

/// PostgreSQL beside SQLite for `n` clients (target: within 2× per call, issue 30).
pub(crate) fn ratios(t: &mut Table, n: usize, sqlite: &Clients, pg: &Clients) {
    let p50 = crate::harness::ratio(pg.calls.samples.median(), sqlite.calls.samples.median());
    t.value(
        &format!("{n} HTTP client(s): PostgreSQL / SQLite, median call"),
        format!("{p50:.2}x"),
        "≤ 2x",
        Met::from(p50 <= 2.0),
    );
    t.value(
        &format!("{n} HTTP client(s): SQLite / PostgreSQL, calls/s"),
        format!("{:.2}x", sqlite.rate / pg.rate.max(1e-9)),
        "≤ 2x",
        Met::from(sqlite.rate <= 2.0 * pg.rate),
    );
}

/// The token the measured server is given (`/rpc` always needs one).
const HTTP_TOKEN: &str = "bench-token";

/// One `POST /rpc` on its own connection; the result.
fn post(addr: SocketAddr, method: &str, params: Value) -> Result<Value> {
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
    result(serde_json::from_str(body)?)
}

/// A fresh directory under `data`.
pub(crate) fn fresh(data: &Path, name: &str) -> Result<PathBuf> {
    let dir = data.join("serve").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A JSON-RPC reply's result, or its error as one.
pub(crate) fn result(reply: Value) -> Result<Value> {
    match reply.get("error") {
        Some(e) => Err(format!("rewind serve: {e}").into()),
        None => Ok(reply["result"].clone()),
    }
}
