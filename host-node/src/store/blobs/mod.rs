//! Blob rows: whole copies (`raw`, `zstd`, older `deflate`) and deltas (`zstd-delta`) against another row.
//!
//! Chains are skip-deltas over the versions of a file (the `base` hint of `PutBlob`, an
//! earlier version): a row records `step`, its position since the last whole copy along the
//! hints, and the version at step `p` is stored against the one at step `p & (p - 1)` (the
//! hint itself when `p` is odd, otherwise an older row on the hint's own chain). A restore then
//! applies `depth = popcount(step)` deltas, at most [`MAX_DEPTH`], while a whole copy is stored
//! only every [`GROUP`] versions. Measured on 100 small edits of a 100 KB file: a whole copy is
//! ~17 KB and a delta ~40 bytes, so a linear chain with a whole copy every 16 versions would cost
//! ~1.1 KB per version (~90 bytes per byte changed) where skip-deltas over 256 cost ~150 bytes,
//! with 8 deltas at most to apply (a 100 KB delta applies in ~0.1 ms).
//!
//! The hash is always that of the whole content; the core verifies it on every read.
//!
//! Shared by every store that keeps blob rows (SQLite, PostgreSQL): the rules (chains, bounds,
//! what counts as corrupt, when a delta pays) live here once; a store only looks rows up
//! ([`BlobRows`]) and inserts the row [`plan`] chose, so both read each other's rows the same.

mod codec;
mod delta;

use rewind_core::hash::ContentHash;
use rewind_core::ports::BlobInfo;
use rewind_core::{HostError, HostErrorKind};

/// A whole copy at least every this many versions along a chain of hints.
pub(crate) const GROUP: i64 = 256;

/// Most deltas a read applies (`popcount(GROUP - 1)`); a deeper row is corrupt.
pub(crate) const MAX_DEPTH: i64 = 8;

/// The codec of a delta row.
pub(crate) const DELTA: &str = "zstd-delta";

/// One stored row, as a store hands it over.
#[derive(Debug)]
pub(crate) struct BlobRow {
    /// Its key.
    pub(crate) hash: String,
    /// `raw`, `zstd`, `deflate` or [`DELTA`].
    pub(crate) codec: String,
    /// The stored bytes.
    pub(crate) bytes: Vec<u8>,
    /// The content's length, when recorded.
    pub(crate) size: Option<i64>,
    /// The row a delta applies to.
    pub(crate) base: Option<String>,
    /// Deltas a read applies.
    pub(crate) depth: i64,
    /// Position since the last whole copy.
    pub(crate) step: i64,
}

impl BlobRow {
    /// The row of `hash` from its cells: codec, bytes, size, base, depth, step.
    pub(crate) fn of(
        hash: &str,
        cells: (String, Vec<u8>, Option<i64>, Option<String>, i64, i64),
    ) -> Self {
        let (codec, bytes, size, base, depth, step) = cells;
        Self {
            hash: hash.to_owned(),
            codec,
            bytes,
            size,
            base,
            depth,
            step,
        }
    }
}

/// A listed row (hash, content size, stored size, base) as [`BlobInfo`]. A row whose key is
/// not a digest can never be asked for by content, so it is not content: listing it would only
/// make gc and stats fail on one damaged row. A base that is not a digest cannot be kept alive
/// by gc; reading the dependent then reports it corrupt.
pub(crate) fn listed(
    (hash, size, stored, base): (String, i64, i64, Option<String>),
) -> Option<BlobInfo> {
    Some(BlobInfo {
        hash: ContentHash::parse(&hash)?,
        size: size.max(0) as u64,
        stored: stored.max(0) as u64,
        base: base.as_deref().and_then(ContentHash::parse),
    })
}

