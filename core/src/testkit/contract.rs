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

            fn sid(n: &str) -> SessionId {
                SessionId::parse(&format!("ses_{n}")).expect("valid")
            }
            fn create(n: &str) -> Batch {
                let mut b = Batch::new();
                b.require(Precondition::SessionAbsent(sid(n)));
                b.push(Write::CreateSession {
                    session: sid(n),
                    body: format!("{{\"n\":\"{n}\"}}"),
                });
                b
            }
            fn msg(n: &str, seq: u64) -> Write {
                Write::AppendMessage {
                    session: sid(n),
                    seq,
                    message: MessageId::parse(&format!("msg_{n}{seq}")).expect("valid"),
                    body: format!("{{\"seq\":{seq}}}"),
                    boundary: false,
                }
            }

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

            #[test]
            fn deletes_remove_exactly_what_they_name() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                s.commit(create("b")).expect("commit");
                let text = "a blob long enough that a store may compress it. ".repeat(20);
                let mut b = Batch::new();
                b.push(msg("a", 1));
                b.push(Write::PutCheckpoint {
                    session: sid("a"),
                    seq: 2,
                    checkpoint: CheckpointId::parse("ckp_a2").expect("valid"),
                    body: "{}".into(),
                    bytes: 0,
                });
                b.push(Write::PutCheckpoint {
                    session: sid("a"),
                    seq: 3,
                    checkpoint: CheckpointId::parse("ckp_a3").expect("valid"),
                    body: "{}".into(),
                    bytes: 0,
                });
                b.push(Write::PutOperation {
                    session: sid("a"),
                    operation: OperationId::parse("op_a").expect("valid"),
                    body: "{}".into(),
                });
                b.push(Write::PutCommandFact {
                    parent: sid("a"),
                    command: $crate::id::CommandId::parse("cmd_a").expect("valid"),
                    body: "{}".into(),
                });
                b.push(Write::PutBlob {
                    hash: ContentHash::of(text.as_bytes()),
                    bytes: text.clone().into_bytes(),
                    base: None,
                });
                b.push(Write::PutBlob {
                    hash: ContentHash::of(b"keep"),
                    bytes: b"keep".to_vec(),
                    base: None,
                });
                b.push(msg("b", 1));
                s.commit(b).expect("commit");
                let listed = s.blobs().expect("list");
                assert_eq!(listed.len(), 2);
                let big = listed
                    .iter()
                    .find(|i| i.hash == ContentHash::of(text.as_bytes()))
                    .expect("listed");
                assert_eq!(big.size, text.len() as u64);
                assert!(big.stored <= big.size);
                let mut b = Batch::new();
                b.push(Write::DeleteCheckpoint {
                    session: sid("a"),
                    checkpoint: CheckpointId::parse("ckp_a2").expect("valid"),
                });
                b.push(Write::DeleteBlob {
                    hash: ContentHash::of(text.as_bytes()),
                });
                s.commit(b).expect("commit");
                assert_eq!(
                    s.checkpoints(&sid("a"))
                        .expect("read")
                        .iter()
                        .map(|r| r.id.as_str())
                        .collect::<Vec<_>>(),
                    ["ckp_a3"]
                );
                assert!(
                    s.blob(&ContentHash::of(text.as_bytes()))
                        .expect("read")
                        .is_none()
                );
                assert_eq!(
                    s.blob(&ContentHash::of(b"keep")).expect("read"),
                    Some(b"keep".to_vec())
                );
                let mut b = Batch::new();
                b.push(Write::DeleteSession { session: sid("a") });
                s.commit(b).expect("commit");
                assert!(s.session(&sid("a")).expect("read").is_none());
                assert!(s.messages(&sid("a")).expect("read").is_empty());
                assert!(s.checkpoints(&sid("a")).expect("read").is_empty());
                assert!(s.operations(&sid("a")).expect("read").is_empty());
                assert!(
                    s.command_fact(
                        &sid("a"),
                        &$crate::id::CommandId::parse("cmd_a").expect("valid")
                    )
                    .expect("read")
                    .is_none()
                );
                assert_eq!(
                    s.messages(&sid("b")).expect("read").len(),
                    1,
                    "other sessions are untouched"
                );
            }

            #[test]
            fn turns_operations_and_journals() {
                let mut s = $make;
                s.commit(create("a")).expect("commit");
                let t = TurnId::parse("trn_1").expect("valid");
                let mut b = Batch::new();
                b.push(Write::PutTurn {
                    session: sid("a"),
                    turn: t.clone(),
                    seq: 1,
                    body: "{\"v\":1}".into(),
                });
                b.push(Write::PutOperation {
                    session: sid("a"),
                    operation: OperationId::parse("op_2").expect("valid"),
                    body: "{\"o\":2}".into(),
                });
                b.push(Write::PutOperation {
                    session: sid("a"),
                    operation: OperationId::parse("op_1").expect("valid"),
                    body: "{\"o\":1}".into(),
                });
                b.push(Write::PutJournal {
                    journal: JournalId::parse("jnl_1").expect("valid"),
                    session: sid("a"),
                    body: "{}".into(),
                });
                s.commit(b).expect("commit");
                let mut b = Batch::new();
                b.push(Write::PutTurn {
                    session: sid("a"),
                    turn: t.clone(),
                    seq: 1,
                    body: "{\"v\":2}".into(),
                });
                s.commit(b).expect("commit");
                assert_eq!(
                    s.turn(&sid("a"), &t).expect("read").expect("exists").body,
                    "{\"v\":2}"
                );
                assert_eq!(s.turns(&sid("a")).expect("read").len(), 1);
                let ops: Vec<String> = s
                    .operations(&sid("a"))
                    .expect("read")
                    .into_iter()
                    .map(|r| r.id)
                    .collect();
                assert_eq!(ops, ["op_2", "op_1"], "operations keep commit order");
                assert_eq!(s.journals().expect("read").len(), 1);
                let mut b = Batch::new();
                b.require(Precondition::JournalPresent(
                    JournalId::parse("jnl_1").expect("valid"),
                ));
                b.push(Write::RemoveJournal {
                    journal: JournalId::parse("jnl_1").expect("valid"),
                });
                s.commit(b).expect("commit");
                assert!(s.journals().expect("read").is_empty());
                let mut b = Batch::new();
                b.require(Precondition::JournalPresent(
                    JournalId::parse("jnl_1").expect("valid"),
                ));
                assert!(
                    s.commit(b).is_err(),
                    "a settled journal cannot be settled twice"
                );
            }

            $crate::store_range_contract!(ranges, $make);
            $crate::store_snapshot_contract!(workspace_snapshots, $make);
        }
    };
}

