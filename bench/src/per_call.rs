//! PostgreSQL beside SQLite, per call (issue 30: within 2× of SQLite). The same three calls,
//! record a prompt, record an edit (a created file), rewind that turn's files, run on both
//! stores side by side in one run:
//!
//! * as one CLI process each (`rewind prompt`, `rewind edit`, `rewind apply`), what a hook or
//!   a script pays: the process, its open of the store, the call; beside one bare connection
//!   to the same database (in process, and a whole `psql -c 'select 1'`), the anchor that says
//!   how much of a PostgreSQL call is its connection;
//! * through one `rewind serve --http` (`--workers 8`) with 8 clients at once, each in its own
//!   session of the one workspace: the latency of each call as its client saw it.
//!
//! PostgreSQL is a local throwaway cluster (see `host-node/tests/common/pg.rs`): unix socket,
//! `fsync` and `synchronous_commit` off, so the rows show connections and round trips, not a
//! durable server's disk.

use crate::harness::{Measured, Result, Samples, json_str, ratio, rewind_json};
use crate::report::{Met, Table};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::serve::{HTTP_TOKEN, pg, post};

/// The three calls, in the order each round makes them.
const CALLS: [&str; 3] = ["prompt", "edit", "apply"];

/// Concurrent HTTP clients.
const CLIENTS: usize = 8;

/// Rounds (prompt, edit, apply) each HTTP client makes.
const PER_CLIENT: usize = 15;

/// Each call's samples, by [`CALLS`] index.
type ByCall = [Vec<Duration>; 3];

fn measured(raw: Vec<Duration>) -> Measured {
    Measured {
        samples: Samples::new(raw),
        peak_kib: None,
    }
}

/// `rewind --json args…` in `ws`, on `store` (PostgreSQL) when given; its JSON and how long
/// the process took.
fn cli(bin: &Path, ws: &Path, store: Option<&str>, args: &[&str]) -> Result<(Value, Duration)> {
    let mut cmd = Command::new(bin);
    cmd.arg("--json").args(args).current_dir(ws);
    cmd.env_remove("REWIND_DB");
    match store {
        Some(url) => cmd.env("REWIND_STORE", url),
        None => cmd.env_remove("REWIND_STORE"),
    };
    rewind_json(&mut cmd)
}

/// One store the CLI rounds run on: its workspace, its PostgreSQL URL (`None`: the SQLite file
/// in the workspace), its session, and each call's samples.
struct CliStore {
    ws: PathBuf,
    url: Option<String>,
    session: String,
    took: ByCall,
}

impl CliStore {
    fn new(bin: &Path, ws: PathBuf, url: Option<String>) -> Result<Self> {
        let args = ["session", "new", "--title", "bench"];
        let (created, _) = cli(bin, &ws, url.as_deref(), &args)?;
        Ok(Self {
            session: json_str(&created, "id")?,
            ws,
            url,
            took: Default::default(),
        })
    }

    /// Round `i`: prompt, edit (a created file), apply, one CLI process each; the samples are
    /// kept when `keep` (the first rounds warm the caches).
    fn round(&mut self, bin: &Path, i: usize, keep: bool) -> Result<()> {
        let (ws, store, session) = (&self.ws, self.url.as_deref(), &self.session);
        let prompt = format!("create f{i}");
        let (turn, t0) = cli(bin, ws, store, &["prompt", session, "--text", &prompt])?;
        let (turn_id, since) = (json_str(&turn, "turnId")?, json_str(&turn, "messageId")?);
        let path = format!("f{i}.txt");
        std::fs::write(ws.join(&path), format!("file {i}\n"))?;
        let edit = [
            "edit",
            session,
            "--turn",
            &turn_id,
            "--path",
            &path,
            "--created",
        ];
        let (_, t1) = cli(bin, ws, store, &edit)?;
        let (applied, t2) = cli(bin, ws, store, &["apply", session, "--since", &since])?;
        if applied["applied"] != true {
            return Err(format!("apply refused: {applied}").into());
        }
        if keep {
            for (k, t) in [t0, t1, t2].into_iter().enumerate() {
                self.took[k].push(t);
            }
        }
        Ok(())
    }
}

/// The anchor of the PostgreSQL CLI rows: one bare connection to the same database, timed in
/// process (connect + `select 1` + close, through the client library rewind links) and as a
/// whole `psql -c 'select 1'` process, so the table shows how much of a call is its connection.
struct Connection {
    conninfo: String,
    psql: Option<PathBuf>,
    in_process: Vec<Duration>,
    process: Vec<Duration>,
}

/// `psql`: on PATH, else beside the server binaries (Debian's layout).
fn find_psql() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"));
    on_path
        .into_iter()
        .chain(debian)
        .map(|d| d.join("psql"))
        .find(|p| p.is_file())
}