/// How a store looks blob rows up and adds one (inside its write transaction while
/// committing).
pub(crate) trait BlobRows {
    /// The row stored under `hash`, if any; a failed lookup says what failed.
    fn blob_row(&self, hash: &str) -> Result<Option<BlobRow>, HostError>;
    /// Whether a row for `hash` exists: one primary-key lookup, no bytes read.
    fn has_row(&self, hash: &ContentHash) -> Result<bool, HostError>;
    /// Insert the row [`put`] chose for content of `size` bytes.
    fn insert_row(&self, hash: &ContentHash, row: &Stored<'_>, size: i64) -> Result<(), HostError>;
}

fn corrupt(hash: &str, why: &str) -> HostError {
    let short = ContentHash::parse(hash).map_or_else(|| hash.to_owned(), |h| h.short().to_owned());
    HostError::new(
        HostErrorKind::Corrupt,
        format!("blob {short} is corrupt: {why}"),
    )
}

/// The row of `hash` followed by its bases down to a whole copy, or `None` when `hash` is not
/// stored. A missing base or a chain past [`MAX_DEPTH`] is corrupt.
fn chain(rows: &impl BlobRows, hash: &str) -> Result<Option<Vec<BlobRow>>, HostError> {
    let Some(first) = rows.blob_row(hash)? else {
        return Ok(None);
    };
    let mut found = vec![first];
    while let Some(base) = found.last().and_then(|r| r.base.clone()) {
        if found.len() as i64 > MAX_DEPTH {
            return Err(corrupt(
                hash,
                "its delta chain is longer than any rewind writes",
            ));
        }
        match rows.blob_row(&base)? {
            Some(r) => found.push(r),
            None => {
                let why = format!("the base {base} its delta applies to is missing");
                return Err(corrupt(hash, &why));
            }
        }
    }
    Ok(Some(found))
}

/// The content of `rows[0]`, applying the deltas from the whole copy at the end of `rows`.
fn materialize(rows: &[BlobRow], limit: u64) -> Result<Vec<u8>, HostError> {
    let Some((root, deltas)) = rows.split_last() else {
        return Err(HostError::io("an empty blob chain"));
    };
    if root.codec == DELTA {
        return Err(corrupt(&root.hash, "a delta row names no base"));
    }
    let mut content = codec::decode(&root.codec, root.bytes.clone(), root.size, limit).map_err(
        |codec::DecodeError::TooLarge(bound)| {
            let why = format!("it inflates past {bound} bytes, the most its row allows");
            corrupt(&root.hash, &why)
        },
    )?;
    for r in deltas.iter().rev() {
        let size = r.size.and_then(|s| usize::try_from(s).ok());
        let (true, Some(size)) = (r.codec == DELTA, size) else {
            return Err(corrupt(
                &r.hash,
                "a row with a base is not a delta with a size",
            ));
        };
        content = delta::decode(&content, &r.bytes, size).map_err(|e| corrupt(&r.hash, &e.0))?;
    }
    Ok(content)
}

/// A stored blob's content: resolved through its delta chain (bounded by [`MAX_DEPTH`]).
/// Anything that cannot resolve is `corrupt`, never other bytes.
pub(crate) fn read(
    rows: &impl BlobRows,
    hash: &ContentHash,
    limit: u64,
) -> Result<Option<Vec<u8>>, HostError> {
    match chain(rows, hash.as_str())? {
        None => Ok(None),
        Some(rows) => materialize(&rows, limit).map(Some),
    }
}

/// Contents this store lately stored or resolved, checked against their hash: the next version
/// of a file is mostly stored against one of them, which then needs no chain resolved. Only
/// verified content goes in (a delta against wrong bytes would be a corrupt row). Content is
/// immutable per hash, so an entry stays right whatever happens to its row; a delta is only
/// made against a row that the chain walk found stored.
#[derive(Debug, Default)]
pub(crate) struct Recent(std::collections::VecDeque<(String, Vec<u8>)>);

/// Entries kept: a turn touches a few files; each needs its latest version.
const RECENT: usize = 8;

/// Larger contents are not kept: memory stays bounded at `RECENT` MiB.
const RECENT_MAX: usize = 1 << 20;

impl Recent {
    fn get(&self, hash: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(h, _)| h == hash)
            .map(|(_, c)| c.as_slice())
    }

    fn keep(&mut self, hash: &str, content: &[u8]) {
        if content.len() > RECENT_MAX || self.get(hash).is_some() {
            return;
        }
        if self.0.len() == RECENT {
            self.0.pop_front();
        }
        self.0.push_back((hash.to_owned(), content.to_vec()));
    }
}

