//! What tracking small ignored files costs a snapshot: the shell scenario's trees of 10,000 and
//! 100,000 files (a `.gitignore`d `target/` of a tenth as many again, and small ignored
//! `.env.local` files in walked directories), each snapshotted with nothing changed by two
//! stores side by side in one run: one with the rule on (the default), one with it off
//! (`"trackIgnoredFiles": false`, the stat-only walk of before). Samples alternate between the
//! two, so drift in the machine's load hits both alike. Target: on costs at most 10 % more.

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, Samples, fmt_ms, ratio};
use crate::report::{Met, Table};
use crate::shell_tree::{self, Tree};
use crate::workload;
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
        // Alternating which side goes first cancels what running second costs or gains.
        for i in 0..n.max(samples / 2) {
            let (first, second) = if i % 2 == 0 {
                (&mut off, &mut on)
            } else {
                (&mut on, &mut off)
            };
            first.sample()?;
            second.sample()?;
        }
        let (snap_off, snap_on) = (measured(&off.snaps), measured(&on.snaps));
        let (list_off, list_on) = (measured(&off.lists), measured(&on.lists));
        let r = ratio(snap_on.samples.median(), snap_off.samples.median());
        let label = |what: &str| format!("{files} files: {what}");
        table
            .timed(
                &label("unchanged snapshot, rule off"),
                &snap_off,
                "",
                Met::None,
            )
            .timed(
                &label("unchanged snapshot, rule on"),
                &snap_on,
                "",
                Met::None,
            )
            .value(
                &label("on / off (snapshot medians)"),
                format!("{r:.3}"),
                "<= 1.10",
                Met::from(r <= TARGET),
            )
            .timed(&label("the walk alone, off"), &list_off, "", Met::None)
            .timed(&label("the walk alone, on"), &list_on, "", Met::None)
            .value(
                &label("walk on / off"),
                format!(
                    "{:.3} ({} vs {})",
                    ratio(list_on.samples.median(), list_off.samples.median()),
                    fmt_ms(list_on.samples.median()),
                    fmt_ms(list_off.samples.median())
                ),
                "",
                Met::None,
            );
        drop((off, on));
        let _ = std::fs::remove_dir_all(&dir);
    }
    table.note(
        "Both stores snapshot the same tree with nothing changed (every file vouched for by its \
         stat data); the rule adds a second listing of each walked directory (names and types, \
         no stat) and a stat of each ignored file found there. `target/` is never entered.",
    );
    Ok(vec![table])
}
