//! The other timed verbs: preview + apply of a 50-file turn, conversation rewind and fork of
//! the 10,000-message session, and `record_edit` latency by file size. All on the native
//! SQLite host.

use crate::corpus::{Corpus, code_bytes};
use crate::harness::{Result, measure, ratio};
use crate::report::{Met, Table};
use crate::session::{self, LongSession};
use crate::workload::{self, Change};
use rewind_core::conversation;
use rewind_core::fork::{self, WorkspaceMode};
use std::path::Path;

/// Files in the big turn, and their size.
const TURN_FILES: usize = 50;
const TURN_FILE_BYTES: usize = 10 * 1024;

/// Preview + apply of a turn that changed 50 files of 10 KB.
pub fn preview_apply(data: &Path, corpus: &Corpus, samples: usize) -> Result<Table> {
    eprintln!("bench: preview + apply of a {TURN_FILES}-file turn");
    let dir = data.join("apply50");
    let _ = std::fs::remove_dir_all(&dir);
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws)?;
    let mut files = Vec::new();
    for i in 0..TURN_FILES {
        let path = format!("src/m{:02}/file{i:02}.rs", i % 5);
        let bytes = code_bytes(corpus, 100 + i * 3, TURN_FILE_BYTES)?;
        let full = ws.join(&path);
        std::fs::create_dir_all(full.parent().ok_or("no parent")?)?;
        std::fs::write(&full, &bytes)?;
        files.push((path, bytes));
    }
    // The database beside the workspace, not in a directory that contains it: the host
    // protects the database's directory from every rewind.
    let db_dir = dir.join("db");
    std::fs::create_dir_all(&db_dir)?;
    let (mut e, _) = rewind_host::open(&ws, &db_dir.join("rewind.db"))?;
    let s = workload::new_session(&mut e)?;
    let mut round = 0;
    let m = measure(
        &mut e,
        (2, samples),
        |e| {
            // The agent's turn: every file gets a line changed in the middle; 5 tool calls of
            // 10 files each.
            round += 1;
            let mut changes = Vec::new();
            for (path, original) in &files {
                let mut after = original.clone();
                let mid = after.len() / 2;
                after.splice(mid..mid, format!("\n// edit {round}\n").bytes());
                std::fs::write(ws.join(path), &after)?;
                changes.push(Change {
                    path: path.clone(),
                    before: original.clone(),
                    after,
                });
            }
            workload::turn(e, &s, &changes, 10)
        },
        |e, prompt| workload::preview_apply(e, &s, &prompt, TURN_FILES),
    )?;
    // The floor: the same 50 files put back by bare atomic writes, in the same run.
    let targets: Vec<(std::path::PathBuf, &[u8])> = files
        .iter()
        .map(|(path, bytes)| (ws.join(path), bytes.as_slice()))
        .collect();
    let floor = measure(
        &mut (),
        (2, samples),
        |()| {
            for (path, original) in &files {
                let mut after = original.clone();
                after.extend_from_slice(b"// edited\n");
                std::fs::write(ws.join(path), &after)?;
            }
            Ok(())
        },
        |(), ()| crate::floor::atomic_writes(&targets),
    )?;
    let ms = m.samples.median().as_secs_f64() * 1000.0;
    let x = ratio(m.samples.median(), floor.samples.median());
    let mut t = Table::new(format!(
        "Preview + apply of a turn that changed {TURN_FILES} files of 10 KB"
    ));
    t.timed(
        "preview + apply (since the turn's prompt), native SQLite",
        &m,
        "< 50 ms",
        Met::from(ms < 50.0),
    )
    .timed(
        "floor: 50 × (temp file + write + fsync + rename), then one sync per directory (5)",
        &floor,
        "",
        Met::None,
    )
    .value(
        "**apply / floor**",
        format!("{x:.2}×"),
        "≤ 2.5×",
        Met::from(x <= 2.5),
    );
    t.note(
        "Each sample records a fresh turn (untimed), then times the conflict-checked preview \
         and the journaled apply that writes the 50 files back: the journal commit and the final \
         commit are `synchronous=FULL`, each file is written to a temp file, fsynced and renamed, \
         and each directory is synced once after the last rename, before the final commit.",
    );
    Ok(t)
}

