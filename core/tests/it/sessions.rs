//! `rename` and `remove`: what they change, what they refuse, and that a refusal writes nothing.

use super::harness::{MemEngine, engine, prompt, session, tool_edit};
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::id::SessionId;
use rewind_core::load::SessionLog;
use rewind_core::ports::Store as _;
use rewind_core::record::CompleteTurnOptions;
use rewind_core::testkit::{Fault, FaultOp};
use rewind_core::{Coded, ErrorKind, fork, remove, rename};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn version(e: &MemEngine) -> u64 {
    e.store().version().expect("version")
}

/// A session with one completed turn that wrote `f.txt`.
fn one_turn(e: &mut MemEngine) -> (SessionId, rewind_core::id::MessageId) {
    turn_writing(e, "f.txt")
}

/// A session with one completed turn that wrote `path`.
fn turn_writing(e: &mut MemEngine, path: &str) -> (SessionId, rewind_core::id::MessageId) {
    let s = session(e);
    let (t, p) = prompt(e, &s, "write f");
    tool_edit(e, &s, &t, path, Some(b"f1\n"));
    e.complete_turn(
        &s,
        CompleteTurnOptions {
            turn_id: t,
            failed: false,
            round_count: None,
        },
    )
    .expect("complete");
    (s, p)
}

fn fork_at(e: &mut MemEngine, s: &SessionId, at: &rewind_core::id::MessageId) -> SessionId {
    e.fork(
        s,
        fork::Options {
            at: Some(at.clone()),
            ..fork::Options::default()
        },
    )
    .expect("fork")
    .child_id
}

fn rename_to(
    e: &mut MemEngine,
    s: &SessionId,
    title: &str,
) -> Result<rename::Outcome, rename::Error> {
    e.rename_session(
        s,
        rename::Options {
            title: title.into(),
        },
    )
}

#[test]
fn rename_sets_the_title_and_nothing_else() {
    let mut e = engine();
    let (s, _) = one_turn(&mut e);
    let before = SessionLog::load(e.store(), &s).expect("log");
    let out = rename_to(&mut e, &s, "  fix the parser  ").expect("rename");
    assert_eq!(out.title, "fix the parser", "trimmed");
    assert_eq!(out.previous_title, "Untitled session");
    assert!(out.changed);
    let after = SessionLog::load(e.store(), &s).expect("log");
    assert_eq!(after.session.title, "fix the parser");
    let mut same = after.session.clone();
    same.title = before.session.title.clone();
    assert_eq!(same, before.session, "only the title changed");
    assert_eq!(after.messages, before.messages);
    assert_eq!(after.turns, before.turns);
    assert_eq!(after.checkpoints, before.checkpoints);
    assert_eq!(after.operations, before.operations);

    // The same title again writes nothing.
    let v = version(&e);
    let again = rename_to(&mut e, &s, "fix the parser").expect("rename");
    assert!(!again.changed);
    assert_eq!(version(&e), v);
}

#[test]
fn a_bad_title_is_refused_and_changes_nothing() {
    let mut e = engine();
    let (s, _) = one_turn(&mut e);
    let v = version(&e);
    let long = "x".repeat(rename::MAX_TITLE_CHARS + 1);
    for bad in [
        "",
        "   ",
        "two\nlines",
        "tab\there",
        "esc\u{1b}[31m",
        long.as_str(),
    ] {
        let err = rename_to(&mut e, &s, bad).expect_err(bad);
        assert_eq!(err.code(), ErrorKind::InvalidInput, "{bad:?}: {err}");
    }
    assert_eq!(version(&e), v, "nothing was written");
    let exactly = "é".repeat(rename::MAX_TITLE_CHARS);
    assert!(
        rename_to(&mut e, &s, &exactly).is_ok(),
        "500 characters (not bytes) fit"
    );
    let missing = SessionId::parse("ses_nope").expect("id");
    let err = rename_to(&mut e, &missing, "t").expect_err("missing");
    assert_eq!(err.code(), ErrorKind::NotFound);
}

#[test]
fn remove_refuses_a_session_with_forks_and_names_them() {
    let mut e = engine();
    let (s, p) = one_turn(&mut e);
    let child = fork_at(&mut e, &s, &p);
    let side = e
        .side_chat(&s, fork::SideChatOptions::default())
        .expect("side chat")
        .child_id;
    let v = version(&e);
    let err = e
        .remove_session(&s, remove::Options::default())
        .expect_err("has forks");
    assert_eq!(err.code(), ErrorKind::Conflict);
    let text = err.to_string();
    assert!(
        text.contains(child.as_str()) && text.contains(side.as_str()),
        "{text}"
    );
    assert!(text.contains("--with-forks"), "{text}");
    assert_eq!(version(&e), v, "nothing was written");
    assert_eq!(e.sessions().expect("sessions").items.len(), 3);
}

