//! Corrupt rows and blobs: reported, never restored, never aborting a resume.

use super::harness::{engine, prompt, session, tool_edit};
use rewind_core::files::{ApplyOptions, TargetOptions, UnsafeReason};
use rewind_core::hash::ContentHash;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn an_undecodable_message_is_a_diagnostic_and_resume_still_works() {
    let mut e = engine();
    let s = session(&mut e);
    let (_, _p1) = prompt(&mut e, &s, "one");
    let (_, p2) = prompt(&mut e, &s, "two");
    e.store_mut().corrupt_message(&s, 1, "{not json");
    let state = e.resume(&s).expect("resume survives a corrupt row");
    assert_eq!(
        state
            .messages
            .iter()
            .map(|m| m.id.clone())
            .collect::<Vec<_>>(),
        vec![p2]
    );
    assert_eq!(state.diagnostics.len(), 1);
    assert_eq!(state.diagnostics[0].kind, "message");
    assert_eq!(state.diagnostics[0].seq, 1);
}

#[test]
fn an_undecodable_checkpoint_in_range_blocks_the_rewind() {
    let mut e = engine();
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"a"));
    tool_edit(&mut e, &s, &t, "b.txt", Some(b"b"));
    let ckp = e.checkpoints(&s).expect("list")[1].checkpoint_id.clone();
    e.store_mut().corrupt_checkpoint(&s, 3, "{\"id\": 7}");
    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    let preview = e.preview_file_rewind(&s, since.clone()).expect("preview");
    assert!(!preview.can_apply);
    assert_eq!(preview.unsafe_files.len(), 1);
    assert_eq!(preview.unsafe_files[0].path, format!("checkpoint:{ckp}"));
    assert_eq!(
        preview.unsafe_files[0].reason,
        UnsafeReason::CheckpointUnreadable
    );
    let out = e
        .apply_file_rewind(
            &s,
            ApplyOptions {
                target: since,
                ..ApplyOptions::default()
            },
        )
        .expect("apply");
    assert!(!out.applied);
    assert_eq!(
        e.workspace().get("a.txt"),
        Some(&b"a"[..]),
        "nothing written"
    );
}

#[test]
fn a_corrupt_or_missing_blob_is_never_restored() {
    for drop in [false, true] {
        let mut e = engine();
        e.workspace_mut().put("a.txt", "original\n");
        let s = session(&mut e);
        let (t, p) = prompt(&mut e, &s, "one");
        tool_edit(&mut e, &s, &t, "a.txt", Some(b"changed\n"));
        let hash = ContentHash::of(b"original\n");
        if drop {
            e.store_mut().drop_blob(&hash);
        } else {
            e.store_mut().corrupt_blob(&hash, b"tampered\n");
        }
        let since = TargetOptions {
            since: Some(p),
            ..TargetOptions::default()
        };
        let preview = e.preview_file_rewind(&s, since.clone()).expect("preview");
        assert_eq!(preview.unsafe_files.len(), 1, "drop={drop}");
        assert_eq!(
            preview.unsafe_files[0].reason,
            UnsafeReason::CheckpointUnreadable
        );
        let policy = rewind_core::model::Policy::Force;
        let out = e
            .apply_file_rewind(
                &s,
                ApplyOptions {
                    target: since,
                    policy,
                },
            )
            .expect("apply");
        assert!(!out.applied, "even force never restores unverified content");
        assert_eq!(
            e.workspace().get("a.txt"),
            Some(&b"changed\n"[..]),
            "the file is untouched"
        );
    }
}
