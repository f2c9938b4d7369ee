//! Retention and garbage collection: what goes, what must stay, and that everything left is
//! still restorable.

use super::harness::{MemEngine, Shared, engine, prompt, session, tool_edit};
// proptest does not build for wasm32-unknown-unknown: the property below runs natively only.
#[cfg(not(target_arch = "wasm32"))]
use proptest::prelude::*;
use rewind_core::Engine;
use rewind_core::ErrorKind;
use rewind_core::ctx::Limits;
use rewind_core::files::{ApplyOptions, TargetOptions, UnsafeReason};
use rewind_core::fork;
use rewind_core::gc::Options;
use rewind_core::hash::ContentHash;
use rewind_core::id::SessionId;
use rewind_core::load;
use rewind_core::record::CompleteTurnOptions;
use rewind_core::testkit::{Fault, FaultOp, SeqIds, TickClock};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const DAY: i64 = 24 * 60 * 60 * 1000;

/// One session whose turn i writes `f.txt` = "v{i}"; every turn has ended.
fn history(e: &mut MemEngine, turns: usize) -> (SessionId, Vec<rewind_core::id::MessageId>) {
    let s = session(e);
    let mut prompts = Vec::new();
    for i in 1..=turns {
        let (t, p) = prompt(e, &s, &format!("turn {i}"));
        tool_edit(e, &s, &t, "f.txt", Some(format!("v{i}\n").as_bytes()));
        end_turn(e, &s, &t);
        prompts.push(p);
    }
    (s, prompts)
}

fn end_turn(e: &mut MemEngine, s: &SessionId, t: &rewind_core::id::TurnId) {
    e.complete_turn(
        s,
        CompleteTurnOptions {
            turn_id: t.clone(),
            failed: false,
            round_count: None,
        },
    )
    .expect("complete");
}

/// Every listed checkpoint's contents are still in the store and verify.
fn all_restorable(e: &MemEngine) {
    for s in e.sessions().expect("sessions").items {
        for c in e.checkpoints(&s.id).expect("checkpoints") {
            for f in &c.files {
                for h in [&f.before, &f.after].into_iter().flatten() {
                    if let Some(hash) = ContentHash::parse(h) {
                        load::blob(e.store(), &hash)
                            .unwrap_or_else(|err| panic!("{}: {err}", c.checkpoint_id));
                    }
                }
            }
        }
    }
}

#[test]
fn keep_n_drops_old_checkpoints_and_only_unreferenced_blobs() {
    let mut e = engine();
    let (s, prompts) = history(&mut e, 5);
    let dry = e
        .gc(
            Options {
                keep: 2,
                older_than_days: None,
                ..Options::default()
            },
            true,
        )
        .expect("dry run");
    assert!(!dry.applied);
    assert_eq!(dry.plan.totals.checkpoints.count, 3);
    assert_eq!(
        e.checkpoints(&s).expect("list").len(),
        5,
        "a dry run changes nothing"
    );
    let out = e
        .gc(
            Options {
                keep: 2,
                older_than_days: None,
                ..Options::default()
            },
            false,
        )
        .expect("gc");
    assert!(out.applied);
    assert_eq!(e.checkpoints(&s).expect("list").len(), 2);
    // v1 and v2 were only referenced by dropped checkpoints (v3 is turn 4's before).
    assert_eq!(out.plan.totals.blobs.count, 2);
    all_restorable(&e);
    assert!(
        e.gc(
            Options {
                keep: 2,
                older_than_days: None,
                ..Options::default()
            },
            false
        )
        .expect("again")
        .plan
        .is_empty(),
        "a second run finds nothing"
    );
    // The kept turns still rewind; reaching back past the dropped ones is refused, never partial.
    let keep = e
        .preview_file_rewind(
            &s,
            TargetOptions {
                since: Some(prompts[3].clone()),
                ..TargetOptions::default()
            },
        )
        .expect("preview");
    assert!(keep.can_apply);
    let past = e
        .apply_file_rewind(
            &s,
            ApplyOptions {
                target: TargetOptions {
                    since: Some(prompts[0].clone()),
                    ..TargetOptions::default()
                },
                ..ApplyOptions::default()
            },
        )
        .expect("apply");
    assert!(!past.applied);
    assert_eq!(
        past.preview.unsafe_files[0].reason,
        UnsafeReason::CheckpointUnreadable
    );
    assert_eq!(
        e.workspace().get("f.txt"),
        Some(&b"v5\n"[..]),
        "nothing deleted or truncated"
    );
    let ops = e.operations(&s).expect("ops").items;
    assert_eq!(ops.last().map(|o| o.kind.as_str()), Some("gc"));
}

