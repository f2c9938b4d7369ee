//! rewind-bench: measures rewind against its performance targets (listed in `HEADER`, the top
//! of BENCHMARKS.md) and against shadow git, prints one Markdown table per scenario and writes
//! them all to BENCHMARKS.md.
//!
//! ```text
//! rewind-bench [--samples N] [--out BENCHMARKS.md] [--data DIR]
//! ```
//!
//! `scripts/bench` builds it in release mode and runs it. Prepared data (the 10,000-file
//! workspace, the 10,000-message session) is cached in `bench-data/` beside the profile
//! directories of cargo's target directory (`target/bench-data` unless CARGO_TARGET_DIR moves it).

use rewind_bench::harness::Result;
use rewind_bench::report::{self, Table};
use rewind_bench::{
    checkpoint, cli_log, cli_refs, corpus, hashing, hook, ops, per_call, reload, resume, scaling,
    serve, session, shell, shell_ignored, storage,
};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Files in the checkpoint workspace (the target is stated for a 10,000-file workspace).
const WORKSPACE_FILES: usize = 10_000;

/// The scenarios, in run order; each runs in its own process so its peak memory is its own.
const SCENARIOS: &[&str] = &[
    "checkpoint",
    "resume",
    "reload",
    "apply50",
    "long",
    "edits",
    "storage",
    "scaling",
    "cli-log",
    "cli-refs",
    "hook",
    "hook-shell",
    "shell",
    "shell-ignored",
    "serve",
    "per-call",
];

/// Command-line options.
#[derive(Debug)]
struct Args {
    samples: usize,
    out: PathBuf,
    data: PathBuf,
    /// Run only these scenarios (and write no report).
    only: Option<Vec<String>>,
    /// Internal: run this one scenario in this process and print its tables as JSON.
    scenario: Option<String>,
}

/// `bench-data` in cargo's target directory, found from this binary's own path
/// (`<target>/release/rewind-bench`), so a CARGO_TARGET_DIR build keeps its cache there too.
fn default_data(root: &Path) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("bench-data")))
        .unwrap_or_else(|| root.join("target").join("bench-data"))
}

