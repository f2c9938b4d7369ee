//! Blob rows in SQLite: lookups and inserts. What a row means (codecs, delta chains, when a
//! delta pays) is `crate::store::blobs`, shared with the PostgreSQL store.

use super::error;
use crate::store::blobs::{self, BlobRow, BlobRows, Recent};
use rewind_core::HostError;
use rewind_core::hash::ContentHash;
use rusqlite::{Connection, OptionalExtension, params};

/// The rows of one connection. `deltas` is false for a store older than V6 (read-only open),
/// which has no delta columns: every row is whole.
pub(super) struct Rows<'c> {
    pub(super) conn: &'c Connection,
    pub(super) deltas: bool,
}

impl BlobRows for Rows<'_> {
    fn blob_row(&self, hash: &str) -> Result<Option<BlobRow>, HostError> {
        let sql = match self.deltas {
            true => "SELECT codec, bytes, size, base, depth, step FROM blobs WHERE hash = ?1",
            false => "SELECT codec, bytes, size, NULL, 0, 0 FROM blobs WHERE hash = ?1",
        };
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| {
                s.query_row([hash], |r| {
                    Ok(BlobRow {
                        hash: hash.to_owned(),
                        codec: r.get(0)?,
                        bytes: r.get(1)?,
                        size: r.get(2)?,
                        base: r.get(3)?,
                        depth: r.get(4)?,
                        step: r.get(5)?,
                    })
                })
                .optional()
            })
            .map_err(|e| error::host(&format!("cannot read blob {hash}"), e))
    }
}

/// Whether a row for `hash` exists: one primary-key lookup, no bytes read.
pub(super) fn exists(conn: &Connection, hash: &ContentHash) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM blobs WHERE hash = ?1")?
        .query_row([hash.as_str()], |_| Ok(()))
        .optional()
        .map(|found| found.is_some())
}

/// Store a blob unless it is already stored (see `blobs::plan`).
pub(super) fn put(
    conn: &Connection,
    hash: &ContentHash,
    content: &[u8],
    hint: Option<&ContentHash>,
    limit: u64,
    recent: &mut Recent,
) -> Result<(), HostError> {
    let fail = |e| error::host(&format!("cannot store blob {}", hash.short()), e);
    if exists(conn, hash).map_err(fail)? {
        return Ok(());
    }
    let rows = Rows { conn, deltas: true };
    let stored = blobs::plan(&rows, hash, content, hint, limit, recent)?;
    conn.prepare_cached(
        "INSERT INTO blobs (hash, bytes, codec, size, base, depth, step)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .and_then(|mut s| {
        s.execute(params![
            hash.as_str(),
            stored.bytes.as_ref(),
            stored.codec,
            content.len() as i64,
            stored.base,
            stored.depth,
            stored.step
        ])
    })
    .map_err(fail)?;
    Ok(())
}

/// A blob some stored delta still applies to, if any: deleting it would leave that one
/// unreadable, so the delete is refused (gc deletes dependents first).
pub(super) fn dependent(conn: &Connection, hash: &ContentHash) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT hash FROM blobs WHERE base = ?1 LIMIT 1")?
        .query_row([hash.as_str()], |r| r.get(0))
        .optional()
}