#[test]
fn old_sessions_go_unless_a_journal_or_a_live_child_needs_them() {
    let mut e = engine();
    let (old, prompts) = history(&mut e, 2);
    let (lonely, _) = history(&mut e, 1);
    let child = e
        .fork(
            &old,
            fork::Options {
                at: Some(prompts[1].clone()),
                ..fork::Options::default()
            },
        )
        .expect("fork")
        .child_id;
    // Forty days later the child is still used; the parent and the lonely session are idle.
    let (store, ws) = e.into_parts();
    let mut e = Engine::new(
        store,
        ws,
        TickClock::new(1_767_225_600_000 + 40 * DAY),
        SeqIds::starting_after(50_000),
    );
    prompt(&mut e, &child, "still going");
    let out = e
        .gc(
            Options {
                keep: 100,
                older_than_days: Some(30),
                ..Options::default()
            },
            false,
        )
        .expect("gc");
    assert_eq!(out.plan.sessions, vec![lonely.clone()]);
    assert_eq!(
        out.plan
            .protected
            .iter()
            .map(|p| (p.session_id.clone(), p.reason))
            .collect::<Vec<_>>(),
        vec![(old.clone(), "live_child")]
    );
    assert!(e.resume(&lonely).is_err(), "the lonely session is gone");
    all_restorable(&e);
    // The child inherited the parent's checkpoints: their blobs survive with it.
    assert_eq!(e.checkpoints(&child).expect("child").len(), 2);
}

#[test]
fn a_pending_journal_protects_its_session_and_blobs() {
    let mut e = engine();
    e.workspace_mut().put("f.txt", "f0");
    e.workspace_mut().put("g.txt", "g0");
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "two files");
    tool_edit(&mut e, &s, &t, "f.txt", Some(b"f"));
    tool_edit(&mut e, &s, &t, "g.txt", Some(b"g"));
    // The second write fails and so does the rollback of the first: the journal stays.
    e.workspace_mut().arm(Fault {
        op: FaultOp::Write,
        nth: 2,
        sticky: true,
    });
    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    let err = e
        .apply_file_rewind(
            &s,
            ApplyOptions {
                target: since,
                ..ApplyOptions::default()
            },
        )
        .expect_err("unrecoverable");
    assert_eq!(err.kind(), ErrorKind::Unrecoverable);
    assert_eq!(e.resume(&s).expect("resume").pending_journals.len(), 1);
    e.workspace_mut().clear_faults();
    let (store, ws) = e.into_parts();
    let mut e = Engine::new(
        store,
        ws,
        TickClock::new(1_767_225_600_000 + 400 * DAY),
        SeqIds::starting_after(50_000),
    );
    let out = e
        .gc(
            Options {
                keep: 0,
                older_than_days: Some(1),
                ..Options::default()
            },
            false,
        )
        .expect("gc");
    assert!(out.plan.sessions.is_empty());
    assert_eq!(out.plan.protected[0].reason, "pending_journal");
    all_restorable(&e);
    let recovered = e.recover(None).expect("recover");
    assert_eq!(
        recovered.recovered.len(),
        1,
        "the journal can still be settled: its blobs survived gc"
    );
    assert!(recovered.recovered[0].left_paths.is_empty());
}

#[test]
fn quota_exceeded_is_a_failed_capture_not_an_error() {
    let mut e = engine().with_limits(Limits {
        session_quota_bytes: Some(10),
        ..Limits::default()
    });
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"12345"));
    tool_edit(&mut e, &s, &t, "b.txt", Some(b"this is far too long"));
    let cps = e.checkpoints(&s).expect("list");
    assert_eq!(cps[0].files[0].capture_failed, None);
    assert_eq!(
        cps[1].files[0].capture_failed.as_deref(),
        Some("quota_exceeded")
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
    assert_eq!(
        preview.unsafe_files[0].reason,
        UnsafeReason::UnsupportedCheckpoint
    );
}

