//! The SQLite store: the shared store contract (in memory and on disk), plus what only a real
//! file shows: reopening, schema versions, two writers at once, atomicity and raw damage.

use rewind_core::batch::{Batch, Precondition, Write};
use rewind_core::hash::ContentHash;
use rewind_core::id::{
    CheckpointId, CommandId, JournalId, MessageId, OperationId, SessionId, TurnId,
};
use rewind_core::ports::{BlobInfo, Row, Store, StoreWrite};
use rewind_core::testkit::batches::{create, msg, sid};
use rewind_core::{HostError, HostErrorKind};
use rewind_host::SqliteStore;
use rewind_host::sqlite::SCHEMA_VERSION;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::Duration;
use tempfile::TempDir;

/// A store on a file in a temporary directory that lives exactly as long as the store.
struct OnDisk {
    // Declared first so the connection closes before the directory is removed.
    store: SqliteStore,
    _dir: TempDir,
}

impl OnDisk {
    fn new() -> Self {
        let dir = TempDir::new().expect("temp dir");
        let store = SqliteStore::open(&dir.path().join("rewind.db")).expect("open");
        Self { store, _dir: dir }
    }
}

impl Store for OnDisk {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.store.session(id)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.store.sessions()
    }
    fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.store.messages(s)
    }
    fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> {
        self.store.turn(s, t)
    }
    fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.store.turns(s)
    }
    fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.store.checkpoints(s)
    }
    fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.store.operations(s)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.store.journals()
    }
    fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        self.store.blob(h)
    }
    fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> {
        self.store.last_seq(s)
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        self.store.command_fact(p, c)
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        self.store.blobs()
    }
    fn version(&self) -> Result<u64, HostError> {
        self.store.version()
    }
    fn workspace_snapshot(&self, s: &SessionId) -> Result<Option<Row>, HostError> {
        self.store.workspace_snapshot(s)
    }
}

impl StoreWrite for OnDisk {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        self.store.commit(batch)
    }
}

rewind_core::store_contract!(in_memory, SqliteStore::open_in_memory().expect("open"));
rewind_core::store_contract!(on_disk, OnDisk::new());

fn blob(bytes: &[u8]) -> Write {
    Write::PutBlob {
        hash: ContentHash::of(bytes),
        bytes: bytes.to_vec(),
        base: None,
    }
}

fn db_path(dir: &TempDir) -> PathBuf {
    dir.path().join("rewind.db")
}

fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("raw open")
}

fn user_version(path: &Path) -> i64 {
    raw(path)
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("user_version")
}

fn commit_err(store: &mut SqliteStore, batch: Batch) -> HostError {
    store.commit(batch).expect_err("commit must fail")
}

#[test]
fn reopening_keeps_everything_and_does_not_migrate_again() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    let bytes = vec![0u8, 1, 2, 0xff];
    {
        let mut s = SqliteStore::open(&path).expect("open");
        s.commit(create("a")).expect("create");
        let mut b = Batch::new();
        b.push(msg("a", 1)).push(blob(&bytes));
        s.commit(b).expect("commit");
    }
    assert_eq!(user_version(&path), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 8);
    let journal: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("journal_mode");
    assert_eq!(journal, "wal");

    let s = SqliteStore::open(&path).expect("reopen");
    assert_eq!(s.location(), path.display().to_string());
    assert_eq!(s.sessions().expect("read").len(), 1);
    assert_eq!(s.messages(&sid("a")).expect("read")[0].body, "{\"seq\":1}");
    assert_eq!(s.blob(&ContentHash::of(&bytes)).expect("read"), Some(bytes));
    assert_eq!(s.last_seq(&sid("a")).expect("read"), 1);
    assert_eq!(user_version(&path), SCHEMA_VERSION);
}

#[test]
fn reopening_an_up_to_date_file_needs_no_write_lock() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    drop(SqliteStore::open(&path).expect("open"));
    // Another writer holds the lock: a reopen that tried to migrate again would wait for it
    // (up to the 10 s busy timeout) and then fail.
    let mut other = raw(&path);
    let tx = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .expect("lock");
    let started = std::time::Instant::now();
    let s = SqliteStore::open(&path).expect("reopen beside a writer");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(s.sessions().expect("read while locked").is_empty());
    tx.rollback().expect("release");
}

#[test]
fn a_newer_schema_is_refused_with_a_clear_message() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    drop(SqliteStore::open(&path).expect("open"));
    raw(&path)
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .expect("bump version");
    let err = SqliteStore::open(&path).expect_err("must refuse");
    let text = err.to_string();
    let want = format!(
        "database schema version {} is newer than this rewind understands ({SCHEMA_VERSION})",
        SCHEMA_VERSION + 1
    );
    assert!(text.contains(&want), "{text}");
    assert!(text.contains(&path.display().to_string()), "{text}");
}

