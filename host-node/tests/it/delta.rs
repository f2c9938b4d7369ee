//! Delta storage through the whole native engine: versions of a file recorded turn by turn are
//! stored as deltas, gc keeps the bases a kept version needs (even when the checkpoints that
//! brought those bases are dropped) and frees whole chains nothing needs.

use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::gc;
use rewind_core::hash::ContentHash;
use rewind_core::id::{MessageId, SessionId};
use rewind_core::model::{CheckpointKind, Policy};
use rewind_core::ports::Store;
use rewind_core::record::{CompleteTurnOptions, EditChange, EditOptions, PromptOptions};
use rewind_host::NativeEngine;
use std::path::Path;
use tempfile::TempDir;

const PATH: &str = "src/big.rs";

/// Version `i` of a ~24 KB source file: `i` small edits spread over it.
fn version(i: usize) -> Vec<u8> {
    let mut text: Vec<u8> = (0..700)
        .map(|n| {
            format!(
                "    let field_{n} = compute({n}, \"{}\");\n",
                n * 7919 % 1000
            )
        })
        .collect::<String>()
        .into_bytes();
    for e in 1..=i {
        let at = (e * 1999) % (text.len() - 12);
        text[at..at + 12].copy_from_slice(format!("/*edit{e:04}*/").as_bytes());
    }
    text
}

/// One turn whose tool turned version `i - 1` into version `i` on disk; returns its prompt.
fn turn(e: &mut NativeEngine, ws: &Path, s: &SessionId, i: usize) -> MessageId {
    let p = e
        .record_prompt(
            s,
            PromptOptions {
                text: format!("edit {i}"),
                payload: None,
            },
        )
        .expect("prompt");
    std::fs::write(ws.join(PATH), version(i)).expect("tool write");
    e.record_edit(
        s,
        EditOptions {
            turn_id: p.turn_id.clone(),
            tool_name: "Edit".into(),
            tool_call_id: None,
            tool_message_id: None,
            kind: CheckpointKind::Edit,
            changes: vec![EditChange {
                path: PATH.into(),
                before: Some(version(i - 1)),
                after: Some(version(i)),
                patch: None,
                before_mode: None,
                after_mode: None,
            }],
        },
    )
    .expect("edit");
    e.complete_turn(
        s,
        CompleteTurnOptions {
            turn_id: p.turn_id,
            failed: false,
            round_count: None,
        },
    )
    .expect("complete");
    p.message_id
}

fn setup(turns: usize) -> (TempDir, NativeEngine, SessionId, Vec<MessageId>) {
    let dir = TempDir::new().expect("dir");
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("src")).expect("mkdir");
    std::fs::write(ws.join(PATH), version(0)).expect("v0");
    let (mut e, _) = rewind_host::open(&ws, &ws.join(".rewind/rewind.db")).expect("open");
    let s = e
        .create_session(rewind_core::record::SessionOptions::default())
        .expect("session")
        .id;
    let prompts = (1..=turns).map(|i| turn(&mut e, &ws, &s, i)).collect();
    (dir, e, s, prompts)
}

fn base_of(e: &NativeEngine, v: usize) -> Option<ContentHash> {
    let h = ContentHash::of(&version(v));
    let listed = e.store().blobs().expect("blobs");
    listed
        .into_iter()
        .find(|b| b.hash == h)
        .expect("stored")
        .base
}

#[test]
fn a_kept_version_whose_bases_came_with_dropped_checkpoints_still_restores() {
    let (dir, mut e, s, prompts) = setup(6);
    // Skip-deltas: v6 (step 6) against v4 (step 4) against v0; v5 against v4.
    assert_eq!(base_of(&e, 6), Some(ContentHash::of(&version(4))));
    assert_eq!(base_of(&e, 4), Some(ContentHash::of(&version(0))));
    assert_eq!(base_of(&e, 0), None);

    let out = e
        .gc(
            gc::Options {
                keep: 1,
                ..gc::Options::default()
            },
            false,
        )
        .expect("gc");
    assert!(out.applied);
    // The newest checkpoint (v5 → v6) is kept, with the bases its versions need: v4 and v0,
    // whose own checkpoints were dropped. v1..v3 are freed.
    let mut left: Vec<ContentHash> = e
        .store()
        .blobs()
        .expect("blobs")
        .into_iter()
        .map(|b| b.hash)
        .collect();
    left.sort();
    let mut want: Vec<ContentHash> = [0, 4, 5, 6]
        .iter()
        .map(|&v| ContentHash::of(&version(v)))
        .collect();
    want.sort();
    assert_eq!(left, want);
    assert_eq!(out.plan.totals.blobs.count, 3);

    // Rewinding the last turn writes v5 back, read through its chain, byte-exact.
    let target = TargetOptions {
        since: Some(prompts[5].clone()),
        ..TargetOptions::default()
    };
    let applied = e
        .apply_file_rewind(
            &s,
            ApplyOptions {
                target,
                policy: Policy::Block,
            },
        )
        .expect("apply");
    assert!(applied.applied, "{:?}", applied.cause);
    let on_disk = std::fs::read(dir.path().join("ws").join(PATH)).expect("read");
    assert!(on_disk == version(5), "v5 restored byte-exact");
}

#[test]
fn chains_nothing_needs_are_freed_whole_dependents_first() {
    let (_dir, mut e, _s, _) = setup(9);
    let out = e
        .gc(
            gc::Options {
                keep: 0,
                ..gc::Options::default()
            },
            false,
        )
        .expect("gc: a base deleted before its delta would be refused by the store");
    assert!(out.applied);
    assert_eq!(out.plan.totals.blobs.count, 10);
    assert_eq!(e.store().blobs().expect("blobs"), Vec::new());
}

#[test]
fn stats_count_the_bytes_deltas_take() {
    let (_dir, mut e, _s, _) = setup(9);
    let stats = e.stats().expect("stats");
    let whole = e
        .store()
        .blobs()
        .expect("blobs")
        .into_iter()
        .find(|b| b.base.is_none())
        .expect("a whole copy");
    // Ten versions take little more than the one whole copy.
    assert!(
        stats.stored_bytes < whole.stored + 9 * 200,
        "{} stored, whole copy {}",
        stats.stored_bytes,
        whole.stored
    );
    assert!(stats.unique_bytes > 9 * whole.stored);
}
