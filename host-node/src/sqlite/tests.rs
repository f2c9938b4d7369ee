//! The store's blob rows as SQLite holds them: delta chains, their bounds and damage, the write
//! path's shortcut for known content, schema V6 over older files, and commit durability.

use super::{SqliteStore, schema};
use crate::store::blobs::{DELTA, GROUP, MAX_DEPTH};
use rewind_core::HostErrorKind;
use rewind_core::batch::{Batch, Write};
use rewind_core::hash::ContentHash;
use rewind_core::id::{JournalId, SessionId};
use rewind_core::ports::{Store, StoreWrite};
use std::path::Path;

/// Version `i` of a ~20 KB source-like text: version 0 plus `i` small edits at spread offsets.
fn version(i: usize) -> Vec<u8> {
    let mut text: Vec<u8> = (0..600)
        .map(|n| {
            format!(
                "    let field_{n} = compute({n}, \"{}\");\n",
                n * 7919 % 1000
            )
        })
        .collect::<String>()
        .into_bytes();
    for e in 1..=i {
        let at = (e * 997) % (text.len() - 12);
        text[at..at + 12].copy_from_slice(format!("/*edit{e:04}*/").as_bytes());
    }
    text
}

fn put(store: &mut SqliteStore, bytes: &[u8], base: Option<&[u8]>) {
    let mut b = Batch::new();
    b.push(Write::PutBlob {
        hash: ContentHash::of(bytes),
        bytes: bytes.to_vec(),
        base: base.map(ContentHash::of),
    });
    store.commit(b).expect("commit");
}

/// (codec, stored length, depth, step, base) of a row.
fn row(store: &SqliteStore, bytes: &[u8]) -> (String, i64, i64, i64, Option<String>) {
    store
        .conn
        .query_row(
            "SELECT codec, length(bytes), depth, step, base FROM blobs WHERE hash = ?1",
            [ContentHash::of(bytes).as_str()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .expect("row")
}

/// `n` versions, each written with the one before as its base hint.
fn chain_of(store: &mut SqliteStore, n: usize) {
    for i in 0..n {
        let before = (i > 0).then(|| version(i - 1));
        put(store, &version(i), before.as_deref());
    }
}

#[test]
fn many_versions_read_back_exactly_with_bounded_chains_and_tiny_deltas() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    let n = GROUP as usize + 44;
    chain_of(&mut s, n);
    let mut whole = 0;
    let mut delta_bytes = 0;
    for i in 0..n {
        let v = version(i);
        assert_eq!(
            s.blob(&ContentHash::of(&v)).expect("read"),
            Some(v.clone()),
            "v{i}"
        );
        let (codec, stored, depth, step, base) = row(&s, &v);
        assert!(depth <= MAX_DEPTH, "v{i} at depth {depth}");
        assert_eq!(depth, i64::from((step as u32).count_ones()), "v{i}");
        match base {
            None => whole += 1,
            Some(_) => {
                assert_eq!(codec, DELTA);
                delta_bytes += stored;
            }
        }
    }
    // A whole copy opens each group of versions, nothing else is whole.
    assert_eq!(whole, n.div_ceil(GROUP as usize));
    let per_delta = delta_bytes / (n - whole) as i64;
    assert!(per_delta < 300, "{per_delta} bytes per delta");
    // The oldest version is untouched by everything written after it.
    assert_eq!(row(&s, &version(0)).0, "zstd");
}

#[test]
fn damage_anywhere_in_a_chain_reads_as_corrupt() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    chain_of(&mut s, 4);
    let (v0, v3) = (version(0), version(3));
    let (_, _, depth, ..) = row(&s, &v3);
    assert_eq!(depth, 2, "v3 = step 3 is stored against v2 against v0");
    let damage = |s: &SqliteStore, sql: &str, of: &[u8]| {
        s.conn
            .execute(sql, [ContentHash::of(of).as_str()])
            .expect("damage");
    };
    // A flipped byte in the whole copy at the root: the delta's checksum catches it.
    damage(
        &s,
        "UPDATE blobs SET bytes = CAST(zeroblob(length(bytes)) AS BLOB) WHERE hash = ?1",
        &v0,
    );
    let err = s.blob(&ContentHash::of(&v3)).expect_err("corrupt base");
    assert_eq!(err.kind(), HostErrorKind::Corrupt, "{err}");

    let mut s = SqliteStore::open_in_memory().expect("open");
    chain_of(&mut s, 4);
    damage(
        &s,
        "UPDATE blobs SET bytes = substr(bytes, 1, length(bytes) - 3) WHERE hash = ?1",
        &v3,
    );
    let err = s.blob(&ContentHash::of(&v3)).expect_err("corrupt delta");
    assert_eq!(err.kind(), HostErrorKind::Corrupt, "{err}");

    let mut s = SqliteStore::open_in_memory().expect("open");
    chain_of(&mut s, 4);
    damage(&s, "DELETE FROM blobs WHERE hash = ?1", &version(2));
    let err = s.blob(&ContentHash::of(&v3)).expect_err("missing base");
    assert_eq!(err.kind(), HostErrorKind::Corrupt, "{err}");
    assert!(err.to_string().contains("missing"), "{err}");

    // A row that claims a base but is not a delta.
    let mut s = SqliteStore::open_in_memory().expect("open");
    chain_of(&mut s, 2);
    damage(
        &s,
        "UPDATE blobs SET codec = 'raw' WHERE hash = ?1",
        &version(1),
    );
    let err = s.blob(&ContentHash::of(&version(1))).expect_err("codec");
    assert_eq!(err.kind(), HostErrorKind::Corrupt, "{err}");
}

