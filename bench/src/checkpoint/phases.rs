//! The measured phases, in the order the scenario runs them: cold, warm (git, rewind NORMAL and
//! FULL, the copy floor, the in-memory store), the stored bytes, restore, and the CLI.

use super::turn::{Cli, Edited, record_turn};
use crate::harness::{Measured, Result, child_peak_kib, measure, measure_children, run};
use crate::shadow::{ShadowGit, db_bytes, du, remove_db};
use crate::workload;
use rewind_core::id::SessionId;
use rewind_core::testkit::MemStore;
use rewind_host::{
    DiskWorkspace, Durability, NativeEngine, NativeWorkspace, RandomIds, SystemClock,
};
use std::ffi::OsString;
use std::path::Path;

/// Cold, git: the first snapshot of the whole tree (init + add -A + commit).
pub(super) fn cold_git(git: &ShadowGit, n_files: usize) -> Result<Measured> {
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
    Ok(git_cold)
}

/// Cold, rewind: open a fresh database, start a session, record the first turn.
pub(super) fn cold_rewind(
    db: &Path,
    ws: &Path,
    edited: &mut Edited,
    samples: usize,
) -> Result<Measured> {
    eprintln!("bench: checkpoint: cold rewind turns");
    measure(
        edited,
        (1, samples),
        |ed| {
            remove_db(db);
            ed.edit()
        },
        |_, changes| {
            let (mut e, _) = rewind_host::open(ws, db)?;
            let s = workload::new_session(&mut e)?;
            record_turn(&mut e, &s, &changes)?;
            Ok(e)
        },
    )
}

/// Bring both sides to exactly one snapshot of the current tree; returns the engine and the
/// session every later phase records into.
pub(super) fn sync(
    db: &Path,
    ws: &Path,
    git: &ShadowGit,
    edited: &mut Edited,
) -> Result<(NativeEngine, SessionId)> {
    remove_db(db);
    let (mut e, _) = rewind_host::open(ws, db)?;
    let s = workload::new_session(&mut e)?;
    record_turn(&mut e, &s, &edited.edit()?)?;
    git.snapshot("sync")?;
    Ok((e, s))
}

/// The warm turns: later turns, each editing the same three files again.
pub(super) struct Warm {
    pub(super) git: Measured,
    pub(super) ours: Measured,
    /// The same turn with every commit `synchronous=FULL`.
    pub(super) full: Measured,
    /// The floor: the new bytes copied into one file and fsynced once.
    pub(super) copy: Measured,
    /// The same turn over the in-memory store.
    pub(super) mem: Measured,
}

/// Warm: git, then rewind (NORMAL, FULL), the copy floor and the in-memory engine.
pub(super) fn warm(
    db: &Path,
    ws: &Path,
    git: &ShadowGit,
    edited: &mut Edited,
    (e, s): (&mut NativeEngine, &SessionId),
    warm_n: usize,
) -> Result<Warm> {
    eprintln!("bench: checkpoint: warm turns");
    let git_warm = measure_children(
        edited,
        (2, warm_n),
        |ed| ed.edit().map(drop),
        |_, ()| git.snapshot("turn"),
    )?;
    let ours = warm_rewind(edited, e, s, warm_n)?;
    // The same turn with every commit `synchronous=FULL` (the setting before NORMAL was
    // adopted for record batches), in the same run.
    e.store_mut().set_record_durability(Durability::Full);
    let full = warm_rewind(edited, e, s, warm_n)?;
    e.store_mut().set_record_durability(Durability::Normal);
    let copy = copy_floor(db, edited, warm_n)?;
    let mem = warm_in_memory(ws, edited, warm_n)?;
    Ok(Warm {
        git: git_warm,
        ours,
        full,
        copy,
        mem,
    })
}

/// One warm rewind turn per sample, at the store's current durability.
fn warm_rewind(
    edited: &mut Edited,
    e: &mut NativeEngine,
    s: &SessionId,
    warm_n: usize,
) -> Result<Measured> {
    let mut cx = (edited, e);
    measure(
        &mut cx,
        (2, warm_n),
        |(ed, _)| ed.edit(),
        |(_, e), changes| record_turn(e, s, &changes),
    )
}

