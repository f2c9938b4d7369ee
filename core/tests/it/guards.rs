//! Bad input gets a clear code and changes nothing; hooks and limits behave.

use super::harness::{engine, prompt, session, tool_edit};
use rewind_core::ctx::Limits;
use rewind_core::files::{TargetOptions, UnsafeReason};
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::CheckpointKind;
use rewind_core::ports::{Store, TurnControl};
use rewind_core::record::{EditChange, EditOptions, PromptOptions};
use rewind_core::{ErrorKind, HostError, conversation};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn edit(t: &TurnId, changes: Vec<EditChange>) -> EditOptions {
    EditOptions {
        turn_id: t.clone(),
        tool_name: "Write".into(),
        tool_call_id: None,
        tool_message_id: None,
        kind: CheckpointKind::Write,
        changes,
    }
}

fn change(path: &str, after: &[u8]) -> EditChange {
    EditChange {
        path: path.into(),
        before: None,
        after: Some(after.to_vec()),
        patch: None,
        before_mode: None,
        after_mode: None,
    }
}

#[test]
fn bad_input_is_refused_with_its_code_and_writes_nothing() {
    let mut e = engine();
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "one");
    let commits = e.store().version().expect("version");
    let cases: Vec<(EditOptions, ErrorKind)> = vec![
        (
            edit(&t, vec![change("../etc/passwd", b"x")]),
            ErrorKind::InvalidPath,
        ),
        (edit(&t, vec![change("/abs", b"x")]), ErrorKind::InvalidPath),
        (edit(&t, vec![change("a\\b", b"x")]), ErrorKind::InvalidPath),
        (
            edit(&t, vec![change("a.txt", b"x"), change("./a.txt", b"y")]),
            ErrorKind::InvalidInput,
        ),
        (edit(&t, vec![]), ErrorKind::InvalidInput),
        (
            edit(
                &TurnId::parse("trn_nope").expect("valid"),
                vec![change("a.txt", b"x")],
            ),
            ErrorKind::NotFound,
        ),
    ];
    for (opts, kind) in cases {
        let err = e
            .record_edit(&s, opts.clone())
            .expect_err("must be refused");
        assert_eq!(err.kind(), kind, "{opts:?}: {err}");
    }
    let ghost = SessionId::parse("ses_ghost").expect("valid");
    let err = e
        .record_prompt(
            &ghost,
            PromptOptions {
                text: "hi".into(),
                payload: None,
            },
        )
        .expect_err("unknown session");
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(
        err.to_string().contains("ses_ghost"),
        "the message names the id: {err}"
    );
    let err = e
        .record_prompt(
            &s,
            PromptOptions {
                text: "  ".into(),
                payload: None,
            },
        )
        .expect_err("empty prompt");
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let err = e
        .preview_file_rewind(&s, TargetOptions::default())
        .expect_err("no target");
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(
        e.store().version().expect("version"),
        commits,
        "no refused call committed anything"
    );
}

struct Refuse;
impl TurnControl for Refuse {
    fn stop_turns(&mut self, _: &SessionId, turns: &[TurnId]) -> Result<(), HostError> {
        Err(HostError::io(format!(
            "task of {} would not stop",
            turns[0]
        )))
    }
}

#[test]
fn a_hook_that_cannot_stop_the_removed_turns_aborts_the_rewind() {
    let mut e = engine().with_turn_control(Refuse);
    let s = session(&mut e);
    let (_, p1) = prompt(&mut e, &s, "one");
    prompt(&mut e, &s, "two");
    let err = e
        .rewind_conversation(&s, conversation::Options { to: p1 })
        .expect_err("hook refused");
    assert_eq!(err.kind(), ErrorKind::HostError);
    let state = e.resume(&s).expect("resume");
    assert_eq!(state.session.generation, 0, "nothing committed");
    assert_eq!(state.turn_number, 2);
    assert!(e.operations(&s).expect("ops").items.is_empty());
}

#[test]
fn files_over_the_limit_become_failed_captures_and_are_never_restored() {
    let mut e = engine().with_limits(Limits {
        max_file_bytes: 8,
        ..Limits::default()
    });
    e.workspace_mut().put("big.bin", vec![1u8; 9]);
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "big.bin", Some(&[2u8; 9]));
    tool_edit(&mut e, &s, &t, "small.txt", Some(b"ok"));
    let ckp = &e.checkpoints(&s).expect("list")[0];
    assert_eq!(ckp.files[0].capture_failed.as_deref(), Some("too_large"));
    assert_eq!(
        e.store().blob_count(),
        1,
        "only the small file's content was stored"
    );
    let preview = e
        .preview_file_rewind(
            &s,
            TargetOptions {
                since: Some(p),
                ..TargetOptions::default()
            },
        )
        .expect("preview");
    assert_eq!(preview.unsafe_files.len(), 1);
    assert_eq!(preview.unsafe_files[0].path, "big.bin");
    assert_eq!(
        preview.unsafe_files[0].reason,
        UnsafeReason::UnsupportedCheckpoint
    );
    assert_eq!(preview.safe_files.len(), 1);
}

