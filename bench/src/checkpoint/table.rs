//! The checkpoint table: cold, warm and floor rows, the CLI rows, restore and stored bytes, and
//! the note that says how each side was measured.

use super::phases::{Stored, Warm};
use crate::harness::{Measured, fmt_bytes, ratio};
use crate::report::{Met, Table};

/// Every measurement the scenario took, in the order it took them.
pub(super) struct Measurements {
    pub(super) git_cold: Measured,
    pub(super) ours_cold: Measured,
    pub(super) warm: Warm,
    pub(super) stored: Stored,
    pub(super) git_restore: Measured,
    pub(super) ours_restore: Measured,
    /// `None` when the `rewind` binary was not built.
    pub(super) cli_warm: Option<Measured>,
}

/// The table for a workspace of `n_files` files holding `corpus_bytes`.
pub(super) fn table(n_files: usize, corpus_bytes: u64, m: &Measurements) -> Table {
    let mut t = Table::new(format!(
        "Checkpoint and restore of a 3-file turn in a {n_files}-file workspace vs. shadow git"
    ));
    cold_rows(&mut t, m);
    warm_rows(&mut t, &m.warm);
    cli_rows(&mut t, &m.warm.git, m.cli_warm.as_ref());
    restore_rows(&mut t, m);
    stored_rows(&mut t, &m.stored);
    t.note(note(n_files, corpus_bytes));
    t
}

fn cold_rows(t: &mut Table, m: &Measurements) {
    let cold_x = ratio(m.git_cold.samples.median(), m.ours_cold.samples.median());
    t.timed(
        "shadow git, cold: init + `add -A` + `commit` of the whole tree",
        &m.git_cold,
        "",
        Met::None,
    )
    .timed(
        "rewind, cold: open fresh DB + session + prompt + 3 × record_edit + complete",
        &m.ours_cold,
        "",
        Met::None,
    )
    .value(
        "**cold ratio** (git / rewind)",
        format!("{cold_x:.0}×"),
        "≥ 100×",
        Met::from(cold_x >= 100.0),
    );
}

/// Warm git and rewind, the copy floor, FULL against NORMAL, and the in-memory store.
fn warm_rows(t: &mut Table, w: &Warm) {
    let warm_x = ratio(w.git.samples.median(), w.ours.samples.median());
    let copy_x = ratio(w.ours.samples.median(), w.copy.samples.median());
    let full_x = ratio(w.full.samples.median(), w.ours.samples.median());
    t.timed(
        "shadow git, warm: `add -A` + `commit`",
        &w.git,
        "",
        Met::None,
    )
    .timed(
        "rewind, warm: prompt + 3 × record_edit + complete",
        &w.ours,
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
        &w.copy,
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
        &w.full,
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
        &w.mem,
        "",
        Met::None,
    );
}

/// The warm turn as whole CLI processes, or a row saying the binary was not built.
fn cli_rows(t: &mut Table, git_warm: &Measured, cli_warm: Option<&Measured>) {
    match cli_warm {
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
}

fn restore_rows(t: &mut Table, m: &Measurements) {
    let restore_x = ratio(
        m.git_restore.samples.median(),
        m.ours_restore.samples.median(),
    );
    t.timed(
        "shadow git restore: `checkout <prev> -- <3 paths>`",
        &m.git_restore,
        "",
        Met::None,
    )
    .timed(
        "rewind restore: preview + apply (since the turn's prompt)",
        &m.ours_restore,
        "",
        Met::None,
    )
    .value(
        "**restore ratio** (git / rewind)",
        format!("{restore_x:.1}×"),
        "> 1× (faster)",
        Met::from(restore_x > 1.0),
    );
}

fn stored_rows(t: &mut Table, s: &Stored) {
    let turns = s.turns;
    t.value(
        &format!("stored after {turns} snapshots: shadow git dir (du apparent / allocated)"),
        format!("{} / {}", fmt_bytes(s.git_apparent), fmt_bytes(s.git_alloc)),
        "",
        Met::None,
    )
    .value(
        &format!("stored after {turns} turns: rewind db + wal + shm"),
        fmt_bytes(s.ours_bytes),
        "",
        Met::None,
    );
}

fn note(n_files: usize, corpus_bytes: u64) -> String {
    format!(
        "Workspace: {n_files} real source files ({}) copied from the local cargo registry. \
         git times are whole processes (spawn to exit; two processes per snapshot: `add -A`, then \
         `commit`), with auto-gc off and no user config; its peak RSS is that of one extra `add -A` \
         (or `checkout`) run under `/usr/bin/time -f %M`. rewind runs in process over SQLite in WAL \
         mode; record batches commit `synchronous=NORMAL` (durable across a crash of the process; \
         a power cut may lose the last records, never a journal: journal batches are FULL), the \
         FULL row shows the same turn with every commit fsynced; its peak RSS is this \
         process's high-water mark while the samples ran. The bytes each tool stores are measured \
         after the same number of snapshots, before the restore samples.",
        fmt_bytes(corpus_bytes)
    )
}
