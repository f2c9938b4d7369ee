//! Storage: one 100 KB text file edited 100 times with small changes; bytes stored per byte
//! changed, from `Engine::stats` and from the database's size.

use crate::corpus::{Corpus, code_bytes};
use crate::harness::{Result, fmt_bytes};
use crate::report::{Met, Table};
use crate::workload::{self, Change};
use rewind_core::hash::ContentHash;
use std::path::Path;

const FILE_BYTES: usize = 100 * 1024;
const EDITS: usize = 100;
/// Bytes each edit replaces.
const CHANGED: usize = 12;

fn db_size(db: &Path) -> u64 {
    ["", "-wal"]
        .iter()
        .map(|s| {
            let mut p = db.as_os_str().to_owned();
            p.push(s);
            std::fs::metadata(std::path::PathBuf::from(p)).map_or(0, |m| m.len())
        })
        .sum()
}

/// What the edits left: the store's figures after the first and the last edit, and the
/// database's size before and after.
struct Figures {
    first: rewind_core::stats::Stats,
    end: rewind_core::stats::Stats,
    dedup: bool,
    exact: bool,
    slowest: std::time::Duration,
    db_empty: u64,
    db_end: u64,
}

/// Run the scenario.
pub fn run_scenario(data: &Path, corpus: &Corpus) -> Result<Table> {
    eprintln!("bench: storage of {EDITS} small edits of a 100 KB file");
    Ok(table(&measure(data, corpus)?))
}

/// Make the edits, revert to the original, and read every version back.
fn measure(data: &Path, corpus: &Corpus) -> Result<Figures> {
    let dir = data.join("storage");
    let _ = std::fs::remove_dir_all(&dir);
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws)?;
    let db = dir.join("rewind.db");
    let (mut e, _) = rewind_host::open(&ws, &db)?;
    let s = workload::new_session(&mut e)?;
    let original = code_bytes(corpus, 42, FILE_BYTES)?;
    let original_copy = original.clone();
    let path = "src/big.rs".to_owned();
    let mut current = original.clone();
    let mut versions = vec![ContentHash::of(&original)];
    let mut after_first = None;
    let db_empty = db_size(&db);
    for i in 0..EDITS {
        let before = current.clone();
        let at = (i * 997) % (FILE_BYTES - CHANGED);
        current[at..at + CHANGED].copy_from_slice(format!("/*edit{i:04}*/").as_bytes());
        let (t, _) = workload::prompt(&mut e, &s, format!("small edit {i}"))?;
        workload::edit(
            &mut e,
            &s,
            &t,
            &[Change {
                path: path.clone(),
                before,
                after: current.clone(),
            }],
        )?;
        workload::complete(&mut e, &s, &t)?;
        versions.push(ContentHash::of(&current));
        if i == 0 {
            after_first = Some(e.stats()?);
        }
    }
    let first = after_first.ok_or("no edits")?;
    let end = e.stats()?;

    // Identical content stored once: an edit back to the original bytes adds no blob bytes.
    let (t, _) = workload::prompt(&mut e, &s, "revert".into())?;
    workload::edit(
        &mut e,
        &s,
        &t,
        &[Change {
            path,
            before: current,
            after: original,
        }],
    )?;
    let revert = e.stats()?;
    let dedup = revert.stored_bytes == end.stored_bytes && revert.blobs == end.blobs;
    // Every version reads back byte-exact (the core checks each against its hash), the oldest
    // one first; the slowest read is the deepest delta chain.
    let oldest = rewind_core::load::blob(e.store(), &versions[0])? == original_copy;
    let mut exact = oldest;
    let mut slowest = std::time::Duration::ZERO;
    for h in &versions {
        let t0 = std::time::Instant::now();
        exact &= rewind_core::load::blob(e.store(), h).is_ok();
        slowest = slowest.max(t0.elapsed());
    }
    // Closing folds the WAL into the database file: its size is then what is kept.
    drop(e);
    let db_end = db_size(&db);
    Ok(Figures {
        first,
        end,
        dedup,
        exact,
        slowest,
        db_empty,
        db_end,
    })
}

/// The report of what the edits left.
fn table(f: &Figures) -> Table {
    let Figures {
        first,
        end,
        dedup,
        exact,
        slowest,
        db_empty,
        db_end,
    } = f;
    let (dedup, exact, slowest, db_empty, db_end) = (*dedup, *exact, *slowest, *db_empty, *db_end);
    let changed_total = (EDITS * CHANGED) as u64;
    let marginal_stored = end.stored_bytes - first.stored_bytes;
    let marginal_changed = ((EDITS - 1) * CHANGED) as u64;
    let per_byte = marginal_stored as f64 / marginal_changed as f64;
    let per_byte_db = db_end.saturating_sub(db_empty) as f64 / changed_total as f64;
    let mut tb = Table::new(format!(
        "Storage: a 100 KB text file edited {EDITS} times, {CHANGED} bytes per edit"
    ));
    tb.value(
        "logical bytes (every before and after in full)",
        fmt_bytes(end.logical_bytes),
        "",
        Met::None,
    )
    .value(
        "unique bytes (content addressing)",
        fmt_bytes(end.unique_bytes),
        "",
        Met::None,
    )
    .value(
        &format!("stored blob bytes ({} blobs, compressed)", end.blobs),
        fmt_bytes(end.stored_bytes),
        "",
        Met::None,
    )
    .value(
        "**blob bytes stored per byte changed** (edits 2–100, after the first version)",
        format!("{per_byte:.1}"),
        "≤ 20",
        Met::from(per_byte <= 20.0),
    )
    .value(
        "database growth per byte changed (db + WAL after close; \
         the 100 edits with their prompts, checkpoints and turns, and the revert)",
        format!(
            "{per_byte_db:.0} ({} over {} changed)",
            fmt_bytes(db_end.saturating_sub(db_empty)),
            fmt_bytes(changed_total)
        ),
        "report",
        Met::None,
    )
    .value(
        "every version reads back byte-exact, the oldest included (hash-checked)",
        if exact { "yes" } else { "no" }.into(),
        "byte-exact",
        Met::from(exact),
    )
    .value(
        "slowest read of one version (deepest delta chain)",
        crate::harness::fmt_ms(slowest),
        "report",
        Met::None,
    )
    .value(
        "identical content stored once (edit back to the original adds no blob)",
        if dedup { "yes" } else { "no" }.into(),
        "stored once",
        Met::from(dedup),
    );
    tb.note(
        "The first version is stored whole (zstd); each later one as a zstd delta against \
         an earlier version (`--patch-from` style, skip-delta chains: a read applies at most 8 \
         deltas, a whole copy every 256 versions). The database growth also counts every \
         message, turn and checkpoint row the 100 turns wrote, which the blob figure does not.",
    );
    tb
}