#[test]
fn gc_that_loses_a_race_replans_and_never_deletes_a_reused_blob() {
    // gc plans, then someone records new content before gc commits: the version precondition
    // refuses gc's batch and gc plans again from the new state.
    let mut e = engine();
    let (s, _) = history(&mut e, 3);
    let plan = rewind_core::gc::plan(
        &rewind_core::ctx::Ports {
            store: &mut e.store().clone(),
            workspace: &mut e.workspace().clone(),
            clock: &TickClock::default(),
            ids: &mut SeqIds::starting_after(90_000),
            turn_control: None,
            limits: Limits::default(),
        },
        Options {
            keep: 1,
            older_than_days: None,
            ..Options::default()
        },
    )
    .expect("plan");
    assert!(!plan.is_empty());
    // v1 is about to be collected; a new turn writes v1 again (same content, same blob).
    let (t, _) = prompt(&mut e, &s, "again");
    tool_edit(&mut e, &s, &t, "f.txt", Some(b"v1\n"));
    e.gc(
        Options {
            keep: 1,
            older_than_days: None,
            ..Options::default()
        },
        false,
    )
    .expect("gc");
    all_restorable(&e);
    assert!(
        load::blob(e.store(), &ContentHash::of(b"v1\n")).is_ok(),
        "the blob the new checkpoint uses survives"
    );
}

#[cfg(not(target_arch = "wasm32"))]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// After any sequence of records, rewinds, undos, forks and gcs, every checkpoint still
    /// listed is fully restorable.
    #[test]
    fn everything_listed_stays_restorable(ops in prop::collection::vec(0u8..6, 1..25), keep in 0usize..3) {
        let mut e = engine();
        let s = session(&mut e);
        let mut sessions = vec![s];
        let mut prompts = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            let s = sessions[i % sessions.len()].clone();
            match op {
                0 | 1 => {
                    let (t, p) = prompt(&mut e, &s, "turn");
                    tool_edit(&mut e, &s, &t, &format!("f{}.txt", i % 3), Some(format!("{i}\n").as_bytes()));
                    prompts.push((s, p));
                }
                2 => if let Some((ps, p)) = prompts.last().cloned() {
                    let _ = e.apply_file_rewind(&ps, ApplyOptions { target: TargetOptions { since: Some(p), ..TargetOptions::default() }, ..ApplyOptions::default() });
                },
                3 => if let Some((ps, p)) = prompts.first().cloned()
                    && let Ok(out) = e.fork(&ps, fork::Options { at: Some(p), ..fork::Options::default() })
                {
                    sessions.push(out.child_id);
                },
                4 => { e.gc(Options { keep, older_than_days: None, ..Options::default() }, false).expect("gc"); }
                _ => {
                    let ops = e.operations(&s).expect("ops").items;
                    if let Some(op) = ops.iter().rev().find(|o| o.kind.writes_files() && !o.files.is_empty()) {
                        let _ = e.undo(&s, rewind_core::undo::Options { operation_id: Some(op.id.clone()), policy: Default::default() });
                    }
                }
            }
            all_restorable(&e);
        }
    }
}

/// Runs a gc from a second engine while the first one is in the middle of a `both` rewind
/// (between its plan and its writes), as another process could.
struct GcInTheMiddle {
    other: Engine<Shared, rewind_core::testkit::MemWorkspace>,
    deleted: std::rc::Rc<std::cell::RefCell<usize>>,
}

impl rewind_core::ports::TurnControl for GcInTheMiddle {
    fn stop_turns(
        &mut self,
        _: &SessionId,
        _: &[rewind_core::id::TurnId],
    ) -> Result<(), rewind_core::HostError> {
        let out = self
            .other
            .gc(
                Options {
                    keep: 0,
                    older_than_days: None,
                    ..Options::default()
                },
                false,
            )
            .expect("gc");
        *self.deleted.borrow_mut() =
            out.plan.totals.checkpoints.count + out.plan.totals.blobs.count;
        Ok(())
    }
}

