//! Shell capture (`Engine::snapshot_workspace` over SQLite and the disk workspace's stat-cache
//! scan) against shadow git, on real trees of 10,000 and 100,000 files, side by side in one
//! run: the first snapshot, a snapshot with nothing changed, the overhead of capturing a
//! command that changes 3 files, and (at 10,000 files) what 20 such commands store.
//! Each sample of one side is followed by the matching sample of the other, so drift in the
//! machine's load hits both alike; the table is built by `shell_report`.

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, Samples, child_peak_kib, peak_kib, reset_peak, run};
use crate::report::Table;
use crate::shadow::{ShadowGit, du, remove_db};
use crate::shell_report::{Exec, First, Results, STORAGE_COMMANDS, Storage, Unchanged};
use crate::shell_tree::{self, Tree};
use crate::workload;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::ports::Scan as _;
use rewind_core::shell::{Attribution, Options, Outcome};
use rewind_host::{DiskWorkspace, NativeEngine};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The sizes measured, the samples of a cold (first) snapshot at each and the divisor of the
/// warm samples: a cold shadow-git snapshot of 100,000 files takes tens of seconds, a warm
/// command sample there about ten (both sides, their catch-ups and the CLI).
const SIZES: &[(usize, usize, usize)] = &[(10_000, 5, 1), (100_000, 3, 2)];

/// Durations collected by hand (the samples of both sides interleave) and the peak RSS.
#[derive(Debug, Default)]
struct Series {
    times: Vec<Duration>,
    peak: Option<u64>,
}

impl Series {
    fn push(&mut self, keep: bool, d: Duration, peak: Option<u64>) {
        if keep {
            self.times.push(d);
            self.peak = self.peak.max(peak);
        }
    }
    fn done(self) -> Measured {
        Measured {
            samples: Samples::new(self.times),
            peak_kib: self.peak,
        }
    }
}

fn time<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
    let t0 = Instant::now();
    let out = f()?;
    Ok((out, t0.elapsed()))
}

/// One size's workspace, store and shadow repository.
struct Rig {
    tree: Tree,
    db: PathBuf,
    git: ShadowGit,
    /// The release `rewind` binary, when built.
    cli: Option<PathBuf>,
    /// Commands run so far (each gets its own number, so each creates a new file).
    runs: usize,
}

/// The live engine, session and turn the snapshots go to.
struct Live {
    e: NativeEngine,
    s: SessionId,
    t: TurnId,
}

impl Rig {
    /// Open a store the way the CLI does, start a session and a turn.
    fn open(&self, db: &Path) -> Result<Live> {
        let (mut e, _) = rewind_host::open(&self.tree.root, db)?;
        let s = workload::new_session(&mut e)?;
        let (t, _) = workload::prompt(&mut e, &s, "run commands".into())?;
        Ok(Live { e, s, t })
    }
    fn run_command(&mut self) -> Result<()> {
        self.runs += 1;
        run(&mut self.tree.command(self.runs))?;
        Ok(())
    }
    fn cli(&self, bin: &Path) -> Command {
        let mut c = Command::new(bin);
        c.arg("--workspace")
            .arg(&self.tree.root)
            .arg("--db")
            .arg(&self.db)
            .arg("--json")
            .stdout(Stdio::null());
        c
    }
}

fn snap(live: &mut Live, command: Option<String>) -> Result<Outcome> {
    // Before a command the changes found are the person's; after one, the command's.
    let attribution = match command {
        Some(_) => Attribution::Command,
        None => Attribution::External,
    };
    Ok(live.e.snapshot_workspace(
        &live.s,
        Options {
            turn_id: live.t.clone(),
            command,
            tool_name: None,
            tool_call_id: None,
            tool_message_id: None,
            attribution,
        },
    )?)
}

