//! Blob rows in PostgreSQL: lookups and inserts. What a row means (codecs, delta chains, when a
//! delta pays) is `crate::store::blobs`, shared with SQLite, so the rows are the same.

use super::{error, prepared};
use crate::store::blobs::{self, BlobRow, BlobRows, Recent};
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
        f: impl FnOnce(&mut C, &Statement) -> Result<T, postgres::Error>,
    ) -> Result<T, postgres::Error> {
        let mut cx = self.cx.borrow_mut();
        let (client, cache) = &mut *cx;
        let s = prepared(*client, cache, sql)?;
        f(client, &s)
    }

    /// Whether a row for `hash` exists: one primary-key lookup, no bytes read.
    fn exists(&self, hash: &ContentHash) -> Result<bool, postgres::Error> {
        self.run("SELECT 1 FROM blobs WHERE hash = $1", |c, s| {
            Ok(c.query_opt(s, &[&hash.as_str()])?.is_some())
        })
    }
}

impl<C: GenericClient> BlobRows for Rows<'_, C> {
    fn blob_row(&self, hash: &str) -> Result<Option<BlobRow>, HostError> {
        let sql = "SELECT codec, bytes, size, base, depth, step FROM blobs WHERE hash = $1";
        let read = |c: &mut C, s: &Statement| {
            let Some(r) = c.query_opt(s, &[&hash])? else {
                return Ok(None);
            };
            Ok(Some(BlobRow {
                hash: hash.to_owned(),
                codec: r.try_get(0)?,
                bytes: r.try_get(1)?,
                size: r.try_get(2)?,
                base: r.try_get(3)?,
                depth: r.try_get(4)?,
                step: r.try_get(5)?,
            }))
        };
        self.run(sql, read)
            .map_err(|e| error::host(&format!("cannot read blob {hash}"), e))
    }
}

/// Store a blob unless it is already stored (see `blobs::plan`).
pub(super) fn put<C: GenericClient>(
    rows: &Rows<'_, C>,
    hash: &ContentHash,
    content: &[u8],
    hint: Option<&ContentHash>,
    limit: u64,
    recent: &mut Recent,
) -> Result<(), HostError> {
    let fail = |e| error::host(&format!("cannot store blob {}", hash.short()), e);
    if rows.exists(hash).map_err(fail)? {
        return Ok(());
    }
    let stored = blobs::plan(rows, hash, content, hint, limit, recent)?;
    let size = content.len() as i64;
    let sql = "INSERT INTO blobs (hash, bytes, codec, size, base, depth, step)
               VALUES ($1, $2, $3, $4, $5, $6, $7)";
    rows.run(sql, |c, s| {
        let bytes: &[u8] = stored.bytes.as_ref();
        let row: [&(dyn postgres::types::ToSql + Sync); 7] = [
            &hash.as_str(),
            &bytes,
            &stored.codec,
            &size,
            &stored.base,
            &stored.depth,
            &stored.step,
        ];
        c.execute(s, &row)
    })
    .map_err(fail)?;
    Ok(())
}

/// A blob some stored delta still applies to, if any: deleting it would leave that one
/// unreadable, so the delete is refused (gc deletes dependents first).
pub(super) fn dependent<C: GenericClient>(
    rows: &Rows<'_, C>,
    hash: &ContentHash,
) -> Result<Option<String>, postgres::Error> {
    rows.run("SELECT hash FROM blobs WHERE base = $1 LIMIT 1", |c, s| {
        c.query_opt(s, &[&hash.as_str()])?
            .map(|r| r.try_get(0))
            .transpose()
    })
}
