//! What opening a PostgreSQL store costs the server (a real throwaway cluster, see
//! `common/pg.rs`): an open that finds the store already claimed commits nothing, a read-only
//! open writes nothing, and an open holds one connection, not one more for the apply lock.

#[path = "common/pg.rs"]
mod pg;

use rewind_host::native::{Access, Opener};

/// Every row of the tables an open could write, by its row version (`xmin` changes with any
/// update; a new row is a new entry): equal before and after means nothing was written.
fn row_versions(client: &mut postgres::Client) -> Vec<(String, String)> {
    let sql = "SELECT 'store_info:' || key, xmin::text FROM store_info
               UNION ALL SELECT 'meta:' || key, xmin::text FROM meta
               UNION ALL SELECT 'schema_version', xmin::text FROM schema_version
               UNION ALL SELECT 'sessions:' || id, xmin::text FROM sessions
               ORDER BY 1";
    client
        .query(sql, &[])
        .expect("row versions")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// Connections to the database other than `client`'s own.
fn others(client: &mut postgres::Client) -> i64 {
    client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .expect("pg_stat_activity")
        .get(0)
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

    let mut watch = postgres::Client::connect(&conninfo, postgres::NoTls).expect("connect");
    let before = row_versions(&mut watch);
    assert!(
        before.iter().any(|(k, _)| k == "store_info:workspace_id"),
        "{before:?}"
    );
    for access in [Access::Record, Access::Read, Access::Record] {
        let opened = opener.open(access).expect("open again");
        assert!(opened.trust.is_owned(), "{access:?}: {:?}", opened.trust);
        assert_eq!(others(&mut watch), 1, "{access:?}: one connection per open");
        let sessions = rewind_core::ports::Store::sessions(opened.engine.store()).expect("read");
        assert_eq!(sessions.len(), 1);
        drop(opened);
        assert_eq!(row_versions(&mut watch), before, "{access:?} wrote");
    }
}
