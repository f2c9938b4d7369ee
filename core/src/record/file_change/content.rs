//! A recorded change's content: each side hashed once, counted against the quota, stored as
//! blobs with a patch for text, or refused (too large, a patch that does not fit) and recorded
//! as a failed capture.

use super::EditChange;
use crate::batch::Write;
use crate::ctx::Ports;
use crate::hash::ContentHash;
use crate::id::SessionId;
use crate::load;
use crate::model::{Capture, FileChange, FileVersion};
use crate::patch::{self, PATCH_LIMIT};
use crate::path::WorkPath;
use crate::record::Error;

/// A side's version: a file's, or a directory's or a link's when the bytes are its byte form
/// ([`crate::node::Node::encode`]): a tool that made folders for its file records them so.
fn version(bytes: &[u8], hash: &ContentHash, mode: Option<u32>) -> FileVersion {
    crate::node::version_of(hash.clone(), bytes, mode.map(|m| m & 0o7777))
}

pub(crate) fn text_of(bytes: Option<&[u8]>) -> Option<&str> {
    match bytes {
        None => Some(""),
        Some(b) if b.len() <= PATCH_LIMIT => std::str::from_utf8(b).ok(),
        Some(_) => None,
    }
}

/// One change's content, each side hashed exactly once for the whole record.
pub(super) struct Hashed {
    pub(super) change: EditChange,
    before: Option<ContentHash>,
    after: Option<ContentHash>,
}

impl Hashed {
    pub(super) fn new(change: EditChange) -> Self {
        Self {
            before: change.before.as_deref().map(ContentHash::of),
            after: change.after.as_deref().map(ContentHash::of),
            change,
        }
    }

    fn sides(&self) -> impl Iterator<Item = (&ContentHash, u64)> {
        let before = self.before.iter().zip(self.change.before.iter());
        let after = self.after.iter().zip(self.change.after.iter());
        before.chain(after).map(|(h, b)| (h, b.len() as u64))
    }
}

/// The bytes of content this edit would bring into the store (content the store already holds
/// costs nothing), and whether that takes the session past its quota. O(files): the session's
/// running total comes from the store, never from reading its checkpoints.
pub(super) fn new_bytes(
    p: &Ports<'_>,
    session: &SessionId,
    changes: &[Hashed],
) -> Result<(u64, bool), Error> {
    let max = p.limits.max_file_bytes;
    let mut seen = std::collections::BTreeSet::new();
    let mut added = 0;
    for (hash, size) in changes.iter().flat_map(Hashed::sides) {
        if size <= max && seen.insert(hash) && !p.store.has_blob(hash).map_err(load::Error::Host)? {
            added += size;
        }
    }
    let over = match p.limits.session_quota_bytes {
        Some(quota) if added > 0 => {
            let used = p.store.session_bytes(session).map_err(load::Error::Host)?;
            used.saturating_add(added) > quota
        }
        _ => false,
    };
    Ok((added, over))
}

/// A change recorded without its content (a failed capture with `reason`).
pub(super) fn unrecorded(h: Hashed, reason: &str) -> Result<FileChange, Error> {
    let c = h.change;
    Ok(FileChange {
        path: WorkPath::parse(&c.path)?,
        before: None,
        after: match (c.after.as_deref(), &h.after) {
            (Some(b), Some(hash)) => Some(version(b, hash, c.after_mode)),
            _ => None,
        },
        patch: None,
        capture: Capture::Failed {
            reason: reason.into(),
        },
    })
}

/// Build one change and the blobs it needs. Oversized content becomes a failed capture and is
/// never stored: the tool's write still happened, but its undo is reported as unsupported.
pub(super) fn change(h: Hashed, max: u64, blobs: &mut Vec<Write>) -> Result<FileChange, Error> {
    let path = WorkPath::parse(&h.change.path)?;
    let too_large = h.sides().any(|(_, size)| size > max);
    if too_large {
        return unrecorded(h, "too_large");
    }
    let Hashed {
        change: c,
        before: before_hash,
        after: after_hash,
    } = h;
    let (before_text, after_text) = (text_of(c.before.as_deref()), text_of(c.after.as_deref()));
    let patch = match (c.patch, before_text, after_text) {
        (Some(given), Some(b), Some(a)) => {
            patch::apply(b, &given).ok().filter(|out| out == a).ok_or_else(|| {
                Error::InvalidInput(format!("the patch given for {path} does not turn its before content into its after content"))
            })?;
            Some(given)
        }
        (Some(_), _, _) => {
            return Err(Error::InvalidInput(format!(
                "a patch was given for {path}, which is not a text file"
            )));
        }
        (None, Some(b), Some(a)) => Some(patch::create(b, a, 3)),
        (None, _, _) => None,
    };
    let before = match (&c.before, &before_hash) {
        (Some(bytes), Some(hash)) => {
            blobs.push(Write::PutBlob {
                hash: hash.clone(),
                bytes: bytes.clone(),
                base: None,
            });
            Some(version(bytes, hash, c.before_mode))
        }
        _ => None,
    };
    let after = match (&c.after, &after_hash) {
        (Some(bytes), Some(hash)) => {
            // The new version is most like the one it replaced: a store may keep it as a delta.
            blobs.push(Write::PutBlob {
                hash: hash.clone(),
                bytes: bytes.clone(),
                base: before_hash.filter(|b| b != hash),
            });
            Some(version(bytes, hash, c.after_mode))
        }
        _ => None,
    };
    Ok(FileChange {
        path,
        before,
        after,
        patch,
        capture: Capture::Captured,
    })
}