#[test]
fn open_errors_name_the_path() {
    let dir = TempDir::new().expect("temp dir");
    let path = dir.path().join("no-such-dir").join("rewind.db");
    let err = SqliteStore::open(&path).expect_err("missing directory");
    assert_eq!(err.kind(), HostErrorKind::Io);
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("cannot open database {}: ", path.display())),
        "{text}"
    );

    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).expect("write junk");
    let err = SqliteStore::open(&junk).expect_err("not a database");
    assert_eq!(err.kind(), HostErrorKind::Corrupt, "{err}");
}

#[test]
fn several_stores_opening_a_fresh_file_at_once_all_succeed() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    let gate = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (path, gate) = (path.clone(), Arc::clone(&gate));
            std::thread::spawn(move || {
                gate.wait();
                SqliteStore::open(&path).map(drop)
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread").expect("open");
    }
    assert_eq!(user_version(&path), SCHEMA_VERSION);
}

#[test]
fn two_writers_on_one_file_lose_nothing() {
    const BATCHES: u64 = 200;
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    let gate = Arc::new(Barrier::new(2));
    let handles: Vec<_> = ["x", "y"]
        .into_iter()
        .map(|name| {
            let (path, gate) = (path.clone(), Arc::clone(&gate));
            std::thread::spawn(move || {
                let mut s = SqliteStore::open(&path).expect("open");
                s.commit(create(name)).expect("create");
                gate.wait();
                for seq in 1..=BATCHES {
                    let mut b = Batch::new();
                    b.require(Precondition::LastSeq(sid(name), seq - 1));
                    b.push(msg(name, seq));
                    b.push(blob(format!("{name}{seq}").as_bytes()));
                    // Both writers store this one: the second copy must be a no-op, not a clash.
                    b.push(blob(format!("shared{seq}").as_bytes()));
                    s.commit(b).expect("every commit succeeds");
                    // Reads interleave with the other writer's commits.
                    assert_eq!(s.last_seq(&sid(name)).expect("read"), seq);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("writer thread");
    }
    let s = SqliteStore::open(&path).expect("reopen");
    let mut total = 0;
    for name in ["x", "y"] {
        let seqs: Vec<u64> = s
            .messages(&sid(name))
            .expect("read")
            .iter()
            .map(|r| r.seq)
            .collect();
        assert_eq!(seqs, (1..=BATCHES).collect::<Vec<_>>());
        total += seqs.len();
        for seq in 1..=BATCHES {
            let own = format!("{name}{seq}");
            assert!(
                s.blob(&ContentHash::of(own.as_bytes()))
                    .expect("read")
                    .is_some()
            );
        }
    }
    assert_eq!(total, 400);
}

#[test]
fn a_commit_waits_for_a_writer_that_holds_the_lock() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    let mut s = SqliteStore::open(&path).expect("open");
    s.commit(create("a")).expect("create");
    let mut other = raw(&path);
    let gate = Arc::new(Barrier::new(2));
    let holder = {
        let gate = Arc::clone(&gate);
        std::thread::spawn(move || {
            let tx = other
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .expect("lock");
            gate.wait();
            std::thread::sleep(Duration::from_millis(300));
            tx.commit().expect("release");
        })
    };
    gate.wait();
    let mut b = Batch::new();
    b.push(msg("a", 1));
    s.commit(b).expect("waits for the lock, then commits");
    holder.join().expect("holder thread");
    assert_eq!(s.messages(&sid("a")).expect("read").len(), 1);
}

#[test]
fn a_late_constraint_failure_leaves_nothing_on_disk() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    let mut s = SqliteStore::open(&path).expect("open");
    s.commit(create("a")).expect("create");
    let mut first = Batch::new();
    first.push(msg("a", 1));
    s.commit(first).expect("commit");

    let mut b = create("b");
    b.push(msg("b", 1))
        .push(blob(b"late"))
        .push(Write::PutOperation {
            session: sid("b"),
            operation: OperationId::parse("op_1").expect("valid"),
            body: "{}".into(),
        })
        .push(Write::PutJournal {
            journal: JournalId::parse("jnl_1").expect("valid"),
            session: sid("b"),
            body: "{}".into(),
        })
        .push(Write::PutCheckpoint {
            session: sid("a"),
            seq: 1,
            checkpoint: CheckpointId::parse("ckp_1").expect("valid"),
            body: "{}".into(),
            bytes: 0,
            turn: None,
        });
    let err = commit_err(&mut s, b);
    assert_eq!(err.kind(), HostErrorKind::PreconditionFailed);
    assert_eq!(err.to_string(), "seq 1 of session ses_a is taken");
    drop(s);

    let s = SqliteStore::open(&path).expect("reopen");
    assert!(s.session(&sid("b")).expect("read").is_none());
    assert!(s.messages(&sid("b")).expect("read").is_empty());
    assert!(s.operations(&sid("b")).expect("read").is_empty());
    assert!(s.journals().expect("read").is_empty());
    assert!(s.blob(&ContentHash::of(b"late")).expect("read").is_none());
    assert!(s.checkpoints(&sid("a")).expect("read").is_empty());
    assert_eq!(s.last_seq(&sid("a")).expect("read"), 1);
}

#[test]
fn constraint_violations_are_failed_preconditions_with_readable_messages() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    s.commit(create("a")).expect("create");
    let mut b = Batch::new();
    b.push(msg("a", 1));
    s.commit(b).expect("commit");

    let cases: Vec<(Write, &str)> = vec![
        (msg("zz", 1), "session ses_zz does not exist"),
        (
            Write::CreateSession {
                session: sid("a"),
                body: "{}".into(),
            },
            "session ses_a already exists",
        ),
        (
            Write::AppendMessage {
                session: sid("a"),
                seq: 2,
                message: MessageId::parse("msg_a1").expect("valid"),
                body: "{}".into(),
                boundary: false,
            },
            "msg_a1 already exists in session ses_a",
        ),
        (
            Write::PutCheckpoint {
                session: sid("a"),
                seq: 1,
                checkpoint: CheckpointId::parse("ckp_1").expect("valid"),
                body: "{}".into(),
                bytes: 0,
                turn: None,
            },
            "seq 1 of session ses_a is taken",
        ),
        (
            Write::UpdateSession {
                session: sid("zz"),
                generation: 1,
                body: "{}".into(),
            },
            "session ses_zz does not exist",
        ),
        (
            Write::PutTurn {
                session: sid("zz"),
                turn: TurnId::parse("trn_1").expect("valid"),
                seq: 1,
                body: "{}".into(),
            },
            "session ses_zz does not exist",
        ),
        (
            Write::PutBlob {
                hash: ContentHash::of(b"one"),
                bytes: b"two".to_vec(),
                base: None,
            },
            "blob bytes do not hash to",
        ),
    ];
    for (write, want) in cases {
        let mut b = Batch::new();
        b.push(write);
        let err = commit_err(&mut s, b);
        assert_eq!(err.kind(), HostErrorKind::PreconditionFailed, "{err}");
        assert!(err.to_string().starts_with(want), "{err} != {want}");
    }

    // A message at a checkpoint's seq is caught by the trigger, not only by the primary key.
    let mut b = Batch::new();
    b.push(Write::PutCheckpoint {
        session: sid("a"),
        seq: 2,
        checkpoint: CheckpointId::parse("ckp_2").expect("valid"),
        body: "{}".into(),
        bytes: 0,
        turn: None,
    });
    s.commit(b).expect("commit");
    let mut b = Batch::new();
    b.push(msg("a", 2));
    assert_eq!(
        commit_err(&mut s, b).to_string(),
        "seq 2 of session ses_a is taken"
    );
    assert_eq!(s.last_seq(&sid("a")).expect("read"), 2);
    assert_eq!(s.last_seq(&sid("zz")).expect("read"), 0);
}

#[test]
fn empty_blobs_and_turn_order_round_trip() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    s.commit(create("a")).expect("create");
    let mut b = Batch::new();
    b.push(blob(b""));
    for (id, seq) in [("trn_c", 5), ("trn_a", 9), ("trn_b", 5)] {
        b.push(Write::PutTurn {
            session: sid("a"),
            turn: TurnId::parse(id).expect("valid"),
            seq,
            body: "{}".into(),
        });
    }
    s.commit(b).expect("commit");
    assert_eq!(
        s.blob(&ContentHash::of(b"")).expect("read"),
        Some(Vec::new())
    );
    let turns: Vec<(String, u64)> = s
        .turns(&sid("a"))
        .expect("read")
        .into_iter()
        .map(|r| (r.id, r.seq))
        .collect();
    assert_eq!(
        turns,
        [
            ("trn_b".to_owned(), 5),
            ("trn_c".to_owned(), 5),
            ("trn_a".to_owned(), 9)
        ]
    );
}

#[test]
fn a_body_overwritten_with_invalid_json_still_comes_back() {
    let dir = TempDir::new().expect("temp dir");
    let path = db_path(&dir);
    let mut s = SqliteStore::open(&path).expect("open");
    s.commit(create("a")).expect("create");
    let mut b = Batch::new();
    b.push(msg("a", 1)).push(msg("a", 2));
    s.commit(b).expect("commit");

    let changed = raw(&path)
        .execute(
            "UPDATE messages SET body = ?3 WHERE session_id = ?1 AND seq = ?2",
            rusqlite::params!["ses_a", 1, "{not json"],
        )
        .expect("corrupt");
    assert_eq!(changed, 1);

    let rows = s
        .messages(&sid("a"))
        .expect("the store never parses bodies");
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0],
        Row {
            id: "msg_a1".into(),
            seq: 1,
            body: "{not json".into()
        }
    );
    assert_eq!(rows[1].body, "{\"seq\":2}");
}
