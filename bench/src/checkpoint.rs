//! Checkpoint and restore of a 3-file agent turn in the 10,000-file workspace: the real native
//! engine (SQLite WAL, `synchronous=FULL`) against a shadow-git snapshot of the whole tree,
//! the way Gemini CLI, Cline, Roo and OpenCode keep checkpoints (`git --git-dir=<shadow>
//! --work-tree=<workspace> add -A` then `commit`).

use crate::corpus::Corpus;
use crate::harness::{Result, child_peak_kib, fmt_bytes, measure, measure_children, ratio, run};
use crate::report::{Met, Table};
use crate::shadow::{ShadowGit, db_bytes, du, remove_db};
use crate::workload::{self, Change};
use rewind_core::id::SessionId;
use rewind_core::testkit::MemStore;
use rewind_host::{
    DiskWorkspace, Durability, NativeEngine, NativeWorkspace, RandomIds, SystemClock,
};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The three real files one turn edits, with their original bytes.
struct Edited {
    root: PathBuf,
    files: Vec<(String, Vec<u8>)>,
    turn: usize,
}

impl Edited {
    fn pick(corpus: &Corpus) -> Result<Self> {
        let rs: Vec<&String> = corpus.files.iter().filter(|f| f.ends_with(".rs")).collect();
        let mut files = Vec::new();
        for k in 1..=3 {
            let path = rs[rs.len() * k / 4].clone();
            let bytes = std::fs::read(corpus.root.join(&path))?;
            files.push((path, bytes));
        }
        Ok(Self {
            root: corpus.root.clone(),
            files,
            turn: 0,
        })
    }
    /// The tool's edit: append a line to each file on disk; returns before/after bytes.
    fn edit(&mut self) -> Result<Vec<Change>> {
        self.turn += 1;
        let mut out = Vec::new();
        for (path, _) in &self.files {
            let full = self.root.join(path);
            let before = std::fs::read(&full)?;
            let mut after = before.clone();
            after.extend_from_slice(format!("// rewind-bench turn {}\n", self.turn).as_bytes());
            std::fs::write(&full, &after)?;
            out.push(Change {
                path: path.clone(),
                before,
                after,
            });
        }
        Ok(out)
    }
    fn paths(&self) -> Vec<String> {
        self.files.iter().map(|(p, _)| p.clone()).collect()
    }
    /// Put the original bytes back (the cached corpus stays pristine).
    fn restore_originals(&self) -> Result<()> {
        for (path, bytes) in &self.files {
            std::fs::write(self.root.join(path), bytes)?;
        }
        Ok(())
    }
}

/// The `rewind` CLI over the same workspace and database: one whole process per call.
struct Cli {
    bin: PathBuf,
    ws: PathBuf,
    db: PathBuf,
    scratch: PathBuf,
}

impl Cli {
    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.arg("--workspace")
            .arg(&self.ws)
            .arg("--db")
            .arg(&self.db)
            .arg("--json");
        c
    }
    /// A turn as a host without the library would record it: `prompt`, one `edit` per file
    /// (before bytes from a file, after = the file on disk), `turn-end`.
    fn turn(&self, s: &SessionId, before_files: &[(String, PathBuf)]) -> Result<()> {
        let out = run(self
            .cmd()
            .args(["prompt", s.as_str(), "--text", "edit three files"]))?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        let turn = v["turnId"]
            .as_str()
            .ok_or("rewind prompt printed no turnId")?;
        for (path, before) in before_files {
            run(self
                .cmd()
                .args(["edit", s.as_str(), "--turn", turn, "--path", path])
                .arg("--before-file")
                .arg(before))?;
        }
        run(self.cmd().args(["turn-end", s.as_str(), "--turn", turn]))?;
        Ok(())
    }
    /// Write each change's before bytes to a scratch file (untimed setup of a CLI turn).
    fn stage(&self, changes: &[Change]) -> Result<Vec<(String, PathBuf)>> {
        std::fs::create_dir_all(&self.scratch)?;
        changes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let f = self.scratch.join(format!("before{i}"));
                std::fs::write(&f, &c.before)?;
                Ok((c.path.clone(), f))
            })
            .collect()
    }
}

