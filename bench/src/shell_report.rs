//! The shell scenario's measurements and the table they make (one per tree size).

use crate::harness::{Measured, fmt_bytes, fmt_ms, ratio};
use crate::report::{Met, Table};
use crate::shell_tree::Tree;
use std::time::Duration;

/// Commands run before the storage is measured (the report's storage row names the count).
pub const STORAGE_COMMANDS: usize = 20;

/// First snapshots.
#[derive(Debug)]
pub struct First {
    /// Shadow git: `init` + `add -A` + `commit`.
    pub git: Measured,
    /// rewind: open a fresh store + session + prompt + snapshot.
    pub ours: Measured,
    /// Files rewind read.
    pub reread: u64,
    /// Files git's index lists.
    pub git_files: usize,
}

/// Snapshots with nothing changed.
#[derive(Debug)]
pub struct Unchanged {
    /// rewind, in process.
    pub ours: Measured,
    /// The disk workspace's walk alone (`Scan::list`).
    pub walk: Measured,
    /// Shadow git `add -A` + `commit`.
    pub git: Measured,
    /// `rewind snapshot` (whole process), when the binary was built.
    pub cli: Option<Measured>,
    /// The most files any of these snapshots re-read.
    pub reread: u64,
}

/// A command that changes 3 files.
#[derive(Debug)]
pub struct Exec {
    /// rewind: snapshot + command + snapshot.
    pub total: Measured,
    /// The two snapshots of each such sample.
    pub snaps: Measured,
    /// The bare command.
    pub bare: Measured,
    /// Shadow git `add -A` + `commit` after the command.
    pub git: Measured,
    /// `rewind exec` (whole process), when the binary was built.
    pub cli: Option<Measured>,
    /// Files the last sample's snapshots re-read (before, after).
    pub reread: (u64, u64),
    /// Of the before snapshot's re-reads, the racy ones.
    pub racy: u64,
}

/// Bytes stored after the commands.
#[derive(Debug, Default)]
pub struct Storage {
    /// rewind db + WAL after the first snapshot.
    pub ours_first: u64,
    /// The same after closing the store once.
    pub ours_first_closed: u64,
    /// Snapshots taken during the commands.
    pub snapshots: u64,
    /// Of those, the ones that wrote a new manifest.
    pub manifests: u64,
    /// Shadow git dir (apparent, allocated) after the first snapshot.
    pub git_first: (u64, u64),
    /// rewind db + WAL after the commands, store open.
    pub ours_open: u64,
    /// The same after closing (the WAL checkpointed into the database).
    pub ours_closed: u64,
    /// Shadow git dir after the commands.
    pub git: (u64, u64),
    /// Shadow git dir after `git gc`.
    pub git_gc: (u64, u64),
}

/// One size's results.
#[derive(Debug)]
pub struct Results {
    /// First snapshots.
    pub first: First,
    /// Nothing changed.
    pub unchanged: Unchanged,
    /// The 3-file command.
    pub exec: Exec,
    /// Storage (at 10,000 files only).
    pub storage: Option<Storage>,
}

fn x(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}×")
    } else {
        format!("{v:.1}×")
    }
}

fn du_cell((apparent, allocated): (u64, u64)) -> String {
    format!("{} / {}", fmt_bytes(apparent), fmt_bytes(allocated))
}

/// `a − b` of two medians (floored at a microsecond, so a ratio stays finite).
fn minus(a: &Measured, b: &Measured) -> Duration {
    a.samples
        .median()
        .saturating_sub(b.samples.median())
        .max(Duration::from_micros(1))
}

/// The table of one tree size.
pub fn table(tree: &Tree, r: &Results) -> Table {
    let n = tree.tracked;
    let mut t = Table::new(format!(
        "Shell capture: workspace snapshots of {n} files ({}) vs. shadow git",
        fmt_bytes(tree.tracked_bytes)
    ));
    first_rows(&mut t, &r.first);
    unchanged_rows(&mut t, &r.unchanged, n >= 100_000);
    exec_rows(&mut t, &r.exec);
    if let Some(s) = &r.storage {
        storage_rows(&mut t, s);
    }
    notes(&mut t, tree, r);
    t
}