#[test]
fn known_content_is_one_lookup_and_changes_nothing() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    let v = version(0);
    put(&mut s, &v, None);
    let before = row(&s, &v);
    let version_before = s.version().expect("version");
    // Bytes that do not match the key: refused for new content, but a known hash is not even
    // hashed again, so the same write of known content costs only the lookup.
    let mut b = Batch::new();
    b.push(Write::PutBlob {
        hash: ContentHash::of(&v),
        bytes: b"not the content".to_vec(),
        base: Some(ContentHash::of(b"x")),
    });
    s.commit(b).expect("known content");
    assert_eq!(row(&s, &v), before);
    assert_eq!(s.version().expect("version"), version_before + 1);
    assert_eq!(s.blob(&ContentHash::of(&v)).expect("read"), Some(v));
}

#[test]
fn a_base_with_a_stored_dependent_cannot_be_deleted() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    chain_of(&mut s, 2);
    let delete = |s: &mut SqliteStore, bytes: &[u8]| {
        let mut b = Batch::new();
        b.push(Write::DeleteBlob {
            hash: ContentHash::of(bytes),
        });
        s.commit(b)
    };
    let err = delete(&mut s, &version(0)).expect_err("base in use");
    assert_eq!(err.kind(), HostErrorKind::PreconditionFailed, "{err}");
    delete(&mut s, &version(1)).expect("dependent first");
    delete(&mut s, &version(0)).expect("then the base");
    assert_eq!(s.blobs().expect("list"), Vec::new());
}

#[test]
fn blobs_lists_each_rows_base_and_its_stored_bytes() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    chain_of(&mut s, 2);
    let listed = s.blobs().expect("list");
    let info = |bytes: &[u8]| {
        let h = ContentHash::of(bytes);
        listed.iter().find(|b| b.hash == h).expect("listed").clone()
    };
    let (v0, v1) = (info(&version(0)), info(&version(1)));
    assert_eq!(v0.base, None);
    assert_eq!(v1.base, Some(v0.hash.clone()));
    assert_eq!(v1.size, version(1).len() as u64);
    assert_eq!(v1.stored as i64, row(&s, &version(1)).1);
    assert!(v1.stored * 20 < v0.stored, "{} vs {}", v1.stored, v0.stored);
}

#[test]
fn content_unlike_its_base_is_stored_whole() {
    let mut s = SqliteStore::open_in_memory().expect("open");
    let v = version(0);
    // xorshift noise of the same length: no delta can beat a copy of it.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: Vec<u8> = (0..v.len())
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    put(&mut s, &v, None);
    put(&mut s, &noise, Some(&v));
    let (codec, _, depth, _, base) = row(&s, &noise);
    assert_eq!((codec.as_str(), depth, base), ("raw", 0, None));
}

fn journal_batch() -> Batch {
    let session = SessionId::parse("ses_a").expect("id");
    let mut b = Batch::new();
    b.push(Write::CreateSession {
        session: session.clone(),
        body: "{}".into(),
    });
    b.push(Write::PutJournal {
        journal: JournalId::parse("jnl_a").expect("id"),
        session,
        body: "{}".into(),
    });
    b
}

