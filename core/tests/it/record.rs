//! Recording: turns, stable boundaries, patches and content stored once.

use super::harness::{engine, prompt, session, tool_edit};
use rewind_core::ErrorKind;
use rewind_core::model::TurnStatus;
use rewind_core::record::{CompleteTurnOptions, ReplyOptions};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn completing_a_turn_writes_its_stable_boundary() {
    let mut e = engine();
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "fix the bug");
    let reply = |text: &str, error| ReplyOptions {
        turn_id: t.clone(),
        text: text.into(),
        error,
        payload: None,
    };
    let r1 = e
        .record_reply(&s, reply("looking", false))
        .expect("reply")
        .message_id;
    let _failed = e.record_reply(&s, reply("oops", true)).expect("reply");
    let r2 = e
        .record_reply(&s, reply("fixed", false))
        .expect("reply")
        .message_id;
    let done = e
        .complete_turn(
            &s,
            CompleteTurnOptions {
                turn_id: t.clone(),
                failed: false,
                round_count: Some(2),
            },
        )
        .expect("complete");
    assert_eq!(done.status, TurnStatus::Completed);
    let b = done.boundary.expect("the final reply completed");
    assert_eq!(
        b.boundary_message_id, r2,
        "the final reply, after the retry"
    );
    assert_eq!(b.ordered_message_ids.first(), Some(&p));
    assert_eq!(b.ordered_message_ids.get(1), Some(&r1));
    assert_eq!(
        b.ordered_message_ids.len(),
        4,
        "prompt, looking, oops, fixed"
    );
    assert_eq!(b.round_count, 2);
    let again = e.complete_turn(
        &s,
        CompleteTurnOptions {
            turn_id: t,
            failed: false,
            round_count: None,
        },
    );
    assert_eq!(
        again.expect_err("already ended").kind(),
        ErrorKind::Conflict
    );
}

#[test]
fn a_turn_whose_final_reply_errored_has_no_stable_boundary() {
    let mut e = engine();
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "fix the bug");
    for (text, error) in [("fixed", false), ("the provider failed", true)] {
        let o = ReplyOptions {
            turn_id: t.clone(),
            text: text.into(),
            error,
            payload: None,
        };
        e.record_reply(&s, o).expect("reply");
    }
    let done = e
        .complete_turn(
            &s,
            CompleteTurnOptions {
                turn_id: t,
                failed: false,
                round_count: None,
            },
        )
        .expect("complete");
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(done.boundary, None, "never a boundary at an earlier reply");
}

#[test]
fn identical_content_is_stored_once() {
    let mut e = engine();
    e.workspace_mut().put("a.txt", "same\n");
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"next\n"));
    tool_edit(&mut e, &s, &t, "b.txt", Some(b"same\n"));
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"same\n"));
    assert_eq!(
        e.store().blob_count(),
        2,
        "two distinct contents, however many references"
    );
}

#[test]
fn previews_count_the_lines_the_rewind_writes() {
    let mut e = engine();
    e.workspace_mut().put("a.txt", "one\ntwo\nthree\n");
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"one\n2\nthree\nfour\n"));
    let opts = rewind_core::files::TargetOptions {
        turn: Some(t.to_string()),
        ..Default::default()
    };
    let preview = e.preview_file_rewind(&s, opts.clone()).expect("preview");
    // What the rewind writes, not what the turn did: it adds `two` back and removes `2` and
    // `four` (the turn added 2 lines and removed 1).
    assert_eq!(
        (preview.stats.lines.additions, preview.stats.lines.deletions),
        (1, 2)
    );
    assert_eq!(preview.safe_files[0].lines, preview.stats.lines);
    let json = serde_json::to_value(&preview).expect("json");
    assert_eq!(json["safeFiles"][0]["deletions"], 2, "{json}");

    // The person edits the file afterwards: a conflict, counted as `force` would write it, and
    // every count is the diff's own.
    e.workspace_mut().put(
        "a.txt",
        "one
2
three
four
five
",
    );
    let preview = e.preview_file_rewind(&s, opts.clone()).expect("preview");
    let diff = e.diff_file_rewind(&s, opts).expect("diff");
    assert_eq!(preview.unsafe_files.len(), 1);
    assert_eq!(
        (preview.stats.lines.additions, preview.stats.lines.deletions),
        (1, 3)
    );
    assert_eq!(preview.stats.lines, diff.stats.lines);
    assert_eq!(preview.unsafe_files[0].lines, diff.files[0].lines);
}
