//! What opening a PostgreSQL store costs the server (a real throwaway cluster, see
//! `common/pg.rs`): an open that finds the store already claimed commits nothing, a read-only
//! open writes nothing, and recording or reading holds one connection (the apply lock's own
//! connection is made only when the lock is wanted).

use rewind_host::native::{Access, Opener};

/// Every row of the tables an open could write, with its row version (`xmin` changes with any
/// update; a new row is a new entry): equal before and after means nothing was written.
fn row_versions(client: &mut postgres::Client) -> Vec<(String, String)> {
    let sql = "SELECT 'store_info:' || key, xmin::text FROM store_info
               UNION ALL SELECT 'meta:' || key, xmin::text FROM meta
               UNION ALL SELECT 'schema_version', xmin::text FROM schema_version
               UNION ALL SELECT 'sessions:' || id, xmin::text FROM sessions
               UNION ALL SELECT 'commit_ids:' || version, xmin::text FROM commit_ids
               ORDER BY 1";
    client
        .query(sql, &[])
        .expect("row versions")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// Connections to the database other than `client`'s own, once those of stores already
/// dropped are gone (a server process ends a moment after its client hangs up).
fn others(client: &mut postgres::Client, expected: i64) -> i64 {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        let n: i64 = client
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .expect("pg_stat_activity")
            .get(0);
        if n <= expected || std::time::Instant::now() > deadline {
            return n;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn opening_a_claimed_store_again_writes_nothing_and_holds_one_connection() {
    let c = pg_or_skip!();
    let db = c.fresh_db();
    let (url, conninfo) = (c.url(&db), c.conninfo(&db));
    let dir = tempfile::tempdir().expect("tempdir");
    let opener = Opener::new(dir.path(), dir.path().join(".rewind/rewind.db")).on_store(Some(url));
    let mut first = opener.open(Access::Record).expect("first open");
    first
        .engine
        .create_session(rewind_core::record::SessionOptions::default())
        .expect("a session");
    drop(first);
    let id_file = dir.path().join(".rewind/rewind.db.postgres-workspace");
    let id_written = std::fs::metadata(&id_file).expect("id file").modified();

    let mut watch = postgres::Client::connect(&conninfo, postgres::NoTls).expect("connect");
    let before = row_versions(&mut watch);
    assert!(
        before.iter().any(|(k, _)| k == "store_info:workspace_id"),
        "{before:?}"
    );
    for access in [Access::Record, Access::Read, Access::Record] {
        let opened = opener.open(access).expect("open again");
        assert!(opened.trust.is_owned(), "{access:?}: {:?}", opened.trust);
        assert_eq!(
            others(&mut watch, 1),
            1,
            "{access:?}: one connection per open"
        );
        let sessions = rewind_core::ports::Store::sessions(opened.engine.store()).expect("read");
        assert_eq!(sessions.len(), 1);
        drop(opened);
        assert_eq!(row_versions(&mut watch), before, "{access:?} wrote");
    }
    let id_now = std::fs::metadata(&id_file).expect("id file").modified();
    assert_eq!(id_now.ok(), id_written.ok(), "the id file was rewritten");
}

#[test]
fn a_rewriting_open_takes_the_apply_lock_on_a_connection_of_its_own() {
    let c = pg_or_skip!();
    let db = c.fresh_db();
    let (url, conninfo) = (c.url(&db), c.conninfo(&db));
    let dir = tempfile::tempdir().expect("tempdir");
    let opener = Opener::new(dir.path(), dir.path().join(".rewind/rewind.db")).on_store(Some(url));
    drop(opener.open(Access::Record).expect("claim"));
    let mut watch = postgres::Client::connect(&conninfo, postgres::NoTls).expect("connect");
    let rewriting = opener.open(Access::Rewrite).expect("rewrite");
    assert_eq!(others(&mut watch, 2), 2, "the store's and the lock's");
    let held: i64 = watch
        .query_one(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .expect("pg_locks")
        .get(0);
    assert_eq!(held, 1, "the apply lock is held");
    drop(rewriting);
    assert!(
        opener.open(Access::Rewrite).is_ok(),
        "the lock went with the store"
    );
}
