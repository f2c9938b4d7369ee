//! Range reads on stores made before schema v5 (and v8): migrating one fills in what the range
//! reads index (compaction flags, checkpoint bytes, the per-session total, checkpoint turns), and
//! a read-only open of one, which cannot migrate, still answers them by scanning.

use rewind_core::batch::{Batch, Precondition, Write};
use rewind_core::id::{CheckpointId, MessageId, SessionId, TurnId};
use rewind_core::ports::{SeqRange, Store, StoreWrite};
use rewind_host::SqliteStore;
use rusqlite::Connection;
use std::path::Path;
use tempfile::TempDir;

fn sid() -> SessionId {
    SessionId::parse("ses_a").expect("valid")
}

/// A store with a summary at seq 2 (and a message whose compaction is null at 1, a corrupt
/// row at 3), and checkpoints of 40 and 2 bytes, turned back into a version-4 file: the v5 and
/// v6 columns and indexes dropped, `user_version` 4.
fn v4_store(dir: &TempDir) -> std::path::PathBuf {
    let path = dir.path().join("rewind.db");
    let mut s = SqliteStore::open(&path).expect("open");
    let mut b = Batch::new();
    b.require(Precondition::SessionAbsent(sid()));
    b.push(Write::CreateSession {
        session: sid(),
        body: "{}".into(),
    });
    for (seq, body) in [
        (1, "{\"seq\":1,\"compaction\":null}"),
        (
            2,
            "{\"seq\":2,\"compaction\":{\"coversThrough\":\"msg_1\"}}",
        ),
        (3, "not json {"),
    ] {
        b.push(Write::AppendMessage {
            session: sid(),
            seq,
            message: MessageId::parse(&format!("msg_{seq}")).expect("valid"),
            body: body.into(),
            boundary: false, // what a v4 writer knew: nothing
        });
    }
    for (seq, bytes) in [(4u64, 40u64), (5, 2)] {
        b.push(Write::PutCheckpoint {
            session: sid(),
            seq,
            checkpoint: CheckpointId::parse(&format!("ckp_{seq}")).expect("valid"),
            body: format!("{{\"seq\":{seq},\"addedBytes\":{bytes}}}"),
            bytes: 0,
            turn: None,
        });
    }
    s.commit(b).expect("fill");
    drop(s);
    let conn = Connection::open(&path).expect("raw");
    conn.execute_batch(
        "DROP INDEX checkpoints_by_turn;
         ALTER TABLE checkpoints DROP COLUMN turn_id;
         DROP TABLE workspace_snapshots;
         DROP INDEX blobs_by_base;
         ALTER TABLE blobs DROP COLUMN base;
         ALTER TABLE blobs DROP COLUMN depth;
         ALTER TABLE blobs DROP COLUMN step;
         DROP INDEX messages_boundaries;
         ALTER TABLE messages DROP COLUMN boundary;
         ALTER TABLE messages DROP COLUMN ord;
         ALTER TABLE checkpoints DROP COLUMN bytes;
         ALTER TABLE sessions DROP COLUMN bytes;
         PRAGMA user_version = 4;",
    )
    .expect("downgrade to v4");
    path
}

fn version(path: &Path) -> i64 {
    Connection::open(path)
        .expect("raw")
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version")
}

#[test]
fn migrating_a_v4_store_fills_in_what_range_reads_index() {
    let dir = TempDir::new().expect("temp dir");
    let path = v4_store(&dir);
    let s = SqliteStore::open(&path).expect("migrate");
    assert_eq!(version(&path), rewind_host::sqlite::SCHEMA_VERSION);
    let seqs: Vec<u64> = s
        .boundaries(&sid())
        .expect("read")
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(
        seqs,
        [2],
        "a null compaction and a corrupt row are not boundaries"
    );
    assert_eq!(s.session_bytes(&sid()).expect("read"), 42);
    assert_eq!(s.message_count_in(&sid(), SeqRange::ALL).expect("count"), 3);
    assert_eq!(
        s.message_count_in(&sid(), SeqRange::new(2, 4))
            .expect("count"),
        2
    );
    assert_eq!(
        s.message_count_in(&sid(), SeqRange::new(0, 2))
            .expect("count"),
        1
    );
}

