//! Blob rows in SQLite: lookups and inserts (`crate::store::blobs::put` stores a blob). What a row means (codecs, delta chains, when a
//! delta pays) is `crate::store::blobs`, shared with the PostgreSQL store.

use super::error;
use crate::store::blobs::{BlobRow, BlobRows, Stored};
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
                    let cells = (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
                    Ok(BlobRow::of(
                        hash,
                        (cells.0, cells.1, cells.2, cells.3, cells.4, r.get(5)?),
                    ))
                })
                .optional()
            })
            .map_err(|e| error::host(&format!("cannot read blob {hash}"), e))
    }

    fn has_row(&self, hash: &ContentHash) -> Result<bool, HostError> {
        exists(self.conn, hash)
            .map_err(|e| error::host(&format!("cannot look up blob {}", hash.short()), e))
    }

    fn insert_row(&self, hash: &ContentHash, row: &Stored<'_>, size: i64) -> Result<(), HostError> {
        self.conn
            .prepare_cached(
                "INSERT INTO blobs (hash, bytes, codec, size, base, depth, step)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                let bytes: &[u8] = row.bytes.as_ref();
                s.execute(params![
                    hash.as_str(),
                    bytes,
                    row.codec,
                    size,
                    row.base,
                    row.depth,
                    row.step
                ])
            })
            .map(drop)
            .map_err(|e| error::host(&format!("cannot store blob {}", hash.short()), e))
    }
}

/// Whether a row for `hash` exists: one primary-key lookup, no bytes read.
pub(super) fn exists(conn: &Connection, hash: &ContentHash) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM blobs WHERE hash = ?1")?
        .exists([hash.as_str()])
}

/// A blob some stored delta still applies to, if any: deleting it would leave that one
/// unreadable, so the delete is refused (gc deletes dependents first).
pub(super) fn dependent(conn: &Connection, hash: &ContentHash) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT hash FROM blobs WHERE base = ?1 LIMIT 1")?
        .query_row([hash.as_str()], |r| r.get(0))
        .optional()
}
