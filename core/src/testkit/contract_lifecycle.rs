//! The store contract's lifecycle half: deletes, turns, operations and journals. Expanded by
//! [`store_contract!`](crate::store_contract) inside its module, so the tests share its imports.

#[doc(hidden)]
#[macro_export]
macro_rules! __store_contract_lifecycle {
    ($make:expr) => {
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
                turn: None,
            });
            b.push(Write::PutCheckpoint {
                session: sid("a"),
                seq: 3,
                checkpoint: CheckpointId::parse("ckp_a3").expect("valid"),
                body: "{}".into(),
                bytes: 0,
                turn: None,
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
    };
}