/// The first snapshot of the whole tree, git against rewind.
fn first_rows(t: &mut Table, f: &First) {
    let first_x = ratio(f.git.samples.median(), f.ours.samples.median());
    t.timed(
        "shadow git, first: `init` + `add -A` + `commit` of the whole tree",
        &f.git,
        "",
        Met::None,
    )
    .timed(
        &format!(
            "rewind, first: open a fresh store + session + prompt + snapshot ({} files read, \
             git's index lists {})",
            f.reread, f.git_files
        ),
        &f.ours,
        "",
        Met::None,
    )
    .value(
        "**first-snapshot ratio** (git / rewind)",
        x(first_x),
        "≥ 3×",
        Met::from(first_x >= 3.0),
    );
}

/// A snapshot when nothing changed; `big` trees get the larger limit.
fn unchanged_rows(t: &mut Table, u: &Unchanged, big: bool) {
    let limit = if big { 400.0 } else { 50.0 };
    let ours_ms = u.ours.samples.median().as_secs_f64() * 1000.0;
    t.timed(
        &format!(
            "**rewind, nothing changed**: stat-only snapshot ({} files re-read)",
            u.reread
        ),
        &u.ours,
        &format!("< {limit:.0} ms"),
        Met::from(ours_ms < limit),
    )
    .timed(
        "of which (measured alone): the disk workspace's walk, `Scan::list` (stat of every file)",
        &u.walk,
        "",
        Met::None,
    )
    .timed(
        "shadow git, nothing changed: `add -A` + `commit`",
        &u.git,
        "",
        Met::None,
    )
    .value(
        "nothing-changed ratio (git / rewind)",
        x(ratio(u.git.samples.median(), u.ours.samples.median())),
        "",
        Met::None,
    );
    if let Some(cli) = &u.cli {
        t.timed(
            "rewind CLI, nothing changed: `rewind snapshot` (whole process)",
            cli,
            "",
            Met::None,
        );
    }
}

/// The overhead of capturing a shell command, in process and through the CLI.
fn exec_rows(t: &mut Table, e: &Exec) {
    let ours_over = minus(&e.total, &e.bare);
    let git_over = e.git.samples.median();
    let exec_x = ratio(git_over, ours_over);
    t.timed(
        "bare command: `sh` + 2 × `sed -i` + 1 new file",
        &e.bare,
        "",
        Met::None,
    )
    .timed(
        &format!(
            "rewind: snapshot + command + snapshot (re-read {} before, {} of them racy; {} after)",
            e.reread.0, e.racy, e.reread.1
        ),
        &e.total,
        "",
        Met::None,
    )
    .timed(
        "of which the two snapshots (timed inside each sample)",
        &e.snaps,
        "",
        Met::None,
    )
    .value(
        "rewind overhead: (snapshot + command + snapshot) − bare command (medians)",
        fmt_ms(ours_over),
        "",
        Met::None,
    )
    .timed(
        "shadow git overhead: `add -A` + `commit` after the command",
        &e.git,
        "",
        Met::None,
    )
    .value(
        "**exec overhead ratio** (git / rewind)",
        x(exec_x),
        "≥ 10×",
        Met::from(exec_x >= 10.0),
    );
    if let Some(cli) = &e.cli {
        let over = minus(cli, &e.bare);
        t.timed(
            "rewind CLI: `rewind exec … -- sh …` (whole process: start, open, 2 snapshots, command)",
            cli,
            "",
            Met::None,
        )
        .value(
            &format!(
                "rewind CLI overhead: `rewind exec` − bare command = {}; git / CLI overhead",
                fmt_ms(over)
            ),
            x(ratio(git_over, over)),
            "",
            Met::None,
        );
    } else {
        t.value(
            "rewind CLI",
            "not built (cargo build --release -p rewind-cli)".into(),
            "",
            Met::None,
        );
    }
}

