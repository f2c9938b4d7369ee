//! The SQLite store's WAL across processes' lives: the last connection to close leaves the WAL
//! (no checkpoint, no fsyncs on the way out), every commit in it still reads, and a read-only
//! open beside such a WAL, or beside a live writer, writes no file at all.

use rewind_core::batch::{Batch, Precondition, Write};
use rewind_core::id::{MessageId, SessionId};
use rewind_core::ports::{Store, StoreWrite};
use rewind_host::SqliteStore;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

fn sid() -> SessionId {
    SessionId::parse("ses_wal").expect("valid")
}

fn create(store: &mut SqliteStore) {
    let mut b = Batch::new();
    b.require(Precondition::SessionAbsent(sid()));
    b.push(Write::CreateSession {
        session: sid(),
        body: "{}".into(),
    });
    store.commit(b).expect("create");
}

fn append(store: &mut SqliteStore, seq: u64) {
    let mut b = Batch::new();
    b.require(Precondition::LastSeq(sid(), seq - 1));
    b.push(Write::AppendMessage {
        session: sid(),
        seq,
        message: MessageId::parse(&format!("msg_{seq}")).expect("valid"),
        body: "{}".into(),
        boundary: false,
    });
    store.commit(b).expect("append");
}

/// Every file in `dir` with its size and mtime.
fn files(dir: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| {
            let e = e.expect("entry");
            let m = e.metadata().expect("meta");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, (m.len(), m.modified().expect("mtime")))
        })
        .collect()
}

#[test]
fn the_last_writer_leaves_its_wal_and_a_reader_beside_it_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("rewind.db");
    let mut w = SqliteStore::open(&db).expect("open");
    create(&mut w);
    append(&mut w, 1);
    drop(w);
    let left = files(dir.path());
    let wal = left.get("rewind.db-wal").expect("the WAL stays");
    assert!(wal.0 > 0, "its commits are in it: {left:?}");
    assert!(left.contains_key("rewind.db-shm"), "{left:?}");

    // No other connection: the reader reads the WAL without rebuilding the -shm.
    let r = SqliteStore::open_read_only(&db).expect("read-only");
    assert_eq!(r.last_seq(&sid()).expect("read"), 1);
    drop(r);
    assert_eq!(files(dir.path()), left, "reading wrote a file");

    // Beside a live writer: the reader sees each commit, and still writes nothing itself.
    let mut w = SqliteStore::open(&db).expect("reopen");
    assert_eq!(w.last_seq(&sid()).expect("read"), 1, "the WAL recovered");
    let r = SqliteStore::open_read_only(&db).expect("read-only");
    append(&mut w, 2);
    assert_eq!(r.last_seq(&sid()).expect("read"), 2);
    let during = files(dir.path());
    drop(r);
    assert_eq!(files(dir.path()), during, "the reader's close wrote a file");
}

#[test]
fn a_wal_that_grows_is_checkpointed_by_a_commit_not_by_an_exit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("rewind.db");
    let mut w = SqliteStore::open(&db).expect("open");
    create(&mut w);
    // About 2,000 pages of commits: past the 1,000-page autocheckpoint, so a commit moved
    // them into the file and the WAL started again from its beginning.
    let big = "x".repeat(8000);
    for seq in 1..=250 {
        let mut b = Batch::new();
        b.require(Precondition::LastSeq(sid(), seq - 1));
        b.push(Write::AppendMessage {
            session: sid(),
            seq,
            message: MessageId::parse(&format!("msg_{seq}")).expect("valid"),
            body: format!("{{\"t\":\"{big}\"}}"),
            boundary: false,
        });
        w.commit(b).expect("append");
    }
    drop(w);
    let wal = std::fs::metadata(dir.path().join("rewind.db-wal")).expect("wal");
    // journal_size_limit (4 MiB) bounds what the WAL keeps on disk once checkpointed.
    assert!(wal.len() <= 8 << 20, "the WAL grew to {} bytes", wal.len());
    let db_len = std::fs::metadata(&db).expect("db").len();
    assert!(
        db_len > 1 << 20,
        "checkpointed into the file: {db_len} bytes"
    );
    let r = SqliteStore::open_read_only(&db).expect("read-only");
    assert_eq!(r.last_seq(&sid()).expect("read"), 250);
}
