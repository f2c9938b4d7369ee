//! The PostgreSQL store against a real server (a throwaway cluster, see `common/pg.rs`): the
//! store contract every store passes, migrations raced by several openers, batches raced by
//! separate connections (exactly one winner per precondition, no lost appends), and the apply
//! lock, which a dying connection gives back.

#[path = "common/pg.rs"]
mod pg;

use rewind_core::HostErrorKind;
use rewind_core::batch::{Batch, Precondition, Write};
use rewind_core::id::{JournalId, MessageId, SessionId};
use rewind_core::ports::{Store, StoreWrite};
use rewind_host::PgStore;
use std::sync::{Arc, Barrier};
use std::time::Duration;

rewind_core::store_contract!(postgres_store, pg::fresh_store());

fn sid() -> SessionId {
    SessionId::parse("ses_race").expect("valid")
}

fn create(store: &mut PgStore) {
    let mut b = Batch::new();
    b.require(Precondition::SessionAbsent(sid()));
    b.push(Write::CreateSession {
        session: sid(),
        body: "{}".into(),
    });
    store.commit(b).expect("create");
}

fn append(seq: u64, tag: &str) -> Batch {
    let mut b = Batch::new();
    b.require(Precondition::LastSeq(sid(), seq - 1));
    b.push(Write::AppendMessage {
        session: sid(),
        seq,
        message: MessageId::parse(&format!("msg_{tag}_{seq}")).expect("valid"),
        body: format!("{{\"by\":\"{tag}\"}}"),
        boundary: false,
    });
    b
}

/// Run `each(i, store)` on `n` threads at once, each with its own store (connection) on `db`.
fn race<T: Send + 'static>(
    conninfo: &str,
    n: usize,
    each: impl Fn(usize, &mut PgStore) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let each = Arc::new(each);
    let gate = Arc::new(Barrier::new(n));
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let (each, gate, conninfo) = (each.clone(), gate.clone(), conninfo.to_owned());
            std::thread::spawn(move || {
                let mut store = PgStore::open(&conninfo).expect("open");
                gate.wait();
                each(i, &mut store)
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().expect("thread"))
        .collect()
}

#[test]
fn servers_opening_a_fresh_database_at_once_migrate_it_once() {
    let c = pg_or_skip!();
    let db = c.conninfo(&c.fresh_db());
    let versions = race(&db, 6, |_, s| s.version().expect("version"));
    assert_eq!(versions, vec![0; 6]);
    let mut client = postgres::Client::connect(&db, postgres::NoTls).expect("connect");
    let rows = client
        .query("SELECT version FROM schema_version", &[])
        .expect("schema_version");
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].get::<_, i32>(0),
        rewind_host::postgres::SCHEMA_VERSION
    );
}

#[test]
fn connections_racing_one_precondition_have_exactly_one_winner() {
    let c = pg_or_skip!();
    let db = c.conninfo(&c.fresh_db());
    create(&mut PgStore::open(&db).expect("open"));
    for round in 0..15u64 {
        // Generation: a compare-and-swap of the session's branch.
        let results = race(&db, 4, move |i, s| {
            let mut b = Batch::new();
            b.require(Precondition::Generation(sid(), round));
            b.push(Write::UpdateSession {
                session: sid(),
                generation: round + 1,
                body: format!("{{\"winner\":{i}}}"),
            });
            s.commit(b).map_err(|e| e.kind())
        });
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "round {round}: {results:?}");
        assert!(
            results
                .iter()
                .all(|r| r.is_ok() || *r == Err(HostErrorKind::PreconditionFailed)),
            "{results:?}"
        );
    }
    // LastSeq: the same next seq, claimed by every connection at once.
    for seq in 1..=10u64 {
        let results = race(&db, 4, move |i, s| {
            s.commit(append(seq, &format!("t{i}")))
                .map_err(|e| e.kind())
        });
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
    }
    let store = PgStore::open(&db).expect("open");
    assert_eq!(store.last_seq(&sid()).expect("last seq"), 10);
    assert_eq!(store.messages(&sid()).expect("messages").len(), 10);
    // 15 generation rounds + 10 append rounds + the create: losers committed nothing.
    assert_eq!(store.version().expect("version"), 26);
}