#[test]
fn remove_with_forks_takes_the_whole_subtree_in_one_batch() {
    let mut e = engine();
    let (s, p) = one_turn(&mut e);
    let child = fork_at(&mut e, &s, &p);
    let cp = e.resume(&child).expect("child").messages[0].id.clone();
    let grand = fork_at(&mut e, &child, &cp);
    let (other, _) = turn_writing(&mut e, "o.txt");

    let plan = e
        .remove_session(
            &s,
            remove::Options {
                with_forks: true,
                dry_run: true,
            },
        )
        .expect("dry run");
    assert!(!plan.applied);
    let ids: Vec<&SessionId> = plan.removed.iter().map(|r| &r.session_id).collect();
    assert_eq!(ids, [&s, &child, &grand], "parents before children");
    assert_eq!(plan.removed[0].turns, 1);
    assert_eq!(plan.removed[0].checkpoints, 1);
    assert_eq!(
        e.sessions().expect("sessions").items.len(),
        4,
        "a dry run removes nothing"
    );

    let v = version(&e);
    let out = e
        .remove_session(
            &s,
            remove::Options {
                with_forks: true,
                dry_run: false,
            },
        )
        .expect("remove");
    assert!(out.applied);
    assert_eq!(version(&e), v + 1, "one batch");
    let left: Vec<SessionId> = e
        .sessions()
        .expect("sessions")
        .items
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, std::slice::from_ref(&other));
    for gone in [&s, &child, &grand] {
        assert!(e.store().messages(gone).expect("read").is_empty());
        assert!(e.store().checkpoints(gone).expect("read").is_empty());
        assert!(e.store().operations(gone).expect("read").is_empty());
    }
    // The content the other session still references stays through gc.
    e.gc(rewind_core::gc::Options::default(), false)
        .expect("gc");
    assert!(!e.checkpoints(&other).expect("checkpoints").is_empty());
    let since = TargetOptions {
        since: e
            .resume(&other)
            .expect("other")
            .messages
            .first()
            .map(|m| m.id.clone()),
        ..TargetOptions::default()
    };
    assert!(
        e.preview_file_rewind(&other, since)
            .expect("preview")
            .can_apply
    );
}

#[test]
fn removing_a_fork_leaves_its_parent_exact_and_restorable() {
    let mut e = engine();
    let (s, p) = one_turn(&mut e);
    let child = fork_at(&mut e, &s, &p);
    let before = SessionLog::load(e.store(), &s).expect("parent");
    let out = e
        .remove_session(&child, remove::Options::default())
        .expect("remove the fork");
    assert_eq!(out.removed.len(), 1);
    assert_eq!(out.removed[0].parent_id.as_ref(), Some(&s));
    let after = SessionLog::load(e.store(), &s).expect("parent");
    assert_eq!(after.session, before.session);
    assert_eq!(after.messages, before.messages);
    assert_eq!(after.turns, before.turns);
    assert_eq!(after.checkpoints, before.checkpoints);
    assert_eq!(after.operations, before.operations);
    // The blobs the fork shared with its parent survive gc: the parent still rewinds.
    e.gc(rewind_core::gc::Options::default(), false)
        .expect("gc");
    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    e.apply_file_rewind(
        &s,
        ApplyOptions {
            target: since,
            ..ApplyOptions::default()
        },
    )
    .expect("apply");
    assert_eq!(e.workspace().get("f.txt"), None, "back to before the turn");
}

#[test]
fn remove_refuses_a_running_turn_or_a_pending_journal() {
    let mut e = engine();
    let s = session(&mut e);
    let (_t, _) = prompt(&mut e, &s, "still running");
    let v = version(&e);
    let err = e
        .remove_session(&s, remove::Options::default())
        .expect_err("running");
    assert_eq!(err.code(), ErrorKind::Conflict);
    assert!(err.to_string().contains("running turn"), "{err}");
    assert_eq!(version(&e), v);

    // A journal left by an apply whose rollback failed.
    let mut e = engine();
    e.workspace_mut().put("f.txt", "f0");
    e.workspace_mut().put("g.txt", "g0");
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "two files");
    tool_edit(&mut e, &s, &t, "f.txt", Some(b"f"));
    tool_edit(&mut e, &s, &t, "g.txt", Some(b"g"));
    e.complete_turn(
        &s,
        CompleteTurnOptions {
            turn_id: t,
            failed: false,
            round_count: None,
        },
    )
    .expect("complete");
    e.workspace_mut().arm(Fault {
        op: FaultOp::Write,
        nth: 2,
        sticky: true,
    });
    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    e.apply_file_rewind(
        &s,
        ApplyOptions {
            target: since,
            ..ApplyOptions::default()
        },
    )
    .expect_err("unrecoverable");
    e.workspace_mut().clear_faults();
    let v = version(&e);
    let err = e
        .remove_session(&s, remove::Options::default())
        .expect_err("journal");
    assert_eq!(err.code(), ErrorKind::Conflict);
    assert!(err.to_string().contains("rewind recover"), "{err}");
    assert_eq!(version(&e), v);
    let missing = SessionId::parse("ses_nope").expect("id");
    let err = e
        .remove_session(&missing, remove::Options::default())
        .expect_err("missing");
    assert_eq!(err.code(), ErrorKind::NotFound);
}