#[test]
fn gc_racing_a_rewind_never_leaves_it_half_done() {
    let store = Shared::default();
    let mut first = Engine::new(
        store.clone(),
        rewind_core::testkit::MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    );
    first.workspace_mut().put("f.txt", "original\n");
    let s = session(&mut first);
    let (t1, p1) = prompt(&mut first, &s, "one");
    first.workspace_mut().put("f.txt", "one\n");
    let edit = |t: &rewind_core::id::TurnId, before: &[u8], after: &[u8]| {
        rewind_core::record::EditOptions {
            turn_id: t.clone(),
            tool_name: "Edit".into(),
            tool_call_id: None,
            tool_message_id: None,
            kind: rewind_core::model::CheckpointKind::Edit,
            changes: vec![rewind_core::record::EditChange {
                path: "f.txt".into(),
                before: Some(before.to_vec()),
                after: Some(after.to_vec()),
                patch: None,
                before_mode: None,
                after_mode: None,
            }],
        }
    };
    first
        .record_edit(&s, edit(&t1, b"original\n", b"one\n"))
        .expect("edit");
    let (t2, _) = prompt(&mut first, &s, "two");
    first.workspace_mut().put("f.txt", "two\n");
    first
        .record_edit(&s, edit(&t2, b"one\n", b"two\n"))
        .expect("edit");
    let deleted = std::rc::Rc::new(std::cell::RefCell::new(0));
    let other = Engine::new(
        store,
        rewind_core::testkit::MemWorkspace::new(),
        TickClock::default(),
        SeqIds::starting_after(70_000),
    );
    let mut first = first.with_turn_control(GcInTheMiddle {
        other,
        deleted: deleted.clone(),
    });
    let out = first.rewind_both(
        &s,
        rewind_core::both::Options {
            to: p1,
            policy: Default::default(),
            paths: Vec::new(),
        },
    );
    assert!(*deleted.borrow() > 0, "gc really deleted things mid-rewind");
    match out {
        Ok(done) => {
            assert!(done.rewound, "{done:?}");
            assert_eq!(
                first.workspace().get("f.txt"),
                Some(&b"original\n"[..]),
                "completed in full"
            );
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
            assert_eq!(
                first.workspace().get("f.txt"),
                Some(&b"two\n"[..]),
                "nothing restored"
            );
        }
    }
    assert!(
        first
            .resume(&s)
            .expect("resume")
            .pending_journals
            .is_empty()
    );
}

#[test]
fn a_running_turn_or_a_recent_use_keeps_a_session_and_zero_is_refused() {
    let mut e = engine();
    let (done, _) = history(&mut e, 1);
    let busy = session(&mut e);
    let (t, _) = prompt(&mut e, &busy, "a long job");
    tool_edit(&mut e, &busy, &t, "g.txt", Some(b"g1\n"));
    for zero in [
        Options {
            older_than_days: Some(0),
            ..Options::default()
        },
        Options {
            older_than_ms: Some(0),
            ..Options::default()
        },
    ] {
        let err = e.gc(zero, true).expect_err("0 is refused");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("one hour"), "{err}");
    }
    // A minute is read as the one-hour floor: both sessions were used moments ago.
    let minute = Options {
        older_than_ms: Some(60_000),
        ..Options::default()
    };
    let out = e.gc(minute, false).expect("gc");
    assert!(out.plan.sessions.is_empty(), "{:?}", out.plan.sessions);
    assert_eq!(out.plan.older_than_ms, Some(rewind_core::gc::MIN_IDLE_MS));
    // Two hours later both are idle past the floor; only the finished one goes.
    let (store, ws) = e.into_parts();
    let mut e = Engine::new(
        store,
        ws,
        TickClock::new(1_767_225_600_000 + 2 * 60 * 60 * 1000),
        SeqIds::starting_after(50_000),
    );
    let out = e.gc(minute, false).expect("gc");
    assert_eq!(out.plan.sessions, vec![done]);
    assert_eq!(
        out.plan
            .protected
            .iter()
            .map(|p| (p.session_id.clone(), p.reason))
            .collect::<Vec<_>>(),
        vec![(busy.clone(), "running_turn")]
    );
    assert!(e.resume(&busy).is_ok());
}