/// Workspace guarantees: absent is `None`, writes create parents and replace, removes tolerate
/// missing files, bytes are exact.
///
/// `$make` is an expression producing a fresh, empty `impl Workspace`.
#[macro_export]
macro_rules! workspace_contract {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            // On wasm32 the tests run under wasm-bindgen-test (the invoking crate's dev-dependency);
            // an explicit import, because a glob-imported `test` would be ambiguous.
            #[cfg(target_arch = "wasm32")]
            use wasm_bindgen_test::wasm_bindgen_test as test;
            use $crate::path::WorkPath;
            use $crate::ports::Workspace;

            fn p(s: &str) -> WorkPath {
                WorkPath::parse(s).expect("valid")
            }

            #[test]
            fn missing_file_reads_as_none() {
                let mut w = $make;
                assert_eq!(w.read(&p("nope.txt")).expect("read"), None);
            }

            #[test]
            fn write_creates_parents_and_replaces() {
                let mut w = $make;
                w.write(&p("a/b/c.txt"), b"one").expect("write");
                w.write(&p("a/b/c.txt"), b"two").expect("write");
                assert_eq!(
                    w.read(&p("a/b/c.txt")).expect("read"),
                    Some(b"two".to_vec())
                );
            }

            #[test]
            fn remove_is_idempotent() {
                let mut w = $make;
                w.write(&p("x.txt"), b"x").expect("write");
                w.remove(&p("x.txt")).expect("remove");
                w.remove(&p("x.txt")).expect("remove missing is fine");
                assert_eq!(w.read(&p("x.txt")).expect("read"), None);
            }

            #[test]
            fn bytes_round_trip_exactly() {
                let mut w = $make;
                let bytes: Vec<u8> = (0..=255u8).chain([b'\r', b'\n', b'\r']).collect();
                w.write(&p("bin.dat"), &bytes).expect("write");
                assert_eq!(w.read(&p("bin.dat")).expect("read"), Some(bytes));
                w.write(&p("empty"), b"").expect("write");
                assert_eq!(w.read(&p("empty")).expect("read"), Some(Vec::new()));
            }

            #[test]
            fn modes_round_trip_survive_a_replace_or_are_absent() {
                let mut w = $make;
                assert_eq!(w.mode(&p("none.sh")).expect("mode"), None);
                w.set_mode(&p("none.sh"), 0o755)
                    .expect("a missing file is fine");
                assert_eq!(
                    w.read(&p("none.sh")).expect("read"),
                    None,
                    "set_mode creates nothing"
                );
                w.write(&p("run.sh"), b"#!/bin/sh\n").expect("write");
                if w.mode(&p("run.sh")).expect("mode").is_none() {
                    return; // a host without modes
                }
                w.set_mode(&p("run.sh"), 0o755).expect("set");
                assert_eq!(w.mode(&p("run.sh")).expect("mode"), Some(0o755));
                w.write(&p("run.sh"), b"#!/bin/sh\necho\n")
                    .expect("replace");
                assert_eq!(
                    w.mode(&p("run.sh")).expect("mode"),
                    Some(0o755),
                    "a replace keeps it"
                );
                w.set_mode(&p("run.sh"), 0o644).expect("set");
                assert_eq!(w.mode(&p("run.sh")).expect("mode"), Some(0o644));
                w.remove(&p("run.sh")).expect("remove");
                assert_eq!(w.mode(&p("run.sh")).expect("mode"), None);
            }
        }
    };
}