#[test]
fn a_read_only_open_of_a_v4_store_answers_range_reads_by_scanning() {
    let dir = TempDir::new().expect("temp dir");
    let path = v4_store(&dir);
    let s = SqliteStore::open_read_only(&path).expect("read-only");
    let seqs: Vec<u64> = s
        .boundaries(&sid())
        .expect("read")
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(seqs, [2]);
    assert_eq!(s.session_bytes(&sid()).expect("read"), 42);
    assert_eq!(
        s.messages_in(&sid(), SeqRange::new(2, 4))
            .expect("read")
            .len(),
        2
    );
    assert_eq!(
        s.message_count_in(&sid(), SeqRange::new(2, 9))
            .expect("count"),
        2
    );
    drop(s);
    assert_eq!(version(&path), 4, "reading never migrates");
}

fn turn(n: u32) -> TurnId {
    TurnId::parse(&format!("trn_{n}")).expect("valid")
}

/// A store whose checkpoints name turns 1 and 2 in their bodies (seq 4 is turn 1's, recorded
/// after turn 2's prompt; seq 5 is not JSON), turned back into a version-7 file: no turn column,
/// no index, `user_version` 7.
fn v7_store(dir: &TempDir) -> std::path::PathBuf {
    let path = dir.path().join("rewind.db");
    let mut s = SqliteStore::open(&path).expect("open");
    let mut b = Batch::new();
    b.push(Write::CreateSession {
        session: sid(),
        body: "{}".into(),
    });
    for (seq, body) in [
        (2u64, "{\"turnId\":\"trn_1\"}"),
        (3, "{\"turnId\":\"trn_2\"}"),
        (4, "{\"turnId\":\"trn_1\"}"),
        (5, "not json {"),
    ] {
        b.push(Write::PutCheckpoint {
            session: sid(),
            seq,
            checkpoint: CheckpointId::parse(&format!("ckp_{seq}")).expect("valid"),
            body: body.into(),
            bytes: 0,
            turn: None,
        });
    }
    s.commit(b).expect("fill");
    drop(s);
    Connection::open(&path)
        .expect("raw")
        .execute_batch(
            "DROP INDEX checkpoints_by_turn;
             ALTER TABLE checkpoints DROP COLUMN turn_id;
             PRAGMA user_version = 7;",
        )
        .expect("downgrade to v7");
    path
}

fn turn_seqs(s: &SqliteStore, n: u32) -> Vec<u64> {
    s.turn_checkpoints(&sid(), &turn(n))
        .expect("read")
        .iter()
        .map(|r| r.seq)
        .collect()
}

#[test]
fn a_read_only_open_of_a_v7_store_finds_a_turns_checkpoints_by_scanning() {
    let dir = TempDir::new().expect("temp dir");
    let path = v7_store(&dir);
    let s = SqliteStore::open_read_only(&path).expect("read-only");
    assert_eq!(turn_seqs(&s, 1), [2, 4]);
    assert_eq!(turn_seqs(&s, 2), [3]);
    drop(s);
    assert_eq!(version(&path), 7, "reading never migrates");
}

#[test]
fn migrating_a_v7_store_indexes_each_checkpoints_turn_from_its_body() {
    let dir = TempDir::new().expect("temp dir");
    let path = v7_store(&dir);
    let mut s = SqliteStore::open(&path).expect("migrate");
    assert_eq!(version(&path), rewind_host::sqlite::SCHEMA_VERSION);
    assert_eq!(turn_seqs(&s, 1), [2, 4]);
    assert_eq!(turn_seqs(&s, 2), [3]);
    let raw = Connection::open(&path).expect("raw");
    let unnamed: i64 = raw
        .query_row(
            "SELECT count(*) FROM checkpoints WHERE turn_id IS NULL",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(unnamed, 1, "the body that is not JSON names no turn");
    let plan: String = raw
        .query_row(
            "EXPLAIN QUERY PLAN SELECT id FROM checkpoints
             WHERE session_id = 'ses_a' AND turn_id = 'trn_1' ORDER BY seq",
            [],
            |r| r.get(3),
        )
        .expect("plan");
    assert!(plan.contains("checkpoints_by_turn"), "{plan}");
    // A new checkpoint carries its turn into the column.
    let mut b = Batch::new();
    b.push(Write::PutCheckpoint {
        session: sid(),
        seq: 6,
        checkpoint: CheckpointId::parse("ckp_6").expect("valid"),
        body: "{}".into(),
        bytes: 0,
        turn: Some(turn(2)),
    });
    s.commit(b).expect("commit");
    assert_eq!(turn_seqs(&s, 2), [3, 6]);
}