fn parse_args(root: &Path) -> Result<Args> {
    let mut a = Args {
        samples: 10,
        out: root.join("BENCHMARKS.md"),
        data: default_data(root),
        only: None,
        scenario: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--samples" => a.samples = value()?.parse()?,
            "--out" => a.out = value()?.into(),
            "--data" => a.data = value()?.into(),
            "--only" => a.only = Some(value()?.split(',').map(str::to_owned).collect()),
            "--scenario" => a.scenario = Some(value()?),
            "-h" | "--help" => {
                println!(
                    "rewind-bench [--samples N] [--out BENCHMARKS.md] [--data DIR] \
                     [--only {}]",
                    SCENARIOS.join(",")
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    a.samples = a.samples.max(3);
    Ok(a)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("rewind-bench: {e}");
        std::process::exit(1);
    }
}

/// Run one scenario in this process.
fn scenario(name: &str, root: &Path, data: &Path, n: usize) -> Result<Vec<Table>> {
    // Needs no prepared data.
    if name == "per-call" {
        return Ok(vec![per_call::run_scenario(data, n)?]);
    }
    let corpus = corpus::prepare(data, WORKSPACE_FILES)?;
    Ok(match name {
        "checkpoint" => vec![checkpoint::run_scenario(data, &corpus, n)?],
        "resume" => vec![resume::run_scenario(
            root,
            &session::prepare(data, &corpus)?,
            n,
        )?],
        "reload" => reload::run_scenario(root, &session::prepare(data, &corpus)?, n)?,
        "apply50" => vec![ops::preview_apply(data, &corpus, n)?],
        "long" => vec![ops::long_session(&session::prepare(data, &corpus)?, n)?],
        "edits" => {
            let (edits, mb_s) = ops::record_edit(data, &corpus, n)?;
            vec![edits, hashing::run_scenario(mb_s)?.0]
        }
        "storage" => vec![storage::run_scenario(data, &corpus)?],
        "scaling" => scaling::run_scenario(data, &corpus, n)?,
        "cli-log" => vec![cli_log::run_scenario(data, &corpus, n)?],
        "cli-refs" => vec![cli_refs::run_scenario(data, &corpus, n)?],
        "hook" => vec![hook::run_scenario(data, &corpus, n)?],
        "hook-shell" => rewind_bench::hook_shell::run_scenario(data, &corpus, n)?,
        "shell" => shell::run_scenario(data, &corpus, n)?,
        "shell-ignored" => shell_ignored::run_scenario(data, &corpus, n)?,
        "serve" => vec![serve::run_scenario(data, n)?],
        other => return Err(format!("unknown scenario {other}").into()),
    })
}

/// Run one scenario in a child process of this binary and read back its tables.
fn in_child(name: &str, args: &Args) -> Result<Vec<Table>> {
    let out = Command::new(std::env::current_exe()?)
        .args(["--scenario", name, "--samples", &args.samples.to_string()])
        .arg("--data")
        .arg(&args.data)
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        return Err(format!("scenario {name} failed ({})", out.status).into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

fn run() -> Result<()> {
    let started = Instant::now();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace root")?
        .to_path_buf();
    let args = parse_args(&root)?;
    std::fs::create_dir_all(&args.data)?;
    if let Some(name) = &args.scenario {
        let tables = scenario(name, &root, &args.data, args.samples)?;
        println!("{}", serde_json::to_string(&tables)?);
        return Ok(());
    }
    let env = report::environment();
    println!("## Environment\n\n{env}");
    // Prepare the cached data up front, outside every measured process.
    let corpus = corpus::prepare(&args.data, WORKSPACE_FILES)?;
    session::prepare(&args.data, &corpus)?;
    drop(corpus);

    let n = args.samples;
    let mut tables: Vec<Table> = Vec::new();
    for name in SCENARIOS {
        if args
            .only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|x| x == name))
        {
            continue;
        }
        for t in in_child(name, &args)? {
            println!("{}", t.markdown());
            tables.push(t);
        }
    }
    let total = started.elapsed();
    let misses: Vec<String> = tables.iter().flat_map(Table::misses).collect();
    if args.only.is_some() {
        println!(
            "rewind-bench: --only given, {} not written",
            args.out.display()
        );
        return Ok(());
    }
    let mut md = String::from(HEADER);
    let _ = write!(md, "## Environment\n\n{env}\n");
    let _ = writeln!(
        md,
        "Run: `scripts/bench` ({n} samples per measurement unless a row says otherwise), \
         {:.0} s in total including data preparation.\n",
        total.as_secs_f64()
    );
    md.push_str("## Targets missed\n\n");
    if misses.is_empty() {
        md.push_str("None: every target was met in this run.\n\n");
    } else {
        for m in &misses {
            let _ = writeln!(md, "- {m}");
        }
        md.push('\n');
    }
    md.push_str("## Results\n\n");
    for t in &tables {
        md.push_str(&t.markdown());
        md.push('\n');
    }
    std::fs::write(&args.out, md)?;
    println!(
        "rewind-bench: wrote {} ({} targets missed) in {:.0} s",
        args.out.display(),
        misses.len(),
        total.as_secs_f64()
    );
    Ok(())
}

/// The fixed top of BENCHMARKS.md: what is measured and how.
const HEADER: &str = "\
# Benchmarks

Generated by `scripts/bench` (run `scripts/setup` once first); do not edit by hand: the next
run overwrites this file. A row with a target shows it in the `target` column; a missed target
shows **NO** in the `met?` column and is listed under \"Targets missed\". The targets:

- Checkpointing an agent turn that edits 3 files in a 10,000-file workspace: at least 100×
  faster than a shadow-git snapshot of the same tree (`git add -A` + `commit` into a separate git
  dir), and restoring those files faster than `git checkout` of them.
- Resume of a session with 10,000 messages and 2,000 checkpoints: under 100 ms native; the wasm
  build within 2.5× of native on the same session.
- Preview + apply of a 50-file turn: under 50 ms native. Fork of a 10,000-message session: under
  500 ms. Peak memory reported for each.
- Storage: identical content stored once; a 100 KB text file edited 100 times with 12-byte
  edits stores at most 20 blob bytes per byte changed (the database's growth is reported too),
  and every version, the oldest included, reads back byte-exact.
- Warm 3-file checkpoint: at least 100× faster than shadow git at 10,000 files, and within 3×
  of copying the 3 files' new bytes into one file with one fsync, in the same run.
- Preview + apply of a 50-file turn: within 2.5× of the bare atomic-write floor of the same 50
  files (temp file + write + fsync + rename each, one sync per directory), in the same run.
- Every everyday call (record, turn end, preview / apply / undo of the last turn, conversation
  rewind, both, edit, retry) costs the same at 50,000 messages as at 1,000: 50k / 1k ≤ 1.5×.
  Fork of a 50,000-message session under 100 ms, adding O(1) rows (forks share the parent's
  history; the rows and database bytes each fork adds reported); resume at 10k and 50k reported.
- The CLI as a person runs it, whole processes at 1,000 and 50,000 messages: `rewind resume`
  of the 50,000-message session under 100 ms; `rewind log` (all of it, and `-n 10`) reported
  with its peak memory, which must not grow with the session's length.
- CLI calls naming turns by position (`show`, `preview`, `reply`, `apply`, `conversation`
  with `@` or `#N`), whole processes: 50k / 1k ≤ 1.5× each, beside the same calls with ids;
  `preview --turn` of an old turn (which undoes every turn since) at most 1.2× the same call
  naming the turn by id.
- wasm in a web IDE: reloading the 10,000-message session (from its batch log, or from a
  snapshot plus the batches after it) under 250 ms; the `.wasm` at most 300 KB gzipped (the
  page with its JS glue reported beside it); a whole Node process that reloads it and resumes
  within 2× of a whole `rewind resume` process on the same session in SQLite.
- Agent hooks: `rewind hook` for a file tool's PreToolUse and PostToolUse in a 10,000-file
  workspace, each a whole process: p50 under 10 ms; the Edit pair (Pre + Post of a 10 KB
  file) at most 2× the process floor (`rewind --version`), an I/O floor (`dd conv=fsync`)
  beside it.
- Shell capture through the hooks, whole `rewind hook claude-code` processes at 10,000 and
  100,000 files: a Bash pair (PreToolUse + PostToolUse) around a command that changes nothing
  cheaper than `git status` with watchman's fsmonitor (plain `git status` where watchman is
  missing); the pair around a command that changes 3 files at most 1/5 of shadow git's
  `add -A` + `commit` after it.
- PostgreSQL: each CLI call (prompt, edit, apply) within 2× of the same call on SQLite, whole
  processes side by side beside a bare connection; the same calls through `serve --http` with
  8 concurrent clients, p50 within 2× of SQLite, throughput reported.
- Shell capture (workspace snapshots with a stat cache) on real trees of 10,000 and 100,000
  files: a session's first snapshot at least 3× faster than a cold shadow-git snapshot
  (`init` + `add -A` + `commit`); a snapshot with nothing changed under 50 ms at 10,000 files
  and under 400 ms at 100,000; capturing a command that changes 3 files (snapshot + command +
  snapshot, minus the bare command) at least 10× cheaper than shadow git's `add -A` + `commit`
  after it; the bytes each stores after 20 such commands reported.
- Tracking small ignored files (`.env`, local config) in shell snapshots, on by default: an
  unchanged snapshot with the rule on within 10 % of the stat-only one (rule off) at 10,000
  and 100,000 files, the two measured side by side in one run.

## Method

- **Harness.** A small in-process timing loop in `bench/` (`harness.rs`): per measurement a
  warm-up, then N samples, each with its own untimed setup and exactly one timed call
  (`std::time::Instant`, results passed through `std::hint::black_box`); the table shows the
  median, min and max. criterion and divan were considered and not used: almost every operation
  here changes state (an apply rewrites files, a fork adds a session, a cold snapshot needs a
  fresh repository, a rewind needs a fresh copy of the database), costs milliseconds to seconds
  with setup far larger than the call, and must report peak memory and ratios measured in the
  same run, which neither harness reports.
- **Peak memory.** Each scenario runs in its own process. In process: the kernel's high-water
  mark (`VmHWM`), reset before each sample through `/proc/self/clear_refs`, so the figure is the
  peak RSS of that scenario's process while the measured call ran (it includes what the process
  already held, e.g. the workspace's file list or memory the allocator kept from setup).
  Child processes (git, node): one extra run under `/usr/bin/time -f %M` (git) or the same
  `clear_refs`/`VmHWM` reading inside the Node script.
- **Shadow git.** Whole processes (spawn to exit), `git --git-dir=<shadow> --work-tree=<ws>
  add -A` then `commit`, as Gemini CLI, Cline, Roo and OpenCode do; auto-gc off and user/system
  config ignored. rewind runs in process over the shipped native host (SQLite in WAL mode;
  record batches `synchronous=NORMAL`, durable across a process crash, journal batches FULL,
  durable across a power cut) and a disk workspace.
- **Data.** The workspace is real source code copied from the local cargo registry; the long
  session is built once through the engine; both are cached in `bench-data/` under cargo's
  target directory.

";
