//! Write failures at every position of an apply, compensation failure, recovery.

use super::harness::{engine, prompt, session, tool_edit};
use rewind_core::ErrorKind;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::model::OperationKind;
use rewind_core::recover::Settled;
use rewind_core::testkit::{Fault, FaultOp};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const N: usize = 4;

fn setup() -> (
    super::harness::MemEngine,
    rewind_core::id::SessionId,
    rewind_core::id::MessageId,
) {
    let mut e = engine();
    for i in 0..N {
        e.workspace_mut()
            .put(&format!("f{i}.txt"), format!("old {i}\n"));
    }
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "change every file");
    for i in 0..N {
        tool_edit(
            &mut e,
            &s,
            &t,
            &format!("f{i}.txt"),
            Some(format!("new {i}\n").as_bytes()),
        );
    }
    (e, s, p)
}

fn since(p: &rewind_core::id::MessageId) -> ApplyOptions {
    ApplyOptions {
        target: TargetOptions {
            since: Some(p.clone()),
            ..TargetOptions::default()
        },
        ..ApplyOptions::default()
    }
}

#[test]
fn a_write_failure_at_any_position_leaves_the_workspace_as_before() {
    for k in 1..=N as u64 {
        let (mut e, s, p) = setup();
        let before = e.workspace().files().clone();
        e.workspace_mut().arm(Fault {
            op: FaultOp::Write,
            nth: k,
            sticky: false,
        });
        let out = e
            .apply_file_rewind(&s, since(&p))
            .expect("a failed write is an outcome, not an error");
        assert!(!out.applied, "k={k}");
        assert!(
            out.cause.as_deref().is_some_and(|c| c.contains("failed")),
            "k={k}: {:?}",
            out.cause
        );
        assert_eq!(
            e.workspace().files(),
            &before,
            "k={k}: workspace must be byte-identical to before"
        );
        let ops = e.operations(&s).expect("ops").items;
        assert_eq!(
            ops.iter().map(|o| o.kind).collect::<Vec<_>>(),
            [OperationKind::ApplyFailed],
            "k={k}"
        );
        assert!(
            e.resume(&s).expect("resume").pending_journals.is_empty(),
            "k={k}: journal settled"
        );
        e.workspace_mut().clear_faults();
        assert!(
            e.apply_file_rewind(&s, since(&p)).expect("retry").applied,
            "k={k}: retry succeeds"
        );
        for i in 0..N {
            assert_eq!(
                e.workspace().get(&format!("f{i}.txt")),
                Some(format!("old {i}\n").as_bytes())
            );
        }
    }
}

#[test]
fn a_failed_rollback_is_unrecoverable_and_recover_finishes_it() {
    for k in 2..=N as u64 {
        let (mut e, s, p) = setup();
        let before = e.workspace().files().clone();
        e.workspace_mut().arm(Fault {
            op: FaultOp::Write,
            nth: k,
            sticky: true,
        });
        let err = e
            .apply_file_rewind(&s, since(&p))
            .expect_err("rollback cannot write either");
        assert_eq!(err.kind(), ErrorKind::Unrecoverable, "k={k}");
        assert_ne!(
            e.workspace().files(),
            &before,
            "k={k}: the first write stands until recovery"
        );
        assert_eq!(e.resume(&s).expect("resume").pending_journals.len(), 1);
        e.workspace_mut().clear_faults();
        let out = e.recover(None).expect("recover");
        assert_eq!(out.recovered.len(), 1);
        assert_eq!(out.recovered[0].action, Settled::RolledBack);
        assert_eq!(e.workspace().files(), &before, "k={k}");
        assert!(
            e.recover(None)
                .expect("second recover")
                .recovered
                .is_empty(),
            "recover is idempotent"
        );
    }
}

#[test]
fn a_failed_final_commit_is_compensated_and_settled() {
    let (mut e, s, p) = setup();
    // The final commit fails: files are written, the journal stays, compensation puts them back.
    e.store_mut().arm(Fault {
        op: FaultOp::Commit,
        nth: 2,
        sticky: false,
    });
    let before = e.workspace().files().clone();
    let err = e
        .apply_file_rewind(&s, since(&p))
        .expect_err("final commit fails");
    assert_eq!(err.kind(), ErrorKind::HostError);
    assert_eq!(e.workspace().files(), &before, "compensated");
    let out = e.recover(None).expect("recover");
    assert!(
        out.recovered
            .iter()
            .all(|r| r.action == Settled::RolledBack && r.restored_paths.is_empty())
    );
    assert!(e.resume(&s).expect("resume").pending_journals.is_empty());
}

#[test]
fn the_journal_commit_failing_writes_nothing() {
    let (mut e, s, p) = setup();
    let before = e.workspace().files().clone();
    e.store_mut().arm(Fault {
        op: FaultOp::Commit,
        nth: 1,
        sticky: false,
    });
    let err = e
        .apply_file_rewind(&s, since(&p))
        .expect_err("journal commit fails");
    assert_eq!(err.kind(), ErrorKind::HostError);
    assert_eq!(e.workspace().files(), &before);
    assert_eq!(
        e.workspace().faults().calls(FaultOp::Write),
        0,
        "no file was touched"
    );
}

#[test]
fn the_memory_store_injects_both_sides_of_an_in_doubt_commit() {
    for (op, committed) in [
        (FaultOp::CommitLostReply, true),
        (FaultOp::CommitInDoubt, false),
    ] {
        let (mut e, s, p) = setup();
        e.store_mut().arm(Fault {
            op,
            nth: 2,
            sticky: false,
        });
        let err = e
            .apply_file_rewind(&s, since(&p))
            .expect_err("final commit in doubt");
        assert_eq!(err.kind(), ErrorKind::Unrecoverable, "{op:?}");
        for i in 0..N {
            assert_eq!(
                e.workspace().get(&format!("f{i}.txt")),
                Some(format!("old {i}\n").as_bytes()),
                "{op:?}: left as written"
            );
        }
        let logged = e.operations(&s).expect("ops").items.len();
        assert_eq!(
            logged == 1,
            committed,
            "{op:?}: the store kept what happened"
        );
        let pending = e.resume(&s).expect("resume").pending_journals.len();
        assert_eq!(pending == 0, committed, "{op:?}");
    }
}
