//! Differences become file changes: exact versions on both sides (the before bytes come from
//! the store, where the earlier snapshot put them), a patch for text, and an honest failed
//! capture wherever one side is not stored.

use super::Error;
use super::diff::{Diff, Known};
use super::manifest::{Manifest, State};
use super::take::Fresh;
use crate::hash::ContentHash;
use crate::load::{self, BlobError};
use crate::model::{Capture, FileChange, FileVersion};
use crate::patch;
use crate::path::WorkPath;
use crate::ports::Store;
use crate::record::text_of;
use serde::Serialize;
use std::collections::BTreeMap;

/// The paths a snapshot found changed, by what happened to them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changed {
    /// New files.
    pub created: Vec<WorkPath>,
    /// Files whose content or mode changed.
    pub modified: Vec<WorkPath>,
    /// Files that are gone.
    pub deleted: Vec<WorkPath>,
    /// Changes whose before or after state is not stored (too large, a link, unknown): a
    /// rewind reports these as unsupported instead of guessing.
    pub uncaptured: Vec<WorkPath>,
}

impl Changed {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.created.is_empty()
            && self.modified.is_empty()
            && self.deleted.is_empty()
            && self.uncaptured.is_empty()
    }
}

fn failed(
    path: WorkPath,
    before: Option<FileVersion>,
    after: Option<FileVersion>,
    why: &str,
) -> FileChange {
    FileChange {
        path,
        before,
        after,
        patch: None,
        capture: Capture::Failed { reason: why.into() },
    }
}

/// The stored bytes of `hash`: read this snapshot, or from the store. `None` when the store
/// has lost them (gc'd or damaged); a host failure is an error.
fn bytes_of(
    store: &dyn Store,
    fresh: &BTreeMap<&ContentHash, &[u8]>,
    hash: &ContentHash,
) -> Result<Option<Vec<u8>>, Error> {
    if let Some(b) = fresh.get(hash) {
        return Ok(Some(b.to_vec()));
    }
    match load::blob(store, hash) {
        Ok(b) => Ok(Some(b)),
        Err(BlobError::Host(e)) => Err(Error::Store(e)),
        Err(_) => Ok(None),
    }
}

/// Turn `diffs` into file changes, sorting each path into `changed`.
pub(crate) fn changes(
    store: &dyn Store,
    diffs: Vec<Diff>,
    after: &Manifest,
    fresh: &[Fresh],
    changed: &mut Changed,
) -> Result<Vec<FileChange>, Error> {
    let fresh: BTreeMap<&ContentHash, &[u8]> = fresh
        .iter()
        .map(|f| (&f.hash, f.bytes.as_slice()))
        .collect();
    let mut out = Vec::with_capacity(diffs.len());
    for d in diffs {
        let after_version = match after.entries.get(&d.path).map(|e| &e.state) {
            Some(State::Tracked(v)) => Some(v.clone()),
            _ => None,
        };
        let why = match (&d.before, &d.after) {
            (Known::Untracked(u), _) | (_, Known::Untracked(u)) => Some(u.as_str()),
            (Known::Unknown, _) => Some("before_unknown"),
            _ => None,
        };
        if let Some(why) = why {
            changed.uncaptured.push(d.path.clone());
            out.push(failed(d.path, None, after_version, why));
            continue;
        }
        let before = match &d.before {
            Known::Version(hash, mode) => match bytes_of(store, &fresh, hash)? {
                Some(b) => Some((crate::node::version_of(hash.clone(), &b, *mode), b)),
                None => {
                    changed.uncaptured.push(d.path.clone());
                    out.push(failed(d.path, None, after_version, "before_unavailable"));
                    continue;
                }
            },
            _ => None,
        };
        let after_bytes = match &after_version {
            Some(v) => bytes_of(store, &fresh, &v.hash)?,
            None => None,
        };
        let patch = match (
            text_of(before.as_ref().map(|b| b.1.as_slice())),
            text_of(after_bytes.as_deref()),
        ) {
            (Some(b), Some(a)) if after_version.is_none() || after_bytes.is_some() => {
                Some(patch::create(b, a, 3))
            }
            _ => None,
        };
        match (&before, &after_version) {
            (None, _) => changed.created.push(d.path.clone()),
            (Some(_), None) => changed.deleted.push(d.path.clone()),
            (Some(_), Some(_)) => changed.modified.push(d.path.clone()),
        }
        out.push(FileChange {
            path: d.path,
            before: before.map(|b| b.0),
            after: after_version,
            patch: patch.filter(|p| !p.is_empty()),
            capture: Capture::Captured,
        });
    }
    Ok(out)
}