/// How a new blob is stored: the row a store inserts.
#[derive(Debug)]
pub(crate) struct Stored<'a> {
    /// The row's codec.
    pub(crate) codec: &'static str,
    /// The row's bytes.
    pub(crate) bytes: std::borrow::Cow<'a, [u8]>,
    /// The row its delta applies to.
    pub(crate) base: Option<String>,
    /// Deltas a read applies.
    pub(crate) depth: i64,
    /// Position since the last whole copy.
    pub(crate) step: i64,
}

/// `content` as a delta against the row the skip-delta rule picks on `hint`'s chain, when that
/// is clearly smaller (half or less) than a whole compressed copy; `Err` hands back the whole
/// copy when one had to be compressed to decide, so no content is compressed twice.
fn as_delta<'a>(
    rows_of: &impl BlobRows,
    content: &'a [u8],
    hint: &ContentHash,
    limit: u64,
    recent: &mut Recent,
) -> Result<Stored<'a>, Option<Stored<'a>>> {
    if !(delta::MIN_SIZE..=delta::MAX_SIZE).contains(&content.len()) {
        return Err(None);
    }
    // An unreadable hint is no reason to fail a write: the content is stored whole.
    let rows = chain(rows_of, hint.as_str()).ok().flatten().ok_or(None)?;
    let step = rows[0].step + 1;
    if step >= GROUP {
        return Err(None);
    }
    let at = rows
        .iter()
        .position(|r| r.step == step & (step - 1))
        .unwrap_or(0);
    let target = &rows[at];
    let big = |s: Option<i64>| s.is_none_or(|s| s > delta::MAX_SIZE as i64);
    if target.depth + 1 > MAX_DEPTH || big(target.size) {
        return Err(None);
    }
    let bytes = match recent.get(&target.hash) {
        Some(base) => delta::encode(base, content),
        None => {
            let base = materialize(&rows[at..], limit).map_err(|_| None)?;
            // A damaged base must not become the ground of new rows: store this one whole.
            if ContentHash::of(&base).as_str() != target.hash {
                return Err(None);
            }
            recent.keep(&target.hash, &base);
            delta::encode(&base, content)
        }
    }
    .map_err(|_| None)?;
    let stored = Stored {
        codec: DELTA,
        bytes: bytes.into(),
        base: Some(target.hash.clone()),
        depth: target.depth + 1,
        step,
    };
    // Versions of one file compress alike: the whole copy at the chain's root predicts what a
    // whole copy of this one would take, which saves compressing it when the delta is tiny.
    let root = rows.last().ok_or(None)?;
    let ratio = root.bytes.len() as f64 / root.size.unwrap_or(1).max(1) as f64;
    if (stored.bytes.len() * 2) as f64 <= ratio * content.len() as f64 {
        return Ok(stored);
    }
    let whole = whole(content);
    match stored.bytes.len() * 2 <= whole.bytes.len() {
        true => Ok(stored),
        false => Err(Some(whole)),
    }
}

fn whole(content: &[u8]) -> Stored<'_> {
    let (codec, bytes) = codec::encode(content);
    Stored {
        codec,
        bytes,
        base: None,
        depth: 0,
        step: 0,
    }
}

/// Store a blob unless it is already stored. A blob the store has costs one primary-key
/// lookup: it is not hashed, compressed or written again. A new one is hashed once (the
/// content address is what every later read trusts) and compressed once. Bytes that do not
/// hash to `hash` are a failed precondition.
pub(crate) fn put(
    rows: &impl BlobRows,
    hash: &ContentHash,
    content: &[u8],
    hint: Option<&ContentHash>,
    limit: u64,
    recent: &mut Recent,
) -> Result<(), HostError> {
    if rows.has_row(hash)? {
        return Ok(());
    }
    if ContentHash::of(content) != *hash {
        return Err(HostError::new(
            HostErrorKind::PreconditionFailed,
            format!("blob bytes do not hash to {hash}"),
        ));
    }
    let stored = match hint.map(|h| as_delta(rows, content, h, limit, recent)) {
        Some(Ok(delta)) => delta,
        Some(Err(Some(whole))) => whole,
        Some(Err(None)) | None => whole(content),
    };
    // A version written after another is the likely base of the next one; a first version
    // (a workspace snapshot stores thousands) is not worth the copy. Content is immutable per
    // hash, so keeping it before the row is written is right even if the commit fails.
    if hint.is_some() {
        recent.keep(hash.as_str(), content);
    }
    rows.insert_row(hash, &stored, content.len() as i64)
}