/// Run the scenario: one table per size.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Vec<Table>> {
    let mut tables = Vec::new();
    for &(files, cold, div) in SIZES {
        let tree = shell_tree::prepare(data, corpus, files)?;
        let dir = data.join(format!("shell{files}-run"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let bin = std::env::current_exe()?.with_file_name("rewind");
        let mut rig = Rig {
            db: dir.join("rewind.db"),
            git: ShadowGit {
                git_dir: dir.join("shadow.git"),
                work_tree: tree.root.clone(),
            },
            tree,
            cli: bin.exists().then_some(bin),
            runs: 0,
        };
        let warm = (samples / div).max(3);
        let result = measure_size(&mut rig, &dir, (cold, warm), files == SIZES[0].0);
        rig.tree.reset()?;
        let _ = std::fs::remove_dir_all(&dir);
        tables.push(crate::shell_report::table(&rig.tree, &result?));
    }
    Ok(tables)
}

fn measure_size(
    rig: &mut Rig,
    dir: &Path,
    (cold, samples): (usize, usize),
    with_storage: bool,
) -> Result<Results> {
    let files = rig.tree.tracked;
    let mut started = Instant::now();
    let mut phase = |what: &str| {
        eprintln!(
            "bench: shell: {files} files: {what} (previous step {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        started = Instant::now();
    };
    phase(&format!("first snapshots ({cold} samples each)"));
    let (first, mut live) = first(rig, cold)?;
    phase(&format!(
        "snapshots with nothing changed ({samples} samples)"
    ));
    let unchanged = unchanged(rig, &mut live, samples)?;
    phase(&format!("commands changing 3 files ({samples} samples)"));
    let exec = exec(rig, &mut live, samples)?;
    drop(live);
    let storage = if with_storage {
        phase(&format!("storage after {STORAGE_COMMANDS} commands"));
        Some(storage(rig, dir)?)
    } else {
        None
    };
    phase("done");
    Ok(Results {
        first,
        unchanged,
        exec,
        storage,
    })
}

/// Cold: shadow git's `init` + `add -A` + `commit`, and rewind's first snapshot into a fresh
/// store; returns the last rewind store open, with its baseline.
fn first(rig: &Rig, cold: usize) -> Result<(First, Live)> {
    let files = rig.tree.tracked;
    let (mut git, mut ours) = (Series::default(), Series::default());
    let mut live = None;
    let mut reread = 0;
    warm_page_cache(&rig.tree.root)?;
    for _ in 0..cold {
        let _ = std::fs::remove_dir_all(&rig.git.git_dir);
        let (peak, d) = time(|| {
            rig.git.init()?;
            rig.git.snapshot_with_peak("first")
        })?;
        git.push(true, d, peak);
        drop(live.take());
        remove_db(&rig.db);
        reset_peak();
        let ((l, out), d) = time(|| {
            let mut l = rig.open(&rig.db)?;
            let out = snap(&mut l, None)?;
            Ok((l, out))
        })?;
        ours.push(true, d, peak_kib());
        let files = files + rig.tree.ignored_small;
        if !out.baseline || out.files != files as u64 {
            return Err(
                format!("first snapshot: {out:?} is not a baseline of {files} files").into(),
            );
        }
        reread = out.reread;
        live = Some(l);
    }
    let live = live.ok_or("no first snapshot")?;
    let listed = run(rig.git.cmd().args(["ls-files", "-z"]))?.stdout;
    let first = First {
        git: git.done(),
        ours: ours.done(),
        reread,
        git_files: listed.iter().filter(|&&b| b == 0).count(),
    };
    Ok((first, live))
}

/// Read every file once, so the first snapshots of both sides start from the same warm page
/// cache (cheaper than a warm-up sample of each: at 100,000 files a cold git sample takes
/// half a minute).
fn warm_page_cache(root: &Path) -> Result<()> {
    let mut files = Vec::new();
    crate::corpus::walk(root, &mut files)?;
    for f in files {
        std::hint::black_box(std::fs::read(f)?);
    }
    Ok(())
}

/// Warm, nothing changed: rewind's stat-only snapshot (in process and through the CLI) and
/// shadow git's `add -A` + `commit`.
fn unchanged(rig: &Rig, live: &mut Live, samples: usize) -> Result<Unchanged> {
    let [mut ours, mut walk, mut git, mut cli] = [(); 4].map(|()| Series::default());
    let mut reread = 0;
    let mut disk = DiskWorkspace::open(&rig.tree.root)?;
    let (session, turn) = (live.s.to_string(), live.t.to_string());
    let snapshot_args = ["snapshot", session.as_str(), "--turn", turn.as_str()];
    for i in 0..2 + samples {
        let keep = i >= 2;
        reset_peak();
        let (out, d) = time(|| snap(live, None))?;
        ours.push(keep, d, peak_kib());
        if out.checkpoint_id.is_some() {
            return Err(format!("a snapshot with nothing changed recorded {out:?}").into());
        }
        reread = reread.max(out.reread);
        let (listing, d) = time(|| Ok(disk.list()?))?;
        walk.push(keep, d, None);
        std::hint::black_box(listing);
        let (peak, d) = time(|| rig.git.snapshot_with_peak("nothing"))?;
        git.push(keep, d, peak);
        if let Some(bin) = &rig.cli {
            let (_, d) = time(|| run(rig.cli(bin).args(snapshot_args)))?;
            cli.push(keep, d, None);
        }
    }
    if let Some(bin) = &rig.cli {
        let c = rig.cli(bin);
        let args: Vec<&OsStr> = c.get_args().chain(snapshot_args.map(OsStr::new)).collect();
        cli.peak = child_peak_kib(&bin.to_string_lossy(), &args, &rig.tree.root);
    }
    Ok(Unchanged {
        ours: ours.done(),
        walk: walk.done(),
        git: git.done(),
        cli: rig.cli.is_some().then(|| cli.done()),
        reread,
    })
}

/// The command's overhead: rewind's snapshot + command + snapshot, the bare command, and
/// shadow git's `add -A` + `commit` after it; each side first catches up (untimed) with the
/// commands the other side ran.
fn exec(rig: &mut Rig, live: &mut Live, samples: usize) -> Result<Exec> {
    let mut s = [(); 5].map(|()| Series::default());
    let [total, snaps, bare, git, cli] = &mut s;
    let (mut reread, mut racy) = ((0, 0), 0);
    for i in 0..1 + samples {
        let keep = i >= 1;
        snap(live, None)?;
        reset_peak();
        let t0 = Instant::now();
        let (before, d1) = time(|| snap(live, None))?;
        rig.run_command()?;
        let line = rig.tree.command_line(rig.runs);
        let (after, d2) = time(|| snap(live, Some(line)))?;
        total.push(keep, t0.elapsed(), peak_kib());
        snaps.push(keep, d1 + d2, None);
        let c = &after.changed;
        // The first command also makes `src/gen/`, a directory snapshots record too.
        let files = c.created.iter().filter(|p| p.to_string() != "src/gen");
        if (files.count(), c.modified.len(), c.deleted.len()) != (1, 2, 0) {
            return Err(format!(
                "the command's snapshot found {c:?}, not 1 file created, 2 modified"
            )
            .into());
        }
        reread = (before.reread, after.reread);
        racy = before.racy;

        rig.git.snapshot("catch up")?;
        let ((), d) = time(|| rig.run_command())?;
        bare.push(keep, d, None);
        let (peak, d) = time(|| rig.git.snapshot_with_peak("command"))?;
        git.push(keep, d, peak);

        if let Some(bin) = rig.cli.clone() {
            snap(live, None)?;
            rig.runs += 1;
            let mut c = rig.cli(&bin);
            c.args(["exec", live.s.as_str(), "--turn", live.t.as_str(), "--"])
                .args(rig.tree.argv(rig.runs));
            let (_, d) = time(|| run(&mut c))?;
            cli.push(keep, d, None);
        }
    }
    let [total, snaps, bare, git, cli] = s;
    Ok(Exec {
        total: total.done(),
        snaps: snaps.done(),
        bare: bare.done(),
        git: git.done(),
        cli: rig.cli.is_some().then(|| cli.done()),
        reread,
        racy,
    })
}

/// db + WAL.
fn db_wal_bytes(db: &Path) -> u64 {
    let wal = PathBuf::from(format!("{}-wal", db.display()));
    [db, wal.as_path()]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

/// A fresh store and shadow repository, a first snapshot each, then the same
/// `STORAGE_COMMANDS` commands captured by both.
fn storage(rig: &mut Rig, dir: &Path) -> Result<Storage> {
    let db = dir.join("storage.db");
    let git = ShadowGit {
        git_dir: dir.join("storage.git"),
        work_tree: rig.tree.root.clone(),
    };
    remove_db(&db);
    let mut live = rig.open(&db)?;
    let mut manifest = snap(&mut live, None)?.manifest;
    git.init()?;
    git.snapshot("first")?;
    let ours_first = db_wal_bytes(&db);
    // Closed once, so the WAL is checkpointed into the database: its size then is what is kept.
    let Live { e, s, t } = live;
    drop(e);
    let ours_first_closed = db_wal_bytes(&db);
    let (e, _) = rewind_host::open(&rig.tree.root, &db)?;
    let mut live = Live { e, s, t };
    let mut st = Storage {
        ours_first,
        ours_first_closed,
        git_first: du(&git.git_dir)?,
        ..Storage::default()
    };
    for _ in 0..STORAGE_COMMANDS {
        for after in [false, true] {
            let line = if after {
                rig.run_command()?;
                Some(rig.tree.command_line(rig.runs))
            } else {
                None
            };
            let out = snap(&mut live, line)?;
            st.snapshots += 1;
            if out.manifest != manifest {
                st.manifests += 1;
                manifest = out.manifest;
            }
        }
        git.snapshot("command")?;
    }
    st.ours_open = db_wal_bytes(&db);
    drop(live);
    st.ours_closed = db_wal_bytes(&db);
    st.git = du(&git.git_dir)?;
    run(git.cmd().args(["gc", "-q"]))?;
    st.git_gc = du(&git.git_dir)?;
    Ok(st)
}
