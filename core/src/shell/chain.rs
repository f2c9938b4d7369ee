//! Where snapshots live: a session's latest one is a small row naming its manifest blob; a
//! manifest is a full list or a delta naming the manifest before it, at most `MAX_DEPTH` deep.

use super::Error;
use super::manifest::{Manifest, Stored};
use crate::batch::Write;
use crate::hash::ContentHash;
use crate::id::SessionId;
use crate::load;
use crate::model::WorkspaceSnapshot;
use crate::ports::Store;

fn corrupt(session: &SessionId, reason: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        session: session.clone(),
        reason: reason.to_string(),
    }
}

/// The session's latest snapshot row, decoded.
pub(crate) fn head(
    store: &dyn Store,
    session: &SessionId,
) -> Result<Option<WorkspaceSnapshot>, Error> {
    let Some(row) = store.workspace_snapshot(session).map_err(Error::Store)? else {
        return Ok(None);
    };
    serde_json::from_str(&row.body)
        .map(Some)
        .map_err(|e| corrupt(session, e))
}

/// The manifest `hash` names, rebuilt from its chain, and the chain's blob hashes (newest
/// first).
pub(crate) fn load_manifest(
    store: &dyn Store,
    session: &SessionId,
    hash: &ContentHash,
) -> Result<(Manifest, Vec<ContentHash>), Error> {
    let mut chain = vec![hash.clone()];
    let mut links = Vec::new();
    loop {
        let at = chain.last().expect("never empty");
        let bytes = load::blob(store, at).map_err(|e| match e {
            load::BlobError::Host(e) => Error::Store(e),
            e => corrupt(session, e),
        })?;
        let stored = Stored::decode(&bytes).map_err(|e| corrupt(session, e))?;
        let base = stored.base.as_ref().map(|(h, _)| h.clone());
        links.push(stored);
        match base {
            Some(b) if chain.len() <= super::manifest::MAX_DEPTH as usize + 1 => chain.push(b),
            Some(_) => return Err(corrupt(session, "manifest chain is too long")),
            None => break,
        }
    }
    let mut manifest = Manifest::default();
    for link in links.into_iter().rev() {
        manifest.apply(link);
    }
    Ok((manifest, chain))
}

/// The newest snapshot any other session took in this store: a session's first snapshot uses
/// it as its stat cache, so a new session does not read the whole tree again.
pub(crate) fn stat_cache(store: &dyn Store, except: &SessionId) -> Result<Option<Manifest>, Error> {
    let mut newest: Option<WorkspaceSnapshot> = None;
    for row in store.sessions().map_err(Error::Store)? {
        let Ok(id) = SessionId::parse(&row.id) else {
            continue;
        };
        if &id == except {
            continue;
        }
        // Another session's damaged snapshot is no reason to fail this one: it is just no cache.
        if let Ok(Some(h)) = head(store, &id)
            && newest.as_ref().is_none_or(|n| h.taken_at > n.taken_at)
        {
            newest = Some(h);
        }
    }
    match newest {
        Some(h) => Ok(load_manifest(store, &h.session_id, &h.manifest)
            .ok()
            .map(|m| m.0)),
        None => Ok(None),
    }
}

/// The writes that store `manifest` after `prev` (the session's previous manifest and its
/// chain depth) and its hash.
pub(crate) fn store_manifest(
    manifest: &Manifest,
    prev: Option<(&Manifest, &ContentHash, u32)>,
) -> (Write, ContentHash, u32) {
    let stored = manifest.stored(prev);
    let depth = stored.depth();
    let bytes = stored.encode();
    let hash = ContentHash::of(&bytes);
    let write = Write::PutBlob {
        hash: hash.clone(),
        bytes,
        base: None,
    };
    (write, hash, depth)
}
