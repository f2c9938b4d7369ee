//! Contract tests for `Store::turn_checkpoints`, included in
//! [`store_range_contract!`](crate::store_range_contract) inside its module, so they share its
//! imports.

/// A turn's checkpoints: by the turn each was recorded into, not by seq range.
#[doc(hidden)]
#[macro_export]
macro_rules! __store_range_contract_turns {
    ($make:expr) => {
        /// A parent session with turns 1 (prompt at 1) and 2 (prompt at 3): checkpoints at 2
        /// and 4 in their own turns, at 5 recorded into turn 1 after turn 2's prompt, at 6 in
        /// none, at 7 written without the turn (a batch persisted before writes carried it:
        /// the body names turn 2). And a fork's child with turn 1's checkpoints copied.
        fn by_turn() -> impl StoreWrite {
            let mut s = $make;
            let mut b = Batch::new();
            for n in ["p", "c"] {
                b.push(Write::CreateSession {
                    session: sid(n),
                    body: "{}".into(),
                });
            }
            for seq in [1u64, 3] {
                b.push(Write::AppendMessage {
                    session: sid("p"),
                    seq,
                    message: MessageId::parse(&format!("msg_p{seq}")).expect("valid"),
                    body: "{}".into(),
                    boundary: false,
                });
            }
            let t = |n: u32| TurnId::parse(&format!("trn_{n}")).expect("valid");
            let rows = [
                ("p", 2u64, Some(1), Some(1)),
                ("p", 4, Some(2), Some(2)),
                ("p", 5, Some(1), Some(1)),
                ("p", 6, None, None),
                ("p", 7, Some(2), None),
                ("c", 2, Some(1), Some(1)),
                ("c", 5, Some(1), Some(1)),
            ];
            for (n, seq, named, carried) in rows {
                let body = match named {
                    Some(k) => format!("{{\"seq\":{seq},\"turnId\":\"trn_{k}\"}}"),
                    None => "[]".to_owned(),
                };
                b.push(Write::PutCheckpoint {
                    session: sid(n),
                    seq,
                    checkpoint: CheckpointId::parse(&format!("ckp_{n}{seq}")).expect("valid"),
                    body,
                    bytes: 0,
                    turn: carried.map(t),
                });
            }
            s.commit(b).expect("fill");
            s
        }

        #[test]
        fn a_turns_checkpoints_are_those_recorded_into_it_wherever_their_seq() {
            let mut s = by_turn();
            let t = |n: u32| TurnId::parse(&format!("trn_{n}")).expect("valid");
            let ids = |s: &dyn Store, n: &str, k: u32| -> Vec<(String, u64)> {
                s.turn_checkpoints(&sid(n), &t(k))
                    .expect("read")
                    .into_iter()
                    .map(|r| (r.id, r.seq))
                    .collect()
            };
            let own = |n: &str, seqs: &[u64]| -> Vec<(String, u64)> {
                seqs.iter().map(|q| (format!("ckp_{n}{q}"), *q)).collect()
            };
            assert_eq!(
                ids(&s, "p", 1),
                own("p", &[2, 5]),
                "seq 5 lies after turn 2's prompt and is still turn 1's"
            );
            assert_eq!(ids(&s, "p", 2), own("p", &[4, 7]));
            assert_eq!(ids(&s, "c", 1), own("c", &[2, 5]), "the child's own rows");
            assert!(ids(&s, "c", 2).is_empty());
            assert!(ids(&s, "p", 3).is_empty());
            assert!(
                ids(&s, "zz", 1).is_empty(),
                "an unknown session reads as empty"
            );
            let row = s
                .turn_checkpoints(&sid("p"), &t(1))
                .expect("read")
                .remove(1);
            assert_eq!(row.body, "{\"seq\":5,\"turnId\":\"trn_1\"}");
            let mut b = Batch::new();
            b.push(Write::DeleteCheckpoint {
                session: sid("p"),
                checkpoint: CheckpointId::parse("ckp_p5").expect("valid"),
            });
            s.commit(b).expect("delete");
            assert_eq!(
                ids(&s, "p", 1),
                own("p", &[2]),
                "a deleted row leaves the turn"
            );
            assert_eq!(ids(&s, "c", 1), own("c", &[2, 5]));
        }
    };
}
