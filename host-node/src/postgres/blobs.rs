//! Blob rows in PostgreSQL: lookups and inserts (`crate::store::blobs::put` stores a blob). What a row means (codecs, delta chains, when a
//! delta pays) is `crate::store::blobs`, shared with SQLite, so the rows are the same.

use super::error;
use super::stmt::{Stmt, stmt};
use crate::store::blobs::{BlobRow, BlobRows, Stored};
use postgres::{GenericClient, Statement};
use rewind_core::HostError;
use rewind_core::hash::ContentHash;
use std::cell::RefCell;
use std::collections::HashMap;

type Cache = HashMap<&'static str, Statement>;

/// The rows seen through one client: the connection for reads, the open transaction while
/// committing (a chain walk needs `&self`; the client needs `&mut`).
pub(super) struct Rows<'a, C> {
    cx: RefCell<(&'a mut C, &'a mut Cache)>,
}

impl<'a, C: GenericClient> Rows<'a, C> {
    pub(super) fn new(client: &'a mut C, cache: &'a mut Cache) -> Self {
        Self {
            cx: RefCell::new((client, cache)),
        }
    }

    /// Run `f` with the statement of `sql`.
    pub(super) fn run<T>(
        &self,
        sql: &'static str,
        f: impl FnOnce(&mut C, &Stmt<'_>) -> Result<T, postgres::Error>,
    ) -> Result<T, postgres::Error> {
        let mut cx = self.cx.borrow_mut();
        let (client, cache) = &mut *cx;
        let s = stmt(*client, cache, sql)?;
        f(client, &s)
    }
}

impl<C: GenericClient> BlobRows for Rows<'_, C> {
    fn blob_row(&self, hash: &str) -> Result<Option<BlobRow>, HostError> {
        let sql = "SELECT codec, bytes, size, base, depth, step FROM blobs WHERE hash = $1";
        let read = |c: &mut C, s: &Stmt<'_>| {
            let Some(r) = s.query_opt(c, &[&hash])? else {
                return Ok(None);
            };
            let cells = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
            let (base, depth, step) = (r.try_get(3)?, r.try_get(4)?, r.try_get(5)?);
            Ok(Some(BlobRow::of(
                hash,
                (cells.0, cells.1, cells.2, base, depth, step),
            )))
        };
        self.run(sql, read)
            .map_err(|e| error::host(&format!("cannot read blob {hash}"), e))
    }

    fn has_row(&self, hash: &ContentHash) -> Result<bool, HostError> {
        self.run("SELECT 1 FROM blobs WHERE hash = $1", |c, s| {
            Ok(s.query_opt(c, &[&hash.as_str()])?.is_some())
        })
        .map_err(|e| error::host(&format!("cannot look up blob {}", hash.short()), e))
    }

    fn insert_row(&self, hash: &ContentHash, row: &Stored<'_>, size: i64) -> Result<(), HostError> {
        let sql = "INSERT INTO blobs (hash, bytes, codec, size, base, depth, step)
                   VALUES ($1, $2, $3, $4, $5, $6, $7)";
        let bytes: &[u8] = row.bytes.as_ref();
        self.run(sql, |c, s| {
            let cells: [&(dyn postgres::types::ToSql + Sync); 7] = [
                &hash.as_str(),
                &bytes,
                &row.codec,
                &size,
                &row.base,
                &row.depth,
                &row.step,
            ];
            s.execute(c, &cells)
        })
        .map(drop)
        .map_err(|e| error::host(&format!("cannot store blob {}", hash.short()), e))
    }
}

/// A blob some stored delta still applies to, if any: deleting it would leave that one
/// unreadable, so the delete is refused (gc deletes dependents first).
pub(super) fn dependent<C: GenericClient>(
    rows: &Rows<'_, C>,
    hash: &ContentHash,
) -> Result<Option<String>, postgres::Error> {
    rows.run("SELECT hash FROM blobs WHERE base = $1 LIMIT 1", |c, s| {
        s.query_opt(c, &[&hash.as_str()])?
            .map(|r| r.try_get(0))
            .transpose()
    })
}