impl Connection {
    fn new(conninfo: String) -> Self {
        Self {
            conninfo,
            psql: find_psql(),
            in_process: Vec::new(),
            process: Vec::new(),
        }
    }

    fn sample(&mut self, keep: bool) -> Result<()> {
        let start = Instant::now();
        let mut client = postgres::Client::connect(&self.conninfo, postgres::NoTls)?;
        client.simple_query("select 1")?;
        drop(client);
        let in_process = start.elapsed();
        let process = match &self.psql {
            Some(psql) => {
                let start = Instant::now();
                crate::harness::run(
                    Command::new(psql)
                        .args(["-X", "-q", "-A", "-t", "-d", &self.conninfo])
                        .args(["-c", "select 1"])
                        .stdin(Stdio::null()),
                )?;
                Some(start.elapsed())
            }
            None => None,
        };
        if keep {
            self.in_process.push(in_process);
            self.process.extend(process);
        }
        Ok(())
    }
}

/// One client's rounds through the server at `addr`, in its own session; its samples.
fn client(addr: SocketAddr, ws: &Path, c: usize) -> Result<ByCall> {
    let session = post(addr, "createSession", json!([{}]))?["id"].clone();
    let mut took: ByCall = Default::default();
    for i in 0..PER_CLIENT {
        let start = Instant::now();
        let p = post(
            addr,
            "recordPrompt",
            json!([session, { "text": format!("r{i}") }]),
        )?;
        took[0].push(start.elapsed());
        let (path, bytes) = (format!("c{c}-f{i}.txt"), format!("file {c} {i}\n"));
        std::fs::write(ws.join(&path), &bytes)?;
        let after = rewind_host::rpc::bytes_json(Some(bytes.as_bytes()));
        let edit = json!({ "turnId": p["turnId"], "path": path, "toolName": "Write",
                           "before": null, "after": after });
        let start = Instant::now();
        post(addr, "recordEdit", json!([session, edit]))?;
        took[1].push(start.elapsed());
        let start = Instant::now();
        let out = post(
            addr,
            "applyFileRewind",
            json!([session, { "since": p["messageId"] }]),
        )?;
        took[2].push(start.elapsed());
        if out["applied"] != true {
            return Err(format!("apply refused: {out}").into());
        }
    }
    Ok(took)
}

/// [`CLIENTS`] clients at once through one `rewind serve --http --workers 8` in `ws`: each
/// call's samples, and the calls served per second while all the clients ran.
fn through_serve(bin: &Path, ws: &Path, store: Option<&str>) -> Result<(ByCall, f64)> {
    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--http", "127.0.0.1:0", "--workers", "8", "--root"])
        .arg(ws)
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
    let started = Instant::now();
    let outcomes: Vec<std::result::Result<ByCall, String>> = std::thread::scope(|s| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| s.spawn(move || client(addr, ws, c).map_err(|e| e.to_string())))
            .collect();
        clients
            .into_iter()
            .map(|c| c.join().unwrap_or_else(|_| Err("client panicked".into())))
            .collect()
    });
    let wall = started.elapsed().as_secs_f64();
    let _ = child.kill();
    child.wait()?;
    let mut all: ByCall = Default::default();
    for o in outcomes {
        for (k, v) in o?.into_iter().enumerate() {
            all[k].extend(v);
        }
    }
    let calls = all.iter().map(Vec::len).sum::<usize>();
    Ok((all, calls as f64 / wall.max(1e-9)))
}

/// The rows of one way of calling: each call on SQLite, on PostgreSQL, and their ratio.
fn rows(t: &mut Table, how: &str, sqlite: &ByCall, pg: Option<&ByCall>) {
    let pg = pg.map(|p| p.clone().map(measured));
    for (k, raw) in sqlite.iter().enumerate() {
        let name = CALLS[k];
        let s = measured(raw.clone());
        t.timed(&format!("{name}, {how}, SQLite"), &s, "", Met::None);
        let Some(p) = pg.as_ref().map(|p| &p[k]) else {
            continue;
        };
        t.timed(&format!("{name}, {how}, PostgreSQL"), p, "", Met::None);
        let r = ratio(p.samples.median(), s.samples.median());
        t.value(
            &format!("{name}, {how}: PostgreSQL / SQLite (median)"),
            format!("{r:.2}x"),
            "≤ 2x",
            Met::from(r <= 2.0),
        );
    }
}