/// Our turn: prompt + one `record_edit` per file + complete.
fn record_turn(e: &mut NativeEngine, s: &SessionId, changes: &[Change]) -> Result<()> {
    let (t, _) = workload::prompt(e, s, "edit three files".into())?;
    for c in changes {
        workload::edit(e, s, &t, std::slice::from_ref(c))?;
    }
    workload::complete(e, s, &t)
}

/// Run the scenario; `samples` scales the warm measurements.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Table> {
    let dir = data.join("checkpoint");
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("rewind.db");
    let git = ShadowGit {
        git_dir: dir.join("shadow.git"),
        work_tree: corpus.root.clone(),
    };
    let mut edited = Edited::pick(corpus)?;
    let cli = Cli {
        bin: std::env::current_exe()?.with_file_name("rewind"),
        ws: corpus.root.clone(),
        db: db.clone(),
        scratch: dir.join("cli-scratch"),
    };
    let result = scenario(&db, &git, &cli, &mut edited, corpus, samples);
    edited.restore_originals()?;
    result
}

fn scenario(
    db: &Path,
    git: &ShadowGit,
    cli: &Cli,
    edited: &mut Edited,
    corpus: &Corpus,
    samples: usize,
) -> Result<Table> {
    let ws = corpus.root.clone();
    let n_files = corpus.files.len();

    // Cold, git: the first snapshot of the whole tree (init + add -A + commit).
    eprintln!("bench: checkpoint: cold shadow-git snapshots of {n_files} files");
    let mut git_cold = measure_children(
        &mut (),
        (1, 5),
        |()| {
            let _ = std::fs::remove_dir_all(&git.git_dir);
            Ok(())
        },
        |(), ()| {
            git.init()?;
            git.snapshot("first")
        },
    )?;
    let _ = std::fs::remove_dir_all(&git.git_dir);
    git.init()?;
    git_cold.peak_kib = git.add_peak_kib();
    git.snapshot("first")?;

    // Cold, rewind: open a fresh database, start a session, record the first turn.
    eprintln!("bench: checkpoint: cold rewind turns");
    let ours_cold = measure(
        edited,
        (1, samples),
        |ed| {
            remove_db(db);
            ed.edit()
        },
        |_, changes| {
            let (mut e, _) = rewind_host::open(&ws, db)?;
            let s = workload::new_session(&mut e)?;
            record_turn(&mut e, &s, &changes)?;
            Ok(e)
        },
    )?;
    // Both now hold exactly one snapshot of the current tree.
    remove_db(db);
    let (mut e, _) = rewind_host::open(&ws, db)?;
    let s = workload::new_session(&mut e)?;
    record_turn(&mut e, &s, &edited.edit()?)?;
    git.snapshot("sync")?;

    // Warm: later turns (each edits the same three files again).
    eprintln!("bench: checkpoint: warm turns");
    let warm_n = samples * 2;
    let mut git_warm = measure_children(
        edited,
        (2, warm_n),
        |ed| ed.edit().map(drop),
        |_, ()| git.snapshot("turn"),
    )?;
    let mut cx = (edited, e);
    let ours_warm = measure(
        &mut cx,
        (2, warm_n),
        |(ed, _)| ed.edit(),
        |(_, e), changes| record_turn(e, &s, &changes),
    )?;
    // The same turn with every commit `synchronous=FULL` (the setting before NORMAL was
    // adopted for record batches), in the same run.
    cx.1.store_mut().set_record_durability(Durability::Full);
    let ours_full = measure(
        &mut cx,
        (2, warm_n),
        |(ed, _)| ed.edit(),
        |(_, e), changes| record_turn(e, &s, &changes),
    )?;
    cx.1.store_mut().set_record_durability(Durability::Normal);
    // The floor: the three files' new bytes copied into one file and fsynced once.
    let backup = db.with_file_name("copy-floor.bin");
    let copy = measure(
        &mut cx,
        (2, warm_n),
        |(ed, _)| ed.edit(),
        |_, changes| {
            let afters: Vec<&[u8]> = changes.iter().map(|c| c.after.as_slice()).collect();
            crate::floor::copy_with_one_fsync(&backup, &afters)
        },
    )?;
    let (edited, mut e) = cx;
    // The same turn over the in-memory store: the engine's own cost without SQLite or fsync.
    let mut mem = rewind_core::Engine::new(
        MemStore::new(),
        NativeWorkspace::new(DiskWorkspace::open(&ws)?),
        SystemClock,
        RandomIds,
    );
    let mem_s = workload::new_session(&mut mem)?;
    let mut cx = (&mut *edited, mem);
    let ours_mem = measure(
        &mut cx,
        (2, warm_n),
        |(ed, _)| ed.edit(),
        |(_, e), changes| {
            let (t, _) = workload::prompt(e, &mem_s, "edit three files".into())?;
            for c in &changes {
                workload::edit(e, &mem_s, &t, std::slice::from_ref(c))?;
            }
            workload::complete(e, &mem_s, &t)
        },
    )?;
    drop(cx);
    // Same number of snapshots on both sides: 1 + 2 + warm_n + 1 sync.
    let (git_apparent, git_alloc) = du(&git.git_dir)?;
    let ours_bytes = db_bytes(db);
    let ours_turns = 2 + warm_n + 1;
    edited.edit()?;
    git_warm.peak_kib = git.add_peak_kib();
    git.snapshot("peak")?;

    // Restore the last turn's three files.
    eprintln!("bench: checkpoint: restores");
    let paths = edited.paths();
    let mut git_restore = measure_children(
        edited,
        (1, warm_n),
        |ed| {
            let before = git.head()?;
            ed.edit()?;
            git.snapshot("turn")?;
            Ok(before)
        },
        |_, before| {
            run(git.cmd().args(["checkout", &before, "--"]).args(&paths))?;
            Ok(())
        },
    )?;
    git_restore.peak_kib = {
        let before = git.head()?;
        edited.edit()?;
        git.snapshot("turn")?;
        let mut args: Vec<OsString> = git.cmd().get_args().map(ToOwned::to_owned).collect();
        args.extend(["checkout".into(), before.into(), "--".into()]);
        args.extend(paths.iter().map(OsString::from));
        let refs: Vec<&std::ffi::OsStr> = args.iter().map(OsString::as_os_str).collect();
        child_peak_kib("git", &refs, &ws)
    };
    let mut cx = (&mut *edited, &mut e);
    let ours_restore = measure(
        &mut cx,
        (1, warm_n),
        |(ed, e)| {
            let changes = ed.edit()?;
            let (t, m) = workload::prompt(e, &s, "edit three files".into())?;
            for c in &changes {
                workload::edit(e, &s, &t, std::slice::from_ref(c))?;
            }
            workload::complete(e, &s, &t)?;
            Ok(m)
        },
        |(_, e), m| workload::preview_apply(e, &s, &m, 3),
    )?;
    drop(e);

    // The same warm turn through the CLI, one process per call, when the binary was built.
    eprintln!("bench: checkpoint: warm turns through the rewind CLI");
    let cli_warm = if cli.bin.exists() {
        let mut m = measure_children(
            edited,
            (1, samples),
            |ed| cli.stage(&ed.edit()?),
            |_, staged| cli.turn(&s, &staged),
        )?;
        m.peak_kib = {
            let staged = cli.stage(&edited.edit()?)?;
            let mut args: Vec<OsString> = cli.cmd().get_args().map(ToOwned::to_owned).collect();
            args.extend(["edit".into(), s.to_string().into(), "--turn".into()]);
            // A turn is needed: start one the normal way, then measure one `edit` process.
            let out = run(cli.cmd().args(["prompt", s.as_str(), "--text", "peak"]))?;
            let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            args.push(v["turnId"].as_str().unwrap_or_default().into());
            args.extend([
                "--path".into(),
                staged[0].0.clone().into(),
                "--before-file".into(),
            ]);
            args.push(staged[0].1.clone().into_os_string());
            let refs: Vec<&std::ffi::OsStr> = args.iter().map(OsString::as_os_str).collect();
            child_peak_kib(&cli.bin.to_string_lossy(), &refs, &ws)
        };
        Some(m)
    } else {
        None
    };

    let cold_x = ratio(git_cold.samples.median(), ours_cold.samples.median());
    let warm_x = ratio(git_warm.samples.median(), ours_warm.samples.median());
    let copy_x = ratio(ours_warm.samples.median(), copy.samples.median());
    let full_x = ratio(ours_full.samples.median(), ours_warm.samples.median());
    let restore_x = ratio(git_restore.samples.median(), ours_restore.samples.median());
    let mut t = Table::new(format!(
        "Checkpoint and restore of a 3-file turn in a {n_files}-file workspace vs. shadow git"
    ));
    t.timed(
        "shadow git, cold: init + `add -A` + `commit` of the whole tree",
        &git_cold,
        "",
        Met::None,
    )
    .timed(
        "rewind, cold: open fresh DB + session + prompt + 3 × record_edit + complete",
        &ours_cold,
        "",
        Met::None,
    )
    .value(
        "**cold ratio** (git / rewind)",
        format!("{cold_x:.0}×"),
        "≥ 100×",
        Met::from(cold_x >= 100.0),
    )
    .timed(
        "shadow git, warm: `add -A` + `commit`",
        &git_warm,
        "",
        Met::None,
    )
    .timed(
        "rewind, warm: prompt + 3 × record_edit + complete",
        &ours_warm,
        "",
        Met::None,
    )
    .value(
        "**warm ratio** (git / rewind)",
        format!("{warm_x:.0}×"),
        "≥ 100×",
        Met::from(warm_x >= 100.0),
    )
    .timed(
        "floor: copy the 3 files' new bytes into one file + one fsync",
        &copy,
        "",
        Met::None,
    )
    .value(
        "**rewind warm / copy + fsync**",
        format!("{copy_x:.1}×"),
        "≤ 3×",
        Met::from(copy_x <= 3.0),
    )
    .timed(
        "rewind, warm, every commit `synchronous=FULL` (5 fsynced commits per turn)",
        &ours_full,
        "",
        Met::None,
    )
    .value(
        "FULL / NORMAL (warm turn)",
        format!("{full_x:.1}×"),
        "",
        Met::None,
    )
    .timed(
        "rewind, warm, in-memory store instead of SQLite (engine cost; not durable)",
        &ours_mem,
        "",
        Met::None,
    );
    match &cli_warm {
        Some(m) => {
            let x = ratio(git_warm.samples.median(), m.samples.median());
            t.timed(
                "rewind CLI, warm: `prompt` + 3 × `edit` + `turn-end` (5 whole processes)",
                m,
                "",
                Met::None,
            )
            .value(
                "warm ratio, whole processes (git / rewind CLI)",
                format!("{x:.1}×"),
                "",
                Met::None,
            );
        }
        None => {
            t.value(
                "rewind CLI, warm",
                "not built (cargo build --release -p rewind-cli)".into(),
                "",
                Met::None,
            );
        }
    }
    t.timed(
        "shadow git restore: `checkout <prev> -- <3 paths>`",
        &git_restore,
        "",
        Met::None,
    )
    .timed(
        "rewind restore: preview + apply (since the turn's prompt)",
        &ours_restore,
        "",
        Met::None,
    )
    .value(
        "**restore ratio** (git / rewind)",
        format!("{restore_x:.1}×"),
        "> 1× (faster)",
        Met::from(restore_x > 1.0),
    )
    .value(
        &format!("stored after {ours_turns} snapshots: shadow git dir (du apparent / allocated)"),
        format!("{} / {}", fmt_bytes(git_apparent), fmt_bytes(git_alloc)),
        "",
        Met::None,
    )
    .value(
        &format!("stored after {ours_turns} turns: rewind db + wal + shm"),
        fmt_bytes(ours_bytes),
        "",
        Met::None,
    );
    t.note(format!(
        "Workspace: {n_files} real source files ({}) copied from the local cargo registry. \
         git times are whole processes (spawn to exit; two processes per snapshot: `add -A`, then \
         `commit`), with auto-gc off and no user config; its peak RSS is that of one extra `add -A` \
         (or `checkout`) run under `/usr/bin/time -f %M`. rewind runs in process over SQLite in WAL \
         mode; record batches commit `synchronous=NORMAL` (durable across a crash of the process; \
         a power cut may lose the last records, never a journal: journal batches are FULL), the \
         FULL row shows the same turn with every commit fsynced; its peak RSS is this \
         process's high-water mark while the samples ran. The bytes each tool stores are measured \
         after the same number of snapshots, before the restore samples.",
        fmt_bytes(corpus.bytes)
    ));
    Ok(t)
}