fn synchronous(s: &SqliteStore) -> i64 {
    s.conn
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .expect("pragma")
}

#[test]
fn journal_batches_commit_full_and_record_batches_normal() {
    let dir = tempfile::TempDir::new().expect("dir");
    let mut s = SqliteStore::open(&dir.path().join("r.db")).expect("open");
    put(&mut s, b"a record", None);
    assert_eq!(synchronous(&s), 1, "NORMAL for a record batch");
    s.commit(journal_batch()).expect("journal");
    assert_eq!(synchronous(&s), 2, "FULL for a journal batch");
    let mut b = Batch::new();
    b.push(Write::RemoveJournal {
        journal: JournalId::parse("jnl_a").expect("id"),
    });
    put(&mut s, b"another record", None);
    assert_eq!(synchronous(&s), 1);
    s.commit(b).expect("remove");
    assert_eq!(synchronous(&s), 2, "FULL for clearing a journal");
    s.set_record_durability(super::Durability::Full);
    put(&mut s, b"a durable record", None);
    assert_eq!(synchronous(&s), 2, "records FULL when asked");
}

/// A file at schema V5 with one whole blob, made the way a V5 rewind made it.
fn v5_file(path: &Path, content: &[u8]) {
    let conn = rusqlite::Connection::open(path).expect("raw");
    for sql in &schema::MIGRATIONS[..5] {
        conn.execute_batch(sql).expect("migration");
    }
    conn.pragma_update(None, "user_version", 5)
        .expect("version");
    // V5 wrote whole copies deflated.
    let stored = miniz_oxide::deflate::compress_to_vec(content, 6);
    conn.execute(
        "INSERT INTO blobs (hash, bytes, codec, size) VALUES (?1, ?2, 'deflate', ?3)",
        rusqlite::params![
            ContentHash::of(content).as_str(),
            stored,
            content.len() as i64
        ],
    )
    .expect("blob");
}

#[test]
fn a_v5_store_reads_read_only_and_migrates_to_deltas() {
    let dir = tempfile::TempDir::new().expect("dir");
    let path = dir.path().join("old.db");
    let v0 = version(0);
    v5_file(&path, &v0);

    let ro = SqliteStore::open_read_only(&path).expect("read-only");
    assert_eq!(ro.schema, 5);
    assert_eq!(
        ro.blob(&ContentHash::of(&v0)).expect("read"),
        Some(v0.clone())
    );
    assert_eq!(ro.blobs().expect("list")[0].base, None);
    drop(ro);

    let mut s = SqliteStore::open(&path).expect("migrate");
    assert_eq!(s.schema, schema::SCHEMA_VERSION as usize);
    assert_eq!(
        s.blob(&ContentHash::of(&v0)).expect("read"),
        Some(v0.clone())
    );
    assert_eq!(row(&s, &v0).2, 0, "an old row is a whole copy");
    // A new version deltas against the row V5 wrote.
    put(&mut s, &version(1), Some(&v0));
    let (codec, ..) = row(&s, &version(1));
    assert_eq!(codec, DELTA);
    assert_eq!(
        s.blob(&ContentHash::of(&version(1))).expect("read"),
        Some(version(1))
    );
}

#[test]
fn a_new_version_of_a_damaged_base_is_stored_whole() {
    let dir = tempfile::TempDir::new().expect("dir");
    let path = dir.path().join("r.db");
    let v0 = version(0);
    {
        let mut s = SqliteStore::open(&path).expect("open");
        put(&mut s, &v0, None);
        // One flipped byte: the row decodes, but no longer to what its key says.
        let mut damaged = v0.clone();
        damaged[100] ^= 1;
        s.conn
            .execute(
                "UPDATE blobs SET codec = 'raw', bytes = ?2 WHERE hash = ?1",
                rusqlite::params![ContentHash::of(&v0).as_str(), damaged],
            )
            .expect("damage");
    }
    // A fresh store: nothing cached, the base is read from its row.
    let mut s = SqliteStore::open(&path).expect("reopen");
    put(&mut s, &version(1), Some(&v0));
    let (codec, _, depth, _, base) = row(&s, &version(1));
    assert_eq!((codec.as_str(), depth, base), ("zstd", 0, None));
    assert_eq!(
        s.blob(&ContentHash::of(&version(1))).expect("read"),
        Some(version(1))
    );
}
