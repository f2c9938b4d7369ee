//! Contract tests for commits whose outcome is unknown (a connection lost at COMMIT): on either
//! side of the doubt (committed, not committed) the engine must not roll files back on its own
//! guess, and once `recover` has run the operation log and the files agree.

/// In-doubt commit guarantees of a store and workspace pair.
///
/// `$store` produces a fresh, empty `Faulty<impl StoreWrite>` (its in-doubt faults are the
/// injection), `$workspace` a fresh, empty `impl Workspace`.
#[macro_export]
macro_rules! in_doubt_contract {
    ($name:ident, $store:expr, $workspace:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[cfg(target_arch = "wasm32")]
            use wasm_bindgen_test::wasm_bindgen_test as test;
            use $crate::ErrorKind;
            use $crate::files::{ApplyOptions, TargetOptions};
            use $crate::id::{MessageId, SessionId};
            use $crate::model::{CheckpointKind, OperationKind};
            use $crate::path::WorkPath;
            use $crate::ports::{StoreWrite, Workspace};
            use $crate::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
            use $crate::recover::Settled;
            use $crate::testkit::{Fault, FaultOp, Faulty, SeqIds, TickClock};
            use $crate::{Engine, undo};

            const FILES: [&str; 2] = ["a.txt", "dir/b.txt"];

            fn path(p: &str) -> WorkPath {
                WorkPath::parse(p).expect("valid path")
            }
            fn old(p: &str) -> Vec<u8> {
                format!("old {p}\n").into_bytes()
            }
            fn new(p: &str) -> Vec<u8> {
                format!("new {p}\n").into_bytes()
            }

            /// A session whose one turn changed every file from `old` to `new`.
            fn setup<S: StoreWrite, W: Workspace>(
                store: Faulty<S>,
                mut ws: W,
            ) -> (Engine<Faulty<S>, W>, SessionId, MessageId) {
                for p in FILES {
                    ws.write(&path(p), &old(p)).expect("seed");
                }
                let mut e = Engine::new(store, ws, TickClock::default(), SeqIds::default());
                let s = e
                    .create_session(SessionOptions::default())
                    .expect("session")
                    .id;
                let prompt = PromptOptions {
                    text: "change every file".into(),
                    payload: None,
                };
                let turn = e.record_prompt(&s, prompt).expect("prompt");
                let mut changes = Vec::new();
                for p in FILES {
                    e.workspace_mut()
                        .write(&path(p), &new(p))
                        .expect("tool edit");
                    changes.push(EditChange {
                        path: p.into(),
                        before: Some(old(p)),
                        after: Some(new(p)),
                        patch: None,
                        before_mode: None,
                        after_mode: None,
                    });
                }
                let edit = EditOptions {
                    turn_id: turn.turn_id,
                    tool_name: "Edit".into(),
                    tool_call_id: None,
                    tool_message_id: None,
                    kind: CheckpointKind::Edit,
                    changes,
                };
                e.record_edit(&s, edit).expect("edit");
                (e, s, turn.message_id)
            }

            fn since(p: &MessageId) -> ApplyOptions {
                ApplyOptions {
                    target: TargetOptions {
                        since: Some(p.clone()),
                        ..TargetOptions::default()
                    },
                    ..ApplyOptions::default()
                }
            }

            fn contents<S: StoreWrite, W: Workspace>(e: &mut Engine<S, W>) -> Vec<Vec<u8>> {
                FILES
                    .iter()
                    .map(|p| {
                        e.workspace_mut()
                            .read(&path(p))
                            .expect("read")
                            .expect("present")
                    })
                    .collect()
            }
            fn all(f: fn(&str) -> Vec<u8>) -> Vec<Vec<u8>> {
                FILES.iter().map(|p| f(p)).collect()
            }
            fn kinds<S: StoreWrite, W: Workspace>(
                e: &Engine<S, W>,
                s: &SessionId,
            ) -> Vec<OperationKind> {
                let ops = e.operations(s).expect("operations").items;
                ops.iter().map(|o| o.kind).collect()
            }
            fn arm<S: StoreWrite, W: Workspace>(
                e: &mut Engine<Faulty<S>, W>,
                op: FaultOp,
                nth: u64,
            ) {
                e.store_mut().arm(Fault {
                    op,
                    nth,
                    sticky: false,
                });
            }

            /// An apply is two commits: the journal (1), then the final one (2).
            const FINAL: u64 = 2;

            #[test]
            fn final_commit_committed_but_unconfirmed_keeps_the_files_and_the_log_agrees() {
                let (mut e, s, p) = setup($store, $workspace);
                arm(&mut e, FaultOp::CommitLostReply, FINAL);
                let err = e.apply_file_rewind(&s, since(&p)).expect_err("in doubt");
                assert_eq!(err.kind(), ErrorKind::Unrecoverable, "{err}");
                assert!(err.to_string().contains("recover"), "{err}");
                assert_eq!(contents(&mut e), all(old), "the files stay as written");
                assert_eq!(kinds(&e, &s), [OperationKind::FileRewind], "it committed");
                assert!(e.resume(&s).expect("resume").pending_journals.is_empty());
                let out = e.recover(None).expect("recover");
                assert!(out.recovered.is_empty(), "nothing to settle: {out:?}");
                assert_eq!(contents(&mut e), all(old));
                // The log's operation is real: undo takes it back.
                let op = e.operations(&s).expect("ops").items[0].id.clone();
                let opts = undo::Options {
                    operation_id: Some(op),
                    policy: Default::default(),
                };
                assert!(e.undo(&s, opts).expect("undo").files.applied);
                assert_eq!(contents(&mut e), all(new));
            }

            #[test]
            fn final_commit_not_committed_and_unconfirmed_keeps_the_journal_for_recover() {
                let (mut e, s, p) = setup($store, $workspace);
                arm(&mut e, FaultOp::CommitInDoubt, FINAL);
                let err = e.apply_file_rewind(&s, since(&p)).expect_err("in doubt");
                assert_eq!(err.kind(), ErrorKind::Unrecoverable, "{err}");
                assert_eq!(contents(&mut e), all(old), "not rolled back on a guess");
                assert!(kinds(&e, &s).is_empty(), "the log holds no operation yet");
                assert_eq!(e.resume(&s).expect("resume").pending_journals.len(), 1);
                // The store's truth: the journal is there, so the commit did not happen; every
                // file holds its target, so recover finishes the apply (as after a crash).
                let out = e.recover(None).expect("recover");
                assert_eq!(out.recovered.len(), 1, "{out:?}");
                assert_eq!(out.recovered[0].action, Settled::Finished);
                assert_eq!(contents(&mut e), all(old));
                let logged = kinds(&e, &s);
                assert!(logged.contains(&OperationKind::FileRewind), "{logged:?}");
                assert!(e.resume(&s).expect("resume").pending_journals.is_empty());
                assert!(e.recover(None).expect("again").recovered.is_empty());
            }

            #[test]
            fn journal_commit_unconfirmed_touches_no_file() {
                for op in [FaultOp::CommitLostReply, FaultOp::CommitInDoubt] {
                    let (mut e, s, p) = setup($store, $workspace);
                    arm(&mut e, op, 1);
                    let err = e.apply_file_rewind(&s, since(&p)).expect_err("in doubt");
                    assert_eq!(err.kind(), ErrorKind::HostError, "{op:?}: {err}");
                    assert_eq!(contents(&mut e), all(new), "{op:?}: no file written");
                    // Whichever way it went, recover leaves the files and logs no rewind.
                    e.recover(None).expect("recover");
                    assert_eq!(contents(&mut e), all(new), "{op:?}");
                    assert!(
                        !kinds(&e, &s).contains(&OperationKind::FileRewind),
                        "{op:?}"
                    );
                    assert!(e.resume(&s).expect("resume").pending_journals.is_empty());
                }
            }

            #[test]
            fn a_plain_failed_final_commit_still_rolls_back() {
                let (mut e, s, p) = setup($store, $workspace);
                arm(&mut e, FaultOp::Commit, FINAL);
                let err = e.apply_file_rewind(&s, since(&p)).expect_err("fails");
                assert_eq!(err.kind(), ErrorKind::HostError, "{err}");
                assert_eq!(contents(&mut e), all(new), "rolled back");
                assert_eq!(kinds(&e, &s), [OperationKind::ApplyFailed]);
            }

            #[test]
            fn an_undo_whose_final_commit_is_in_doubt_is_settled_by_recover() {
                for op in [FaultOp::CommitLostReply, FaultOp::CommitInDoubt] {
                    let (mut e, s, p) = setup($store, $workspace);
                    let applied = e.apply_file_rewind(&s, since(&p)).expect("apply");
                    arm(&mut e, op, FINAL);
                    let opts = undo::Options {
                        operation_id: Some(applied.operation_id.expect("op")),
                        policy: Default::default(),
                    };
                    let err = e.undo(&s, opts).expect_err("in doubt");
                    assert_eq!(err.kind(), ErrorKind::Unrecoverable, "{op:?}: {err}");
                    assert_eq!(contents(&mut e), all(new), "{op:?}: as written");
                    e.recover(None).expect("recover");
                    assert_eq!(contents(&mut e), all(new), "{op:?}");
                    let logged = kinds(&e, &s);
                    assert!(logged.contains(&OperationKind::Undo), "{op:?}: {logged:?}");
                    assert!(e.resume(&s).expect("resume").pending_journals.is_empty());
                }
            }
        }
    };
}
