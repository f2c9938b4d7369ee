//! Reloading the 10,000-message session as whole processes (issue 30: a Node process that
//! reloads it within 2× of `rewind resume`): `node` loading the wasm package, `Engine.fromLog`
//! (or `fromSnapshot` + the last batches) and a resume, beside a whole `rewind resume` process
//! on the same session in SQLite, and `node -e 0` (what starting Node costs at all); with the
//! native addon (`scripts/build-node`) built, a Node process that opens the SQLite store through
//! it and resumes. The rounds are interleaved, one process of each per round, so a busy moment
//! of the machine lands on all of them alike. The same wasm processes also give the cold rows:
//! the script times its first load and its `require` inside. The runner of `bench/js/reload.cjs`
//! (one Node process per call) lives here too, for the warm rows of `reload.rs`.

use crate::harness::{Measured, Result, Samples, fmt_ms, ratio, run};
use crate::report::{Met, Table};
use crate::session::{self, LongSession};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Target: a whole Node reload process within this factor of a whole `rewind resume`.
const FACTOR: f64 = 2.0;
/// Target: the first load in a fresh process under 250 ms.
const RELOAD_MS: f64 = 250.0;

/// One kind of wasm reload process: its wall times, and what the script timed inside.
#[derive(Default)]
struct Cold {
    wall: Vec<Duration>,
    load: Vec<Duration>,
    require: Vec<Duration>,
    read: Vec<Duration>,
    resume: Vec<Duration>,
}

/// Every process's samples.
pub(crate) struct Whole {
    resume: Vec<Duration>,
    node_floor: Vec<Duration>,
    log: Cold,
    snapshot: Cold,
    addon: Option<Vec<Duration>>,
    rounds: usize,
}

fn ms(v: &serde_json::Value, key: &str) -> Duration {
    Duration::from_secs_f64(v[key].as_f64().unwrap_or(0.0) / 1000.0)
}

/// `bench/js/reload.cjs` over the long session's batches: one Node process per call.
pub(crate) struct ReloadJs<'a> {
    pub(crate) root: &'a Path,
    /// The wasm package's `node` folder.
    pub(crate) node: &'a Path,
    pub(crate) long: &'a LongSession,
    /// Where the warm run writes the snapshot (and its tail, beside it).
    pub(crate) snap_file: PathBuf,
    /// Batches after the snapshot.
    pub(crate) tail: usize,
}

impl ReloadJs<'_> {
    /// Run one `mode` with `samples` samples; returns the script's JSON and the process's wall
    /// time (spawn to exit).
    pub(crate) fn run_timed(
        &self,
        mode: &str,
        samples: usize,
    ) -> Result<(serde_json::Value, Duration)> {
        let start = Instant::now();
        let out = run(Command::new("node")
            .arg(self.root.join("bench/js/reload.cjs"))
            .arg(self.node)
            .arg(&self.long.batches)
            .arg(self.long.session.to_string())
            .arg(samples.to_string())
            .arg(self.tail.to_string())
            .arg(&self.snap_file)
            .arg(mode))?;
        Ok((serde_json::from_slice(&out.stdout)?, start.elapsed()))
    }
}

/// Fails unless `v` (a Node script's counts) is the whole session.
pub(crate) fn check_counts(what: &str, v: &serde_json::Value) -> Result<()> {
    let ok = v["messages"].as_u64() == Some((5 * session::TURNS) as u64)
        && v["activeCheckpoints"].as_u64() == Some(session::TURNS as u64);
    match ok {
        true => Ok(()),
        false => Err(format!("{what} loaded the wrong session: {v}").into()),
    }
}

/// `cmd` to completion with its output discarded; its wall time.
fn wall(cmd: &mut Command) -> Result<Duration> {
    let start = Instant::now();
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let took = start.elapsed();
    match status.success() {
        true => Ok(took),
        false => Err(format!("{cmd:?} exited {status}").into()),
    }
}

/// The addon package, when `scripts/build-node` built it.
fn addon_pkg(root: &Path) -> Option<PathBuf> {
    let pkg = root.join("node/pkg");
    (pkg.join("index.js").is_file() && pkg.join("rewind_node.node").is_file()).then_some(pkg)
}

/// A whole Node process on the addon: require, open, resume; its wall time.
fn addon_once(root: &Path, pkg: &Path, long: &LongSession, db: &Path) -> Result<Duration> {
    let start = Instant::now();
    let out = run(Command::new("node")
        .arg(root.join("bench/js/addon-resume.cjs"))
        .arg(pkg)
        .arg(&long.workspace)
        .arg(db)
        .arg(long.session.to_string()))?;
    let took = start.elapsed();
    check_counts("the addon", &serde_json::from_slice(&out.stdout)?)?;
    Ok(took)
}

