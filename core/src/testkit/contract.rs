//! Contract tests every adapter must pass. Each macro expands to a module of `#[test]`s built
//! from a factory expression, so the same guarantees are checked for the memory hosts, SQLite,
//! the disk workspace and the JS callback hosts.

/// Store guarantees: atomic batches, preconditions, ordering, blobs stored once.
///
/// `$make` is an expression producing a fresh, empty `impl StoreWrite`.
#[macro_export]
macro_rules! store_contract {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            // On wasm32 the tests run under wasm-bindgen-test (the invoking crate's dev-dependency);
            // an explicit import, because a glob-imported `test` would be ambiguous.
            #[cfg(target_arch = "wasm32")]
            use wasm_bindgen_test::wasm_bindgen_test as test;
            use $crate::HostErrorKind;
            use $crate::batch::{Batch, Precondition, Write};
            use $crate::hash::ContentHash;
            use $crate::id::{CheckpointId, JournalId, MessageId, OperationId, SessionId, TurnId};
            use $crate::ports::{Store, StoreWrite};

            use $crate::testkit::batches::{create, msg, sid};

            #[test]
            fn sessions_round_trip_in_creation_order() {
                let mut s = $make;
                s.commit(create("b")).expect("commit");
                s.commit(create("a")).expect("commit");
                let rows = s.sessions().expect("read");
                assert_eq!(
                    rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
                    ["ses_b", "ses_a"]
                );
                assert_eq!(
                    s.session(&sid("a")).expect("read").expect("exists").body,
                    "{\"n\":\"a\"}"
                );
                assert!(s.session(&sid("zz")).expect("read").is_none());
            }

            #[test]
            fn failed_precondition_writes_nothing() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                let mut b = Batch::new();
                b.push(msg("a", 1));
                b.push(Write::PutBlob {
                    hash: ContentHash::of(b"x"),
                    bytes: b"x".to_vec(),
                    base: None,
                });
                b.require(Precondition::LastSeq(sid("a"), 5));
                let err = s.commit(b).expect_err("precondition must fail");
                assert_eq!(err.kind(), HostErrorKind::PreconditionFailed);
                assert!(s.messages(&sid("a")).expect("read").is_empty());
                assert!(s.blob(&ContentHash::of(b"x")).expect("read").is_none());
                let err = s.commit(create("a")).expect_err("duplicate session");
                assert_eq!(err.kind(), HostErrorKind::PreconditionFailed);
            }

            #[test]
            fn duplicate_seq_rejects_the_whole_batch() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                let mut b = Batch::new();
                b.push(msg("a", 1));
                s.commit(b).expect("commit");
                let mut b = Batch::new();
                b.push(Write::PutBlob {
                    hash: ContentHash::of(b"y"),
                    bytes: b"y".to_vec(),
                    base: None,
                });
                b.push(Write::AppendMessage {
                    session: sid("a"),
                    seq: 1,
                    message: MessageId::parse("msg_other").expect("valid"),
                    body: "{}".into(),
                    boundary: false,
                });
                assert!(s.commit(b).is_err());
                assert!(s.blob(&ContentHash::of(b"y")).expect("read").is_none());
                assert_eq!(s.messages(&sid("a")).expect("read").len(), 1);
            }

            #[test]
            fn last_seq_and_generation_are_checked() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                assert_eq!(s.last_seq(&sid("a")).expect("read"), 0);
                let mut b = Batch::new();
                b.require(Precondition::LastSeq(sid("a"), 0));
                b.push(msg("a", 1));
                b.push(Write::PutCheckpoint {
                    session: sid("a"),
                    seq: 2,
                    checkpoint: CheckpointId::parse("ckp_1").expect("valid"),
                    body: "{}".into(),
                    bytes: 0,
                    turn: None,
                });
                s.commit(b).expect("commit");
                assert_eq!(s.last_seq(&sid("a")).expect("read"), 2);
                assert_eq!(s.checkpoints(&sid("a")).expect("read")[0].seq, 2);
                let mut b = Batch::new();
                b.require(Precondition::Generation(sid("a"), 0));
                b.push(Write::UpdateSession {
                    session: sid("a"),
                    generation: 1,
                    body: "{\"g\":1}".into(),
                });
                s.commit(b).expect("commit");
                let mut stale = Batch::new();
                stale.require(Precondition::Generation(sid("a"), 0));
                stale.push(Write::UpdateSession {
                    session: sid("a"),
                    generation: 1,
                    body: "{\"g\":2}".into(),
                });
                assert_eq!(
                    s.commit(stale).expect_err("stale").kind(),
                    HostErrorKind::PreconditionFailed
                );
                assert_eq!(
                    s.session(&sid("a")).expect("read").expect("exists").body,
                    "{\"g\":1}"
                );
            }

            #[test]
            fn messages_come_back_in_seq_order() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                let mut b = Batch::new();
                for seq in [3, 1, 2] {
                    b.push(msg("a", seq));
                }
                s.commit(b).expect("commit");
                let seqs: Vec<u64> = s
                    .messages(&sid("a"))
                    .expect("read")
                    .iter()
                    .map(|r| r.seq)
                    .collect();
                assert_eq!(seqs, [1, 2, 3]);
            }

            #[test]
            fn blobs_are_stored_once_and_exact() {
                let mut s = $make;
                let bytes = vec![0u8, 0xff, 0xfe, b'\r', b'\n', 0x80];
                let hash = ContentHash::of(&bytes);
                for _ in 0..2 {
                    let mut b = Batch::new();
                    b.push(Write::PutBlob {
                        hash: hash.clone(),
                        bytes: bytes.clone(),
                        base: None,
                    });
                    s.commit(b).expect("commit");
                }
                assert_eq!(s.blob(&hash).expect("read"), Some(bytes));
            }

            #[test]
            fn command_facts_are_written_once() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                let cmd = $crate::id::CommandId::parse("cmd_1").expect("valid");
                assert!(s.command_fact(&sid("a"), &cmd).expect("read").is_none());
                let fact = |body: &str| {
                    let mut b = Batch::new();
                    b.require(Precondition::CommandUnused(sid("a"), cmd.clone()));
                    b.push(Write::PutCommandFact {
                        parent: sid("a"),
                        command: cmd.clone(),
                        body: body.into(),
                    });
                    b
                };
                s.commit(fact("{\"child\":1}")).expect("commit");
                assert_eq!(
                    s.command_fact(&sid("a"), &cmd)
                        .expect("read")
                        .expect("exists")
                        .body,
                    "{\"child\":1}"
                );
                let err = s
                    .commit(fact("{\"child\":2}"))
                    .expect_err("a replay must not overwrite");
                assert_eq!(err.kind(), HostErrorKind::PreconditionFailed);
                assert_eq!(
                    s.command_fact(&sid("a"), &cmd)
                        .expect("read")
                        .expect("exists")
                        .body,
                    "{\"child\":1}"
                );
                s.commit(create("b")).expect("commit");
                assert!(
                    s.command_fact(&sid("b"), &cmd).expect("read").is_none(),
                    "facts are per parent session"
                );
            }

            #[test]
            fn version_counts_commits_and_guards_a_batch() {
                let mut s = $make;
                let v0 = s.version().expect("read");
                s.commit(create("a")).expect("commit");
                assert_eq!(s.version().expect("read"), v0 + 1);
                let mut stale = Batch::new();
                stale.require(Precondition::Version(v0));
                stale.push(Write::PutBlob {
                    hash: ContentHash::of(b"z"),
                    bytes: b"z".to_vec(),
                    base: None,
                });
                assert_eq!(
                    s.commit(stale).expect_err("stale").kind(),
                    HostErrorKind::PreconditionFailed
                );
                assert_eq!(
                    s.version().expect("read"),
                    v0 + 1,
                    "a refused batch is not counted"
                );
                let mut fresh = Batch::new();
                fresh.require(Precondition::Version(v0 + 1));
                fresh.push(Write::PutBlob {
                    hash: ContentHash::of(b"z"),
                    bytes: b"z".to_vec(),
                    base: None,
                });
                s.commit(fresh).expect("commit");
            }

            $crate::__store_contract_lifecycle!($make);
        }
    };
}