fn storage_rows(t: &mut Table, s: &Storage) {
    let after = STORAGE_COMMANDS;
    t.value(
        "stored after the first snapshot: rewind db + WAL (store open / after close)",
        format!(
            "{} / {}",
            fmt_bytes(s.ours_first),
            fmt_bytes(s.ours_first_closed)
        ),
        "",
        Met::None,
    )
    .value(
        "stored after the first snapshot: shadow git dir (du apparent / allocated)",
        du_cell(s.git_first),
        "",
        Met::None,
    )
    .value(
        &format!(
            "stored after {after} commands: rewind db + WAL (store open / after close; {} \
             snapshots, {} of them wrote a manifest)",
            s.snapshots, s.manifests
        ),
        format!("{} / {}", fmt_bytes(s.ours_open), fmt_bytes(s.ours_closed)),
        "report",
        Met::None,
    )
    .value(
        &format!("stored after {after} commands: shadow git dir (du apparent / allocated)"),
        du_cell(s.git),
        "report",
        Met::None,
    )
    .value(
        "shadow git dir after `git gc` (packed; the agents leave this to auto-gc)",
        du_cell(s.git_gc),
        "",
        Met::None,
    )
    .value(
        "growth per command: rewind db (closed) / shadow git dir (du apparent)",
        format!(
            "{} / {}",
            fmt_bytes(s.ours_closed.saturating_sub(s.ours_first_closed) / after as u64),
            fmt_bytes(s.git.0.saturating_sub(s.git_first.0) / after as u64)
        ),
        "",
        Met::None,
    )
    .value(
        &format!(
            "storage after {after} commands, shadow git / rewind (du apparent, allocated vs db + \
             WAL, store open)"
        ),
        format!(
            "{} apparent, {} allocated",
            x(s.git.0 as f64 / s.ours_open.max(1) as f64),
            x(s.git.1 as f64 / s.ours_open.max(1) as f64)
        ),
        "",
        Met::None,
    );
}

fn notes(t: &mut Table, tree: &Tree, r: &Results) {
    t.note(format!(
        "Tree: {} tracked files of real code cut from the corpus (64 B to 128 KiB, about 3.5 KiB \
         on average), four directories deep, 25 files per directory, plus a `.gitignore` \
         ignoring `target/` and `node_modules/` and their {} extra files (neither side \
         captures them; both count the same tracked files), nested `.gitignore` files with a \
         negation, and {} small ignored files in walked directories (`.env.local`, \
         `debug.log`), which rewind tracks by default and git does not. Every file's mtime is set a day back before the run, so no \
         file is racy at the first snapshot (the core re-reads any file modified within 2 s of \
         the previous snapshot's start, whatever its stat data says). Every file is read once \
         before the first snapshots, so both sides start from the same warm page cache. First \
         snapshots: {} samples each, interleaved (git, then rewind; no warm-up sample: at \
         100,000 files one costs half a minute); warm rows: {} samples after warm-ups, the \
         sides interleaved in each sample. Peak RSS of the in-process rows is this process's \
         high-water mark, which includes what the allocator kept from the first snapshot; \
         the `rewind snapshot` row's is that of one extra process run.",
        tree.tracked,
        tree.ignored,
        tree.ignored_small,
        r.first.ours.samples.count(),
        r.unchanged.ours.samples.count(),
    ));
    t.note(
        "rewind runs in process: `rewind_host::open` (SQLite in WAL mode, the disk workspace \
         with its one-pass parallel walk) and `Engine::snapshot_workspace`; shadow git is \
         whole processes (`add -A`, then `commit --allow-empty`), auto-gc off, no user config; \
         its peak RSS is the largest of its timed `add -A` runs (each under `/usr/bin/time -f \
         %M`). \
         Command rows: each sample first lets each side catch up (untimed) with the commands \
         the other side ran, then times rewind's snapshot + command + snapshot, the bare \
         command, git's `add -A` + `commit` after it and, when built, `rewind exec` (its before \
         snapshot is stat-only: caught up untimed first). The files the previous command \
         changed are racy for the next before-snapshot (modified within 2 s of the snapshot \
         that read them), so it re-reads them: the steady state of back-to-back commands.",
    );
}