#[test]
fn replies_to_a_turn_removed_by_a_rewind_are_refused() {
    let mut e = engine();
    let s = session(&mut e);
    let (t1, p1) = prompt(&mut e, &s, "one");
    e.rewind_conversation(&s, conversation::Options { to: p1 })
        .expect("rewind");
    let err = e
        .record_reply(
            &s,
            rewind_core::record::ReplyOptions {
                turn_id: t1,
                text: "late".into(),
                error: false,
                payload: None,
            },
        )
        .expect_err("removed turn");
    assert_eq!(err.kind(), ErrorKind::Conflict);
}

#[test]
fn a_failed_capture_lists_its_unknown_states_as_null_not_missing() {
    let mut e = engine().with_limits(Limits {
        max_file_bytes: 8,
        ..Limits::default()
    });
    e.workspace_mut().put("big.bin", vec![1u8; 9]);
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "big.bin", Some(&[2u8; 9]));
    e.record_failed_capture(
        &s,
        rewind_core::record::FailedCaptureOptions {
            turn_id: t.clone(),
            tool_name: "Bash".into(),
            path: "out.csv".into(),
            reason: "read_failed".into(),
        },
    )
    .expect("failed capture");
    tool_edit(&mut e, &s, &t, "new.txt", Some(b"ok"));
    let cps = e.checkpoints(&s).expect("list");
    let files: Vec<_> = cps.iter().map(|c| &c.files[0]).collect();
    // Too large: the before-state is unknown, the after-state's hash was still recorded.
    assert_eq!(files[0].before, None);
    assert_eq!(
        files[0].after.as_deref(),
        Some(rewind_core::hash::ContentHash::of(&[2u8; 9]).as_str())
    );
    // Reported failure: neither state is known.
    assert_eq!((&files[1].before, &files[1].after), (&None, &None));
    assert_eq!(files[1].capture_failed.as_deref(), Some("read_failed"));
    // A captured creation: the file really was absent before.
    assert_eq!(files[2].before.as_deref(), Some("missing"));
    let json = serde_json::to_value(files[1]).expect("json");
    assert_eq!(json["before"], serde_json::Value::Null);
    assert_eq!(json["captureFailed"], "read_failed");
}

#[test]
fn previews_mark_files_too_large_for_line_counts() {
    use rewind_core::patch::PATCH_LIMIT;
    let mut e = engine();
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "one");
    let line = format!("{}\n", "x".repeat(63));
    let at_limit = line.repeat(PATCH_LIMIT / line.len());
    assert_eq!(at_limit.len(), PATCH_LIMIT);
    let over = format!("{at_limit}y");
    tool_edit(&mut e, &s, &t, "at_limit.txt", Some(at_limit.as_bytes()));
    tool_edit(&mut e, &s, &t, "over.txt", Some(over.as_bytes()));
    tool_edit(&mut e, &s, &t, "small.txt", Some(b"one\n"));
    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    let preview = e.preview_file_rewind(&s, since.clone()).expect("preview");
    let large: Vec<(&str, bool)> = preview
        .safe_files
        .iter()
        .map(|f| (f.path.as_str(), f.large))
        .collect();
    assert_eq!(
        large,
        [
            ("at_limit.txt", false),
            ("over.txt", true),
            ("small.txt", false)
        ]
    );
    // Only the two files small enough for a line diff are counted: the rewind deletes them.
    assert_eq!(preview.stats.lines.additions, 0);
    assert_eq!(
        preview.stats.lines.deletions as usize,
        PATCH_LIMIT / line.len() + 1
    );
    let json = serde_json::to_value(&preview).expect("json");
    assert_eq!(json["safeFiles"][1]["large"], true);
    assert!(json["safeFiles"][0].get("large").is_none(), "{json}");

    // An unsafe large file is marked too.
    e.workspace_mut()
        .put("over.txt", b"someone else's".to_vec());
    let preview = e.preview_file_rewind(&s, since).expect("preview");
    assert_eq!(preview.unsafe_files[0].path, "over.txt");
    assert!(preview.unsafe_files[0].large);
}