#[test]
fn concurrent_appenders_lose_no_write() {
    let c = pg_or_skip!();
    let db = c.conninfo(&c.fresh_db());
    create(&mut PgStore::open(&db).expect("open"));
    const EACH: usize = 40;
    let tries = race(&db, 4, |i, s| {
        let mut tries = 0;
        for n in 0..EACH {
            // Read the tail, claim the next seq, retry when someone else got there first.
            loop {
                tries += 1;
                let next = s.last_seq(&sid()).expect("last seq") + 1;
                match s.commit(append(next, &format!("t{i}n{n}"))) {
                    Ok(()) => break,
                    Err(e) if e.kind() == HostErrorKind::PreconditionFailed => continue,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        tries
    });
    let store = PgStore::open(&db).expect("open");
    let seqs: Vec<u64> = store
        .messages(&sid())
        .expect("messages")
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(seqs, (1..=(4 * EACH) as u64).collect::<Vec<_>>());
    assert_eq!(
        store
            .message_count_in(&sid(), rewind_core::ports::SeqRange::ALL)
            .expect("count"),
        (4 * EACH) as u64
    );
    assert!(tries.iter().sum::<usize>() >= 4 * EACH);
}

#[test]
fn the_apply_lock_excludes_a_second_rewriter_until_its_connection_ends() {
    let c = pg_or_skip!();
    let db = c.conninfo(&c.fresh_db());
    let mut first = PgStore::open(&db).expect("open");
    let mut second = PgStore::open(&db).expect("open");
    first
        .hold_apply_lock(Duration::from_secs(1))
        .expect("first takes it");
    let busy = second
        .hold_apply_lock(Duration::from_millis(200))
        .expect_err("held by the first");
    assert_eq!(busy.kind(), HostErrorKind::Busy, "{busy}");
    assert!(!second.begin_settling().expect("ask"), "the owner is alive");
    second.end_settling();
    first.release_apply_lock();
    second
        .hold_apply_lock(Duration::from_secs(1))
        .expect("free again");
    second.release_apply_lock();

    // A journal keeps the lock held until it is cleared; a dead owner frees it.
    create(&mut first);
    let mut b = Batch::new();
    b.push(Write::PutJournal {
        journal: JournalId::parse("jnl_1").expect("valid"),
        session: sid(),
        body: "{}".into(),
    });
    first.commit(b).expect("journal");
    assert!(!second.begin_settling().expect("ask"), "its owner is alive");
    second.end_settling();
    drop(first);
    // The server notices the closed connection at once (a unix socket), but give it a moment.
    let freed = (0..50).any(|_| {
        let got = second.begin_settling().expect("ask");
        second.end_settling();
        got || {
            std::thread::sleep(Duration::from_millis(20));
            false
        }
    });
    assert!(freed, "a dead owner's lock is free");
    assert_eq!(second.journals().expect("journals").len(), 1);
}

#[test]
fn a_read_only_open_of_an_empty_database_reads_nothing_and_creates_nothing() {
    let c = pg_or_skip!();
    let db = c.conninfo(&c.fresh_db());
    assert!(PgStore::open_read_only(&db).expect("open").is_none());
    let mut store = PgStore::open(&db).expect("open");
    create(&mut store);
    let reader = PgStore::open_read_only(&db)
        .expect("open")
        .expect("a schema");
    assert_eq!(reader.sessions().expect("sessions").len(), 1);
}

#[test]
fn a_version_1_database_gains_the_commit_ids_and_keeps_them_few() {
    let c = pg::cluster().expect("cluster");
    let db = c.fresh_db();
    let url = c.conninfo(&db);
    let mut store = PgStore::open(&url).expect("open");
    create(&mut store);
    drop(store);
    // Back to what a version 1 rewind left: no commit_ids table (nor the version 3 turn index).
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    admin
        .batch_execute(
            "DROP INDEX checkpoints_by_turn; ALTER TABLE checkpoints DROP COLUMN turn_id;
             DROP TABLE commit_ids; UPDATE schema_version SET version = 1",
        )
        .expect("downgrade");
    let mut store = PgStore::open(&url).expect("migrates");
    for seq in 1..=3 {
        store.commit(append(seq, "m")).expect("append");
    }
    let (version, ids): (i32, i64) = admin
        .query_one(
            "SELECT (SELECT version FROM schema_version), (SELECT count(*) FROM commit_ids)",
            &[],
        )
        .map(|r| (r.get(0), r.get(1)))
        .expect("read");
    assert_eq!(version, rewind_host::postgres::SCHEMA_VERSION);
    assert_eq!(ids, 3, "every commit since the migration is filed");
    // Pruning: each commit drops the ids 10000 numbers behind it.
    admin
        .batch_execute("UPDATE meta SET value = value + 20000 WHERE key = 'version'")
        .expect("jump the counter");
    store.commit(append(4, "m")).expect("append");
    let left: i64 = admin
        .query_one("SELECT count(*) FROM commit_ids", &[])
        .map(|r| r.get(0))
        .expect("count");
    assert_eq!(left, 1, "the old ids were pruned");
}

/// A database from before the turn index (version 2): a read-only open finds a turn's
/// checkpoints by scanning, and migrating fills the turn column from each body (a body that is
/// not JSON names no turn and fails nothing).
#[test]
fn a_version_2_database_finds_a_turns_checkpoints_before_and_after_migrating() {
    use rewind_core::id::{CheckpointId, TurnId};
    let c = pg_or_skip!();
    let url = c.conninfo(&c.fresh_db());
    let mut store = PgStore::open(&url).expect("open");
    create(&mut store);
    let mut b = Batch::new();
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
    store.commit(b).expect("fill");
    drop(store);
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    admin
        .batch_execute(
            "DROP INDEX checkpoints_by_turn; ALTER TABLE checkpoints DROP COLUMN turn_id;
             UPDATE schema_version SET version = 2",
        )
        .expect("downgrade");
    let turn = |n: u32| TurnId::parse(&format!("trn_{n}")).expect("valid");
    let seqs = |s: &PgStore, n: u32| -> Vec<u64> {
        let rows = s.turn_checkpoints(&sid(), &turn(n)).expect("read");
        rows.iter().map(|r| r.seq).collect()
    };
    let reader = PgStore::open_read_only(&url)
        .expect("open")
        .expect("schema");
    assert_eq!((seqs(&reader, 1), seqs(&reader, 2)), (vec![2, 4], vec![3]));
    drop(reader);
    let store = PgStore::open(&url).expect("migrates");
    assert_eq!((seqs(&store, 1), seqs(&store, 2)), (vec![2, 4], vec![3]));
    let (version, unnamed): (i32, i64) = admin
        .query_one(
            "SELECT (SELECT version FROM schema_version),
                    (SELECT count(*) FROM checkpoints WHERE turn_id IS NULL)",
            &[],
        )
        .map(|r| (r.get(0), r.get(1)))
        .expect("read");
    assert_eq!(version, rewind_host::postgres::SCHEMA_VERSION);
    assert_eq!(unnamed, 1, "the body that is not JSON names no turn");
}