/// The CLI rounds: each round makes its calls on SQLite, then on PostgreSQL, then one bare
/// connection, so a busy moment of the machine lands on all of them alike.
fn cli_rounds(
    bin: &Path,
    cluster: Option<&pg::Cluster>,
    fresh: &dyn Fn(&str) -> Result<PathBuf>,
    rounds: usize,
) -> Result<(ByCall, Option<ByCall>, Option<Connection>)> {
    let mut sqlite = CliStore::new(bin, fresh("cli-sqlite")?, None)?;
    let (mut pg, mut conn) = match cluster {
        Some(c) => {
            let db = c.fresh_db();
            let store = CliStore::new(bin, fresh("cli-pg")?, Some(c.url(&db)))?;
            (Some(store), Some(Connection::new(c.conninfo(&db))))
        }
        None => (None, None),
    };
    for i in 0..rounds + 2 {
        let keep = i >= 2;
        sqlite.round(bin, i, keep)?;
        if let Some(p) = pg.as_mut() {
            p.round(bin, i, keep)?;
        }
        if let Some(c) = conn.as_mut() {
            c.sample(keep)?;
        }
    }
    Ok((sqlite.took, pg.map(|p| p.took), conn))
}

/// The bare connection's rows, and what PostgreSQL adds to each CLI call beside it.
fn connection_rows(t: &mut Table, sqlite: &ByCall, pg: &ByCall, conn: &Connection) {
    let inproc = measured(conn.in_process.clone());
    t.timed(
        "anchor: one bare PostgreSQL connection (connect + select 1 + close, in process)",
        &inproc,
        "",
        Met::None,
    );
    if !conn.process.is_empty() {
        t.timed(
            "anchor: `psql -c 'select 1'`, a whole process",
            &measured(conn.process.clone()),
            "",
            Met::None,
        );
    }
    let one = inproc.samples.median();
    for (k, name) in CALLS.iter().enumerate() {
        let median = |v: &Vec<Duration>| Samples::new(v.clone()).median();
        let extra = median(&pg[k]).saturating_sub(median(&sqlite[k]));
        t.value(
            &format!("{name}, one CLI process: PostgreSQL − SQLite (median)"),
            format!(
                "{} = {:.1} bare connections",
                crate::harness::fmt_ms(extra),
                ratio(extra, one)
            ),
            "",
            Met::None,
        );
    }
}

/// The scenario's table.
pub fn run_scenario(data: &Path, samples: usize) -> Result<Table> {
    let bin = crate::hook::rewind_bin()?;
    let rounds = samples.max(10);
    let cluster = pg::cluster();
    let mut t = Table::new("PostgreSQL beside SQLite, per call (CLI process; serve, 8 clients)");
    let fresh = |name: &str| crate::serve::fresh(data, &format!("per-call-{name}"));
    eprintln!("bench: per-call, CLI processes");
    let (sqlite, pg, conn) = cli_rounds(&bin, cluster, &fresh, rounds)?;
    rows(&mut t, "one CLI process", &sqlite, pg.as_ref());
    if let (Some(pg), Some(conn)) = (&pg, &conn) {
        connection_rows(&mut t, &sqlite, pg, conn);
    }
    eprintln!("bench: per-call, serve --http with {CLIENTS} clients");
    let (sqlite, sqlite_rate) = through_serve(&bin, &fresh("serve-sqlite")?, None)?;
    let pg = match cluster {
        Some(c) => Some(through_serve(
            &bin,
            &fresh("serve-pg")?,
            Some(&c.url(&c.fresh_db())),
        )?),
        None => None,
    };
    let (pg, pg_rate) = pg.unzip();
    let how = format!("serve --http, {CLIENTS} clients");
    rows(&mut t, &how, &sqlite, pg.as_ref());
    let rate = |r: f64| format!("{r:.0} calls/s");
    t.value(
        &format!("{how}: throughput, SQLite"),
        rate(sqlite_rate),
        "",
        Met::None,
    );
    if let Some(r) = pg_rate {
        t.value(
            &format!("{how}: throughput, PostgreSQL"),
            rate(r),
            "",
            Met::None,
        );
    }
    t.note(
        "PostgreSQL: a local throwaway cluster (initdb, unix socket, fsync and synchronous_commit \
         off, as in the tests), so the rows show connections and round trips, not a durable \
         server's disk. CLI rows: each call a whole `rewind --json` process, the rounds \
         interleaved (SQLite, PostgreSQL, then the bare connection, in each round); the anchor \
         is one connection to the same database, so `PostgreSQL − SQLite` in bare connections \
         says how much of the difference is opening the store's connection. Serve rows: each \
         client records a prompt, a created file and rewinds it, in its own session of one \
         workspace (the applies share its apply lock).",
    );
    if cluster.is_none() {
        t.note("No PostgreSQL binaries here (scripts/setup installs them): SQLite rows only.");
    }
    Ok(t)
}
