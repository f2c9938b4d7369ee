//! What tracking small ignored files costs a snapshot: the shell scenario's trees of 10,000 and
//! 100,000 files (`.gitignore`d `target/` and `node_modules/` of 15 % as many again, nested
//! `.gitignore` files with negations, small ignored `.env.local` and `debug.log` files in
//! walked directories), each snapshotted with nothing changed by two stores side by side in
//! one run: one with the rule on (the default), one with it off (`"trackIgnoredFiles": false`,
//! stat-only), plus the walk shell capture made before its one-pass walker (`walk_before`, the
//! `ignore` crate's). Samples rotate the order of the three, so drift in the machine's load
//! hits all alike. Target: on costs at most 10 % more than stat-only.

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, Samples, fmt_ms, ratio};
use crate::report::{Met, Table};
use crate::shell_tree::{self, Tree};
use crate::{walk_before, workload};
use rewind_core::id::{SessionId, TurnId};
use rewind_core::ports::Workspace as _;
use rewind_core::shell::{Attribution, Options};
use rewind_host::config::Config;
use rewind_host::{Access, NativeEngine, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

/// Sizes measured and the samples at each (a 100,000-file unchanged snapshot takes ~1 s).
const SIZES: &[(usize, usize)] = &[(10_000, 21), (100_000, 9)];

/// The largest extra cost allowed.
const TARGET: f64 = 1.10;

struct Side {
    e: NativeEngine,
    s: SessionId,
    t: TurnId,
    snaps: Vec<Duration>,
    lists: Vec<Duration>,
    files: u64,
}

impl Side {
    /// A store in `dir` whose config turns the rule on or off; its baseline taken.
    fn open(tree: &Tree, dir: &Path, on: bool) -> Result<Self> {
        std::fs::create_dir_all(dir)?;
        let db = dir.join("rewind.db");
        let config = Config {
            track_ignored_files: on,
            ..Config::default()
        };
        let opts = OpenOptions {
            access: Access::Record,
            config,
        };
        let mut e = rewind_host::open_with(&tree.root, &db, opts)?.engine;
        let s = workload::new_session(&mut e)?;
        let (t, _) = workload::prompt(&mut e, &s, "run commands".into())?;
        let mut side = Self {
            e,
            s,
            t,
            snaps: Vec::new(),
            lists: Vec::new(),
            files: 0,
        };
        side.files = side.snap(true)?.0;
        Ok(side)
    }

    /// One snapshot (the baseline, or one that must find nothing changed): (files, time).
    fn snap(&mut self, baseline: bool) -> Result<(u64, Duration)> {
        let opts = Options {
            turn_id: self.t.clone(),
            command: None,
            tool_name: None,
            tool_call_id: None,
            tool_message_id: None,
            attribution: Attribution::Auto,
        };
        let t0 = Instant::now();
        let out = self.e.snapshot_workspace(&self.s, opts)?;
        let d = t0.elapsed();
        if !baseline && (out.checkpoint_id.is_some() || out.reread != 0) {
            return Err(format!("an unchanged snapshot recorded something: {out:?}").into());
        }
        Ok((out.files, d))
    }

    /// One sample: the walk alone, then a whole snapshot.
    fn sample(&mut self) -> Result<()> {
        let scan = self.e.workspace_mut().scanner().ok_or("the disk scans")?;
        let t0 = Instant::now();
        scan.list()?;
        self.lists.push(t0.elapsed());
        let (_, d) = self.snap(false)?;
        self.snaps.push(d);
        Ok(())
    }
}

fn measured(v: &[Duration]) -> Measured {
    Measured {
        samples: Samples::new(v.to_vec()),
        peak_kib: None,
    }
}

/// The walk of before, timed.
fn walk_before(root: &Path, expected: usize, out: &mut Vec<Duration>) -> Result<()> {
    let t0 = Instant::now();
    let n = walk_before::list(root);
    out.push(t0.elapsed());
    if n != expected {
        return Err(format!("the walk of before listed {n} entries, not {expected}").into());
    }
    Ok(())
}

/// Run the scenario: one table for both sizes.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Vec<Table>> {
    let mut table = Table::new("Shell capture: tracking small ignored files (on vs off)");
    for &(files, n) in SIZES {
        let tree = shell_tree::prepare(data, corpus, files)?;
        let dir = data.join(format!("shell{files}-ignored-run"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut off = Side::open(&tree, &dir.join("off"), false)?;
        let mut on = Side::open(&tree, &dir.join("on"), true)?;
        let extra = on.files.saturating_sub(off.files);
        if extra != tree.ignored_small as u64 {
            return Err(
                format!("{extra} ignored files tracked, not {}", tree.ignored_small).into(),
            );
        }
        // Files and directories, as the stat-only walk lists them.
        let entries = {
            let scan = off.e.workspace_mut().scanner().ok_or("the disk scans")?;
            scan.list()?.entries.len()
        };
        let mut before = Vec::new();
        // Rotating which goes first cancels what running first or last costs or gains.
        for i in 0..n.max(samples / 2) {
            match i % 3 {
                0 => (
                    off.sample()?,
                    on.sample()?,
                    walk_before(&tree.root, entries, &mut before)?,
                ),
                1 => (
                    on.sample()?,
                    walk_before(&tree.root, entries, &mut before)?,
                    off.sample()?,
                ),
                _ => (
                    walk_before(&tree.root, entries, &mut before)?,
                    off.sample()?,
                    on.sample()?,
                ),
            };
        }
        rows(&mut table, files, &off, &on, &before);
        drop((off, on));
        let _ = std::fs::remove_dir_all(&dir);
    }
    table.note(
        "Both stores snapshot the same tree with nothing changed (every file vouched for by its \
         stat data) through the one-pass walk: each directory listed once, each entry judged by \
         the ignore rules stacked per directory, only what is kept stat'ed (relative to the open \
         directory); with the rule on, the ignored regular files of walked directories are \
         stat'ed too (for their size). `target/` and `node_modules/` are never entered. \
         \"The walk of before\" is the `ignore`-crate walk shell capture used until this change \
         (stat-only), replicated in the bench with the same options and timed in the same \
         rotation; the stat-only snapshot of before is derived from it: the off snapshot minus \
         the off walk plus the walk of before (the rest of a snapshot is the same code).",
    );
    Ok(vec![table])
}

fn rows(table: &mut Table, files: usize, off: &Side, on: &Side, before: &[Duration]) {
    let (snap_off, snap_on) = (measured(&off.snaps), measured(&on.snaps));
    let (list_off, list_on) = (measured(&off.lists), measured(&on.lists));
    let before = measured(before);
    let med = |m: &Measured| m.samples.median();
    let r = ratio(med(&snap_on), med(&snap_off));
    let snap_before = (med(&snap_off) + med(&before)).saturating_sub(med(&list_off));
    let r_before = ratio(med(&snap_on), snap_before);
    let label = |what: &str| format!("{files} files: {what}");
    let walk_ratio = |a: &Measured, b: &Measured| {
        format!(
            "{:.3} ({} vs {})",
            ratio(med(a), med(b)),
            fmt_ms(med(a)),
            fmt_ms(med(b))
        )
    };
    table
        .timed(
            &label("unchanged snapshot, rule off (stat-only)"),
            &snap_off,
            "",
            Met::None,
        )
        .timed(
            &label("unchanged snapshot, rule on (default)"),
            &snap_on,
            "",
            Met::None,
        )
        .value(
            &label("**on / off** (snapshot medians)"),
            format!("{r:.3}"),
            "<= 1.10",
            Met::from(r <= TARGET),
        )
        .value(
            &label("on / the stat-only snapshot of before (derived)"),
            format!("{r_before:.3} ({})", fmt_ms(snap_before)),
            "<= 1.10",
            Met::from(r_before <= TARGET),
        )
        .timed(&label("the walk alone, off"), &list_off, "", Met::None)
        .timed(&label("the walk alone, on"), &list_on, "", Met::None)
        .timed(
            &label("the walk of before (`ignore` crate, stat-only)"),
            &before,
            "",
            Met::None,
        )
        .value(
            &label("walk on / off"),
            walk_ratio(&list_on, &list_off),
            "",
            Met::None,
        )
        .value(
            &label("walk on / the walk of before"),
            walk_ratio(&list_on, &before),
            "",
            Met::None,
        );
}
