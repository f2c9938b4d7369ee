//! Contract tests for the range reads of the `Store` port: every store answers them exactly as
//! the whole-session reads would, from whatever index it keeps. `store_contract!` includes them.

/// Range-read guarantees: keyed lookups, half-open seq ranges, newest-first limits, counts,
/// compaction boundaries, a turn's checkpoints, the running byte total and blob presence.
///
/// `$make` is an expression producing a fresh, empty `impl StoreWrite`.
#[macro_export]
macro_rules! store_range_contract {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[cfg(target_arch = "wasm32")]
            use wasm_bindgen_test::wasm_bindgen_test as test;
            use $crate::batch::{Batch, Precondition, Write};
            use $crate::hash::ContentHash;
            use $crate::id::{CheckpointId, MessageId, SessionId, TurnId};
            use $crate::ports::{SeqRange, Store, StoreWrite};

            fn sid(n: &str) -> SessionId {
                SessionId::parse(&format!("ses_{n}")).expect("valid")
            }

            /// Session `a`: messages at odd seqs 1..=19 (7 and 15 are compaction summaries),
            /// checkpoints at 4, 10 and 16 (10 and 16 with bytes), turns at 1, 9 and 17, and a
            /// session `b` whose rows must never leak into `a`'s answers.
            fn filled() -> impl StoreWrite {
                let mut s = $make;
                for n in ["a", "b"] {
                    let mut b = Batch::new();
                    b.require(Precondition::SessionAbsent(sid(n)));
                    b.push(Write::CreateSession {
                        session: sid(n),
                        body: "{}".into(),
                    });
                    s.commit(b).expect("create");
                }
                let mut b = Batch::new();
                for seq in (1..=19u64).step_by(2) {
                    let boundary = seq == 7 || seq == 15;
                    b.push(Write::AppendMessage {
                        session: sid("a"),
                        seq,
                        message: MessageId::parse(&format!("msg_a{seq}")).expect("valid"),
                        body: match boundary {
                            true => format!("{{\"seq\":{seq},\"compaction\":{{}}}}"),
                            false => format!("{{\"seq\":{seq}}}"),
                        },
                        boundary,
                    });
                }
                for (seq, bytes) in [(4u64, 0u64), (10, 100), (16, 23)] {
                    b.push(Write::PutCheckpoint {
                        session: sid("a"),
                        seq,
                        checkpoint: CheckpointId::parse(&format!("ckp_a{seq}")).expect("valid"),
                        body: format!("{{\"seq\":{seq},\"addedBytes\":{bytes}}}"),
                        bytes,
                        turn: None,
                    });
                }
                for seq in [1u64, 9, 17] {
                    b.push(Write::PutTurn {
                        session: sid("a"),
                        turn: TurnId::parse(&format!("trn_a{seq}")).expect("valid"),
                        seq,
                        body: format!("{{\"seq\":{seq}}}"),
                    });
                }
                b.push(Write::AppendMessage {
                    session: sid("b"),
                    seq: 3,
                    message: MessageId::parse("msg_b3").expect("valid"),
                    body: "{\"compaction\":{}}".into(),
                    boundary: true,
                });
                b.push(Write::PutCheckpoint {
                    session: sid("b"),
                    seq: 4,
                    checkpoint: CheckpointId::parse("ckp_b4").expect("valid"),
                    body: "{\"addedBytes\":5}".into(),
                    bytes: 5,
                    turn: None,
                });
                s.commit(b).expect("fill");
                s
            }

            fn seqs(rows: Vec<$crate::ports::Row>) -> Vec<u64> {
                rows.into_iter().map(|r| r.seq).collect()
            }

            #[test]
            fn keyed_lookups_find_one_row_of_the_right_session() {
                let s = filled();
                let m = MessageId::parse("msg_a9").expect("valid");
                let row = s.message(&sid("a"), &m).expect("read").expect("found");
                assert_eq!((row.id.as_str(), row.seq), ("msg_a9", 9));
                assert_eq!(row.body, "{\"seq\":9}");
                assert!(s.message(&sid("b"), &m).expect("read").is_none());
                let c = CheckpointId::parse("ckp_a10").expect("valid");
                assert_eq!(
                    s.checkpoint(&sid("a"), &c)
                        .expect("read")
                        .expect("found")
                        .seq,
                    10
                );
                assert!(s.checkpoint(&sid("b"), &c).expect("read").is_none());
                assert!(
                    s.message(&sid("zz"), &m)
                        .expect("an unknown session reads as empty")
                        .is_none()
                );
            }

            #[test]
            fn ranges_are_half_open_and_ordered() {
                let s = filled();
                let a = sid("a");
                assert_eq!(
                    seqs(s.messages_in(&a, SeqRange::new(5, 11)).expect("read")),
                    [5, 7, 9]
                );
                assert_eq!(
                    seqs(s.messages_in(&a, SeqRange::from(17)).expect("read")),
                    [17, 19]
                );
                assert_eq!(
                    seqs(s.messages_in(&a, SeqRange::new(20, 30)).expect("read")),
                    Vec::<u64>::new()
                );
                assert_eq!(
                    seqs(s.messages_in(&a, SeqRange::new(9, 9)).expect("read")),
                    Vec::<u64>::new()
                );
                assert_eq!(
                    s.messages_in(&a, SeqRange::ALL).expect("read"),
                    s.messages(&a).expect("read"),
                    "the whole range is the whole transcript"
                );
                assert_eq!(
                    seqs(s.checkpoints_in(&a, SeqRange::new(4, 16)).expect("read")),
                    [4, 10]
                );
                assert_eq!(
                    seqs(s.checkpoints_in(&a, SeqRange::from(5)).expect("read")),
                    [10, 16]
                );
                assert_eq!(
                    seqs(s.turns_in(&a, SeqRange::from(9)).expect("read")),
                    [9, 17]
                );
                assert_eq!(
                    seqs(s.turns_in(&a, SeqRange::new(2, 9)).expect("read")),
                    Vec::<u64>::new()
                );
                assert_eq!(
                    seqs(s.messages_in(&sid("b"), SeqRange::ALL).expect("read")),
                    [3]
                );
            }

            #[test]
            fn the_last_rows_come_from_the_newest_end_in_seq_order() {
                let s = filled();
                let a = sid("a");
                assert_eq!(
                    seqs(s.last_messages_in(&a, SeqRange::ALL, 3).expect("read")),
                    [15, 17, 19]
                );
                assert_eq!(
                    seqs(
                        s.last_messages_in(&a, SeqRange::new(0, 9), 2)
                            .expect("read")
                    ),
                    [5, 7]
                );
                assert_eq!(
                    seqs(
                        s.last_messages_in(&a, SeqRange::new(0, 4), 10)
                            .expect("read")
                    ),
                    [1, 3]
                );
                assert!(
                    s.last_messages_in(&a, SeqRange::ALL, 0)
                        .expect("read")
                        .is_empty()
                );
            }

            #[test]
            fn turns_by_ordinal_and_ids_by_prefix() {
                use $crate::ports::IdTable;
                let s = filled();
                let a = sid("a");
                assert_eq!(s.turn_count_in(&a, SeqRange::ALL).expect("count"), 3);
                assert_eq!(s.turn_count_in(&a, SeqRange::new(2, 17)).expect("count"), 1);
                assert_eq!(s.turn_count_in(&sid("b"), SeqRange::ALL).expect("count"), 0);
                let at = |r, n, back| s.turn_at_in(&a, r, n, back).expect("read").map(|r| r.id);
                assert_eq!(at(SeqRange::ALL, 0, false).as_deref(), Some("trn_a1"));
                assert_eq!(at(SeqRange::ALL, 2, false).as_deref(), Some("trn_a17"));
                assert_eq!(at(SeqRange::ALL, 0, true).as_deref(), Some("trn_a17"));
                assert_eq!(at(SeqRange::from(5), 1, true).as_deref(), Some("trn_a9"));
                assert_eq!(at(SeqRange::new(2, 17), 1, false), None);
                assert_eq!(at(SeqRange::ALL, 3, true), None);
                let p = |t, who: Option<&SessionId>, pre: &str, n| {
                    s.ids_with_prefix(t, who, pre, n).expect("prefix")
                };
                assert_eq!(
                    p(IdTable::Messages, Some(&a), "msg_a1", 9),
                    [
                        "msg_a1", "msg_a11", "msg_a13", "msg_a15", "msg_a17", "msg_a19"
                    ]
                );
                assert_eq!(
                    p(IdTable::Messages, Some(&a), "msg_a1", 2),
                    ["msg_a1", "msg_a11"]
                );
                assert!(
                    p(IdTable::Messages, Some(&a), "msg_b", 9).is_empty(),
                    "another session's ids never leak"
                );
                assert_eq!(
                    p(IdTable::Turns, Some(&a), "trn_a", 9),
                    ["trn_a1", "trn_a17", "trn_a9"]
                );
                assert_eq!(
                    p(IdTable::Checkpoints, Some(&a), "ckp_a1", 9),
                    ["ckp_a10", "ckp_a16"]
                );
                assert_eq!(p(IdTable::Sessions, None, "ses_", 9), ["ses_a", "ses_b"]);
                assert!(p(IdTable::Operations, Some(&a), "op_", 9).is_empty());
            }

            #[test]
            fn counts_match_the_rows() {
                let s = filled();
                let a = sid("a");
                assert_eq!(s.message_count_in(&a, SeqRange::ALL).expect("count"), 10);
                assert_eq!(
                    s.message_count_in(&a, SeqRange::new(2, 12)).expect("count"),
                    5
                );
                assert_eq!(
                    s.message_count_in(&a, SeqRange::new(12, 2)).expect("count"),
                    0
                );
                assert_eq!(
                    s.message_count_in(&sid("zz"), SeqRange::ALL)
                        .expect("count"),
                    0
                );
                let count = |s: &dyn Store, from, to| {
                    s.message_count_in(&sid("a"), SeqRange::new(from, to))
                        .expect("count")
                };
                assert_eq!(count(&s, 19, 20), 1);
                assert_eq!(count(&s, 20, 40), 0);
                // A row written below others (the core never does) still counts right.
                let mut s = s;
                let mut b = Batch::new();
                b.push(Write::AppendMessage {
                    session: a.clone(),
                    seq: 2,
                    message: MessageId::parse("msg_a2").expect("valid"),
                    body: "{}".into(),
                    boundary: false,
                });
                s.commit(b).expect("append below");
                assert_eq!(count(&s, 2, 12), 6);
                assert_eq!(count(&s, 3, 12), 5);
                assert_eq!(count(&s, 0, u64::MAX), 11);
            }

            #[test]
            fn boundaries_are_the_compaction_summaries() {
                let s = filled();
                assert_eq!(seqs(s.boundaries(&sid("a")).expect("read")), [7, 15]);
                assert_eq!(seqs(s.boundaries(&sid("b")).expect("read")), [3]);
                assert!(s.boundaries(&sid("zz")).expect("read").is_empty());
            }

            #[test]
            fn the_byte_total_follows_checkpoints_in_and_out() {
                let mut s = filled();
                assert_eq!(s.session_bytes(&sid("a")).expect("read"), 123);
                assert_eq!(s.session_bytes(&sid("b")).expect("read"), 5);
                assert_eq!(s.session_bytes(&sid("zz")).expect("read"), 0);
                let mut b = Batch::new();
                b.push(Write::DeleteCheckpoint {
                    session: sid("a"),
                    checkpoint: CheckpointId::parse("ckp_a10").expect("valid"),
                });
                s.commit(b).expect("delete");
                assert_eq!(s.session_bytes(&sid("a")).expect("read"), 23);
                // A failed batch changes no total.
                let mut b = Batch::new();
                b.push(Write::PutCheckpoint {
                    session: sid("a"),
                    seq: 30,
                    checkpoint: CheckpointId::parse("ckp_a30").expect("valid"),
                    body: "{\"addedBytes\":7}".into(),
                    bytes: 7,
                    turn: None,
                });
                b.require(Precondition::LastSeq(sid("a"), 1));
                assert!(s.commit(b).is_err());
                assert_eq!(s.session_bytes(&sid("a")).expect("read"), 23);
            }

            $crate::__store_range_contract_turns!($make);

            #[test]
            fn blob_presence_is_a_lookup() {
                let mut s = filled();
                let h = ContentHash::of(b"here");
                assert!(!s.has_blob(&h).expect("read"));
                let mut b = Batch::new();
                b.push(Write::PutBlob {
                    hash: h.clone(),
                    bytes: b"here".to_vec(),
                    base: None,
                });
                s.commit(b).expect("blob");
                assert!(s.has_blob(&h).expect("read"));
                assert!(!s.has_blob(&ContentHash::of(b"elsewhere")).expect("read"));
            }
        }
    };
}