/// The floor: the three files' new bytes copied into one file and fsynced once.
fn copy_floor(db: &Path, edited: &mut Edited, warm_n: usize) -> Result<Measured> {
    let backup = db.with_file_name("copy-floor.bin");
    measure(
        edited,
        (2, warm_n),
        |ed| ed.edit(),
        |_, changes| {
            let afters: Vec<&[u8]> = changes.iter().map(|c| c.after.as_slice()).collect();
            crate::floor::copy_with_one_fsync(&backup, &afters)
        },
    )
}

/// The same turn over the in-memory store: the engine's own cost without SQLite or fsync.
fn warm_in_memory(ws: &Path, edited: &mut Edited, warm_n: usize) -> Result<Measured> {
    let mut mem = rewind_core::Engine::new(
        MemStore::new(),
        NativeWorkspace::new(DiskWorkspace::open(ws)?),
        SystemClock,
        RandomIds,
    );
    let mem_s = workload::new_session(&mut mem)?;
    let mut cx = (&mut *edited, mem);
    measure(
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
    )
}

/// What each tool stores after the same number of snapshots.
pub(super) struct Stored {
    pub(super) git_apparent: u64,
    pub(super) git_alloc: u64,
    pub(super) ours_bytes: u64,
    pub(super) turns: usize,
}

/// Same number of snapshots on both sides (1 + 2 + warm_n + 1 sync): measure what each stores,
/// then git's peak RSS of one more warm `add -A`.
pub(super) fn stored_then_git_peak(
    db: &Path,
    git: &ShadowGit,
    edited: &mut Edited,
    git_warm: &mut Measured,
    warm_n: usize,
) -> Result<Stored> {
    let (git_apparent, git_alloc) = du(&git.git_dir)?;
    let stored = Stored {
        git_apparent,
        git_alloc,
        ours_bytes: db_bytes(db),
        turns: 2 + warm_n + 1,
    };
    edited.edit()?;
    git_warm.peak_kib = git.add_peak_kib();
    git.snapshot("peak")?;
    Ok(stored)
}

/// Restore, git: `checkout <prev> -- <3 paths>`, then its peak RSS of one more.
pub(super) fn restore_git(
    ws: &Path,
    git: &ShadowGit,
    edited: &mut Edited,
    warm_n: usize,
) -> Result<Measured> {
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
        child_peak_kib("git", &refs, ws)
    };
    Ok(git_restore)
}

/// Restore, rewind: record a turn untimed, then preview + apply since its prompt.
pub(super) fn restore_rewind(
    edited: &mut Edited,
    e: &mut NativeEngine,
    s: &SessionId,
    warm_n: usize,
) -> Result<Measured> {
    let mut cx = (edited, e);
    measure(
        &mut cx,
        (1, warm_n),
        |(ed, e)| {
            let changes = ed.edit()?;
            let (t, m) = workload::prompt(e, s, "edit three files".into())?;
            for c in &changes {
                workload::edit(e, s, &t, std::slice::from_ref(c))?;
            }
            workload::complete(e, s, &t)?;
            Ok(m)
        },
        |(_, e), m| workload::preview_apply(e, s, &m, 3),
    )
}

/// The same warm turn through the CLI, one process per call, when the binary was built.
pub(super) fn cli_warm(
    ws: &Path,
    cli: &Cli,
    edited: &mut Edited,
    s: &SessionId,
    samples: usize,
) -> Result<Option<Measured>> {
    eprintln!("bench: checkpoint: warm turns through the rewind CLI");
    if !cli.bin.exists() {
        return Ok(None);
    }
    let mut m = measure_children(
        edited,
        (1, samples),
        |ed| cli.stage(&ed.edit()?),
        |_, staged| cli.turn(s, &staged),
    )?;
    m.peak_kib = cli_edit_peak(ws, cli, edited, s)?;
    Ok(Some(m))
}

/// The peak RSS of one CLI `edit` process.
fn cli_edit_peak(ws: &Path, cli: &Cli, edited: &mut Edited, s: &SessionId) -> Result<Option<u64>> {
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
    Ok(child_peak_kib(&cli.bin.to_string_lossy(), &refs, ws))
}