/// Conversation rewind and fork of the 10,000-message session.
pub fn long_session(long: &LongSession, samples: usize) -> Result<Table> {
    eprintln!("bench: conversation rewind and fork of the long session");
    let n = 5 * session::TURNS;
    let rewind = measure(
        &mut (),
        (1, samples),
        |()| {
            let db = session::copy_db(long, "rewind.work.db")?;
            Ok(rewind_host::open(&long.workspace, &db)?.0)
        },
        |(), mut e| {
            let out = e.rewind_conversation(
                &long.session,
                conversation::Options {
                    to: long.last_prompt.clone(),
                },
            )?;
            if out.kept_message_count != n - 5 {
                return Err(format!("rewind kept {} messages", out.kept_message_count).into());
            }
            Ok(e)
        },
    )?;
    let db = session::copy_db(long, "fork.work.db")?;
    let (mut e, _) = rewind_host::open(&long.workspace, &db)?;
    let fork = measure(
        &mut e,
        (1, samples),
        |_| Ok(()),
        |e, ()| {
            let out = e.fork(
                &long.session,
                fork::Options {
                    at: Some(long.last_message.clone()),
                    workspace_mode: WorkspaceMode::Shared,
                    ..fork::Options::default()
                },
            )?;
            if out.copied_messages != n {
                return Err(format!("fork copied {} messages", out.copied_messages).into());
            }
            Ok(out)
        },
    )?;
    drop(e);
    let fork_ms = fork.samples.median().as_secs_f64() * 1000.0;
    let mut t = Table::new(format!(
        "Conversation rewind and fork of the {n}-message session"
    ));
    t.timed(
        "rewind_conversation to the last prompt (keeps 9,995 messages)",
        &rewind,
        "",
        Met::None,
    )
    .timed(
        "fork through the last message (bundle + validate + commit of 10,000 messages, 2,000 checkpoints)",
        &fork,
        "< 500 ms",
        Met::from(fork_ms < 500.0),
    );
    t.note(
        "Rewind samples each run on a fresh copy of the session's database (copy and open \
         untimed). Fork samples run one after another on one copy (each adds a child session).",
    );
    Ok(t)
}

/// `record_edit` latency for one file of 1 KB, 100 KB and 10 MB; returns the table and the
/// 10 MB figure in MB/s of content hashed and stored (before + after).
pub fn record_edit(data: &Path, corpus: &Corpus, samples: usize) -> Result<(Table, f64)> {
    eprintln!("bench: record_edit latency by size");
    let dir = data.join("edits");
    let _ = std::fs::remove_dir_all(&dir);
    let ws = dir.join("ws");
    std::fs::create_dir_all(&ws)?;
    let (mut e, _) = rewind_host::open(&ws, &dir.join("rewind.db"))?;
    let s = workload::new_session(&mut e)?;
    let (turn, _) = workload::prompt(&mut e, &s, "large edits".into())?;
    let mut t = Table::new("record_edit latency by file size (one file, native SQLite)");
    let mut big_mb_s = 0.0;
    for (label, size, n) in [
        ("1 KB", 1_000, samples * 2),
        ("100 KB", 100_000, samples * 2),
        ("10 MB", 10_000_000, samples.min(5)),
    ] {
        let base = code_bytes(corpus, size % 97, size)?;
        let path = format!("big/{}.rs", label.replace(' ', ""));
        let mut round = 0u32;
        let m = measure(
            &mut e,
            (1, n),
            |_| {
                // A fresh before/after pair each sample, so nothing is deduplicated.
                round += 1;
                let mut before = base.clone();
                before[..8].copy_from_slice(format!("{round:08}").as_bytes());
                let mut after = before.clone();
                let mid = after.len() / 2;
                after[mid] = after[mid].wrapping_add(1);
                Ok(Change {
                    path: path.clone(),
                    before,
                    after,
                })
            },
            |e, change| workload::edit(e, &s, &turn, std::slice::from_ref(&change)),
        )?;
        t.timed(&format!("record_edit, {label} file"), &m, "", Met::None);
        if size == 10_000_000 {
            big_mb_s = 2.0 * size as f64 / 1e6 / m.samples.median().as_secs_f64();
            t.value(
                "10 MB edit: content recorded per second (before + after)",
                format!("{big_mb_s:.0} MB/s"),
                "",
                Met::None,
            );
        }
    }
    t.note(
        "Each sample records one file change (a fresh before, and an after that differs from \
         it in one byte; real code) in one live turn; the call returns once the batch is \
         durable in SQLite.",
    );
    Ok((t, big_mb_s))
}