/// Run the rounds (the snapshot file must exist: `reload.cjs warm` writes it).
pub(crate) fn measure(
    root: &Path,
    js: &ReloadJs<'_>,
    long: &LongSession,
    rounds: usize,
) -> Result<Whole> {
    let bin = crate::hook::rewind_bin()?;
    // A copy trusted at the session's workspace, as the CLI finds a store it made there.
    let db = session::copy_db(long, "reload-whole.db")?;
    rewind_host::trust_store(&long.workspace, &db)?;
    let mut resume = Command::new(&bin);
    resume
        .arg("--workspace")
        .arg(&long.workspace)
        .arg("--db")
        .arg(&db)
        .args(["-P", "resume"]);
    let addon = addon_pkg(root);
    let mut w = Whole {
        resume: Vec::new(),
        node_floor: Vec::new(),
        log: Cold::default(),
        snapshot: Cold::default(),
        addon: addon.as_ref().map(|_| Vec::new()),
        rounds,
    };
    // One warm-up round: the page cache, as a second run finds it.
    for i in 0..=rounds {
        let keep = i > 0;
        let t = wall(&mut resume)?;
        let floor = wall(Command::new("node").args(["-e", "0"]))?;
        if keep {
            w.resume.push(t);
            w.node_floor.push(floor);
        }
        for (mode, cold) in [("cold-log", &mut w.log), ("cold-snapshot", &mut w.snapshot)] {
            let (v, took) = js.run_timed(mode, 1)?;
            check_counts(mode, &v)?;
            if keep {
                cold.wall.push(took);
                cold.load.push(ms(&v, "ms"));
                cold.require.push(ms(&v, "requireMs"));
                cold.read.push(ms(&v, "readMs"));
                cold.resume.push(ms(&v, "resumeMs"));
            }
        }
        if let (Some(pkg), Some(times)) = (&addon, w.addon.as_mut()) {
            let t = addon_once(root, pkg, long, &db)?;
            if keep {
                times.push(t);
            }
        }
    }
    std::fs::remove_file(&db)?;
    let _ = std::fs::remove_file(db.with_extension("db-wal"));
    let _ = std::fs::remove_file(db.with_extension("db-shm"));
    Ok(w)
}

fn measured(times: &[Duration]) -> Measured {
    Measured {
        samples: Samples::new(times.to_vec()),
        peak_kib: None,
    }
}

fn median(times: &[Duration]) -> Duration {
    Samples::new(times.to_vec()).median()
}

/// The cold rows (inside the fresh processes), then the whole-process rows and their ratios.
pub(crate) fn rows(t: &mut Table, w: &Whole, tail: usize) {
    let under = |d: &[Duration]| Met::from(median(d).as_secs_f64() * 1000.0 < RELOAD_MS);
    t.timed(
        "first Engine.fromLog in a fresh process (cold)",
        &measured(&w.log.load),
        "< 250 ms",
        under(&w.log.load),
    )
    .timed(
        &format!("first Engine.fromSnapshot + {tail} batches in a fresh process (cold)"),
        &measured(&w.snapshot.load),
        "< 250 ms",
        under(&w.snapshot.load),
    )
    .timed(
        "loading the package (require: compile + instantiate the .wasm)",
        &measured(&w.log.require),
        "",
        Met::None,
    );
    let anchor = median(&w.resume);
    t.timed(
        "anchor: `rewind resume`, a whole process (SQLite)",
        &measured(&w.resume),
        "",
        Met::None,
    )
    .timed(
        "`node -e 0`, a whole process (starting Node at all)",
        &measured(&w.node_floor),
        "",
        Met::None,
    );
    let wasm = [
        ("Engine.fromLog", &w.log.wall),
        ("Engine.fromSnapshot + the tail", &w.snapshot.wall),
    ];
    for (what, cold) in [
        ("Engine.fromLog", &w.log),
        ("Engine.fromSnapshot + the tail", &w.snapshot),
    ] {
        t.timed(
            &format!("a whole Node process: wasm package + {what} + resume"),
            &measured(&cold.wall),
            "",
            Met::None,
        );
        // Where that process's time goes; the rest is starting and ending Node.
        let inside = [&cold.require, &cold.read, &cold.load, &cold.resume].map(|v| median(v));
        t.value(
            "… inside it: require · read the bytes · load · resume",
            inside.map(fmt_ms).join(" · "),
            "",
            Met::None,
        );
    }
    if let Some(times) = &w.addon {
        t.timed(
            "a whole Node process: native addon, open the SQLite store + resume",
            &measured(times),
            "",
            Met::None,
        );
    }
    for (what, times) in wasm {
        let r = ratio(median(times), anchor);
        t.value(
            &format!("**Node process ({what}) / `rewind resume` process**"),
            format!("{r:.2}× ({} · {})", fmt_ms(median(times)), fmt_ms(anchor)),
            "≤ 2×",
            Met::from(r <= FACTOR),
        );
    }
    if let Some(times) = &w.addon {
        let r = ratio(median(times), anchor);
        t.value(
            "Node process (native addon) / `rewind resume` process",
            format!("{r:.2}×"),
            "",
            Met::None,
        );
    }
    t.note(format!(
        "Whole processes, spawn to exit, {} interleaved rounds after a warm-up round (one of \
         each per round). The Node wasm processes run `bench/js/reload.cjs` in its cold modes: \
         start Node, require the package, read the batch log (or the snapshot and the last \
         {tail} batches, from a file of their own) from disk, load, resume, print counts; `rewind resume` opens the same \
         session's SQLite copy and prints its state. The cold rows are what those processes \
         timed inside. {}",
        w.rounds,
        match w.addon {
            Some(_) =>
                "The addon process runs `bench/js/addon-resume.cjs` on the same SQLite copy.",
            None => "No native addon built (scripts/build-node --release): no addon row.",
        }
    ));
}
