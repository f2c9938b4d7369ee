//! Store ownership, in the spirit of git's `safe.directory`: a store records which workspace it
//! belongs to (a random workspace id, kept in the store and in a file beside it, and the
//! canonical root) and which user made it. A store opened for another root, whose id file does
//! not match, or owned by another user, is foreign: it still reads, but nothing is written to the
//! workspace on its word until the person trusts it (`rewind trust`).
//!
//! A PostgreSQL store follows the same rules with two differences: its id file is
//! `<db>.postgres-workspace` (so that a workspace with a SQLite store as well keeps both), and
//! there is no database file whose owner could be compared: who may use the database is the
//! server's access control, and the user check here is the `trusted_uids` list alone.

use super::AnyStore;
use crate::sqlite::SqliteStore;
use rewind_core::HostError;
use serde::Serialize;
use std::path::{Path, PathBuf};

const WORKSPACE_ID: &str = "workspace_id";
const ROOT: &str = "root";
const OWNER_UID: &str = "owner_uid";
const TRUSTED_UIDS: &str = "trusted_uids";

/// Whether the workspace may be written on this store's word.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "trust", content = "why")]
pub enum Trust {
    /// Made here, by this user (or trusted by them).
    Owned,
    /// Came from elsewhere; the reason, in words.
    Foreign(String),
}

impl Trust {
    /// Whether this is [`Trust::Owned`].
    pub fn is_owned(&self) -> bool {
        matches!(self, Self::Owned)
    }
}

/// `<db>.workspace` (`<db>.postgres-workspace` for a PostgreSQL store): the workspace id,
/// beside the store (or where its file would be).
fn id_file(store: &AnyStore, db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(match store.is_postgres() {
        true => ".postgres-workspace",
        false => ".workspace",
    });
    db.with_file_name(name)
}

/// The uid owning the store's file; none for PostgreSQL (see the module docs).
fn store_uid(store: &AnyStore, db: &Path) -> Option<u32> {
    match store.is_postgres() {
        true => None,
        false => file_uid(db),
    }
}

#[cfg(unix)]
fn current_uid() -> Option<u32> {
    Some(rustix::process::geteuid().as_raw())
}

#[cfg(not(unix))]
fn current_uid() -> Option<u32> {
    None
}

#[cfg(unix)]
fn file_uid(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| m.uid())
}

#[cfg(not(unix))]
fn file_uid(_: &Path) -> Option<u32> {
    None
}

fn root_text(root: &Path) -> String {
    root.to_string_lossy().into_owned()
}

/// Judge a store opened for the canonical `root`.
pub(super) fn check(store: &AnyStore, root: &Path, db: &Path) -> Result<Trust, HostError> {
    let Some(id) = store.info(WORKSPACE_ID)? else {
        return Ok(Trust::Foreign(
            "the store does not say which workspace it belongs to (it was made by an older \
             rewind, or elsewhere)"
                .into(),
        ));
    };
    let recorded = store.info(ROOT)?.unwrap_or_default();
    if recorded != root_text(root) {
        return Ok(Trust::Foreign(format!(
            "the store was made for {recorded}, not {}",
            root.display()
        )));
    }
    let beside = std::fs::read_to_string(id_file(store, db)).unwrap_or_default();
    if beside.trim() != id {
        return Ok(Trust::Foreign(format!(
            "the workspace id in {} is missing or does not match the store's",
            id_file(store, db).display()
        )));
    }
    if let (Some(me), Some(owner)) = (current_uid(), store_uid(store, db)) {
        let trusted = store.info(TRUSTED_UIDS)?.unwrap_or_default();
        let listed = trusted.split(',').any(|u| u == me.to_string());
        if owner != me && !listed {
            return Ok(Trust::Foreign(format!(
                "the store belongs to user {owner}, not to you (user {me})"
            )));
        }
    }
    Ok(Trust::Owned)
}

/// Record that this store belongs to `root` and to the current user: a new store, or one the
/// person has just said to trust. Returns the workspace id.
pub(super) fn claim(store: &mut AnyStore, root: &Path, db: &Path) -> Result<String, HostError> {
    let known = store.info(WORKSPACE_ID)?;
    let id = match &known {
        Some(id) => id.clone(),
        None => format!("wsp_{}", uuid::Uuid::new_v4().simple()),
    };
    let listed = store.info(TRUSTED_UIDS)?;
    let mut uids: Vec<String> = listed
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .filter(|u| !u.is_empty())
        .map(str::to_owned)
        .collect();
    if let Some(me) = current_uid().map(|u| u.to_string())
        && !uids.contains(&me)
    {
        uids.push(me);
    }
    let owner = store_uid(store, db)
        .or_else(current_uid)
        .map(|u| u.to_string())
        .unwrap_or_default();
    let root = root_text(root);
    let uids = uids.join(",");
    // Only what changes is written: a PostgreSQL store is claimed on every writing open, and
    // one that finds its facts already true must commit nothing (nor touch the id file).
    let mut facts = Vec::new();
    if known.as_deref() != Some(id.as_str()) {
        facts.push((WORKSPACE_ID, id.as_str()));
    }
    if store.info(ROOT)?.as_deref() != Some(root.as_str()) {
        facts.push((ROOT, root.as_str()));
    }
    if listed.as_deref() != Some(uids.as_str()) {
        facts.push((TRUSTED_UIDS, uids.as_str()));
    }
    if store.info(OWNER_UID)?.is_none() {
        facts.push((OWNER_UID, owner.as_str()));
    }
    if !facts.is_empty() {
        store.set_info(&facts)?;
    }
    let beside = id_file(store, db);
    let line = format!("{id}\n");
    if std::fs::read_to_string(&beside).ok().as_deref() != Some(line.as_str()) {
        crate::disk::write_own_file(&beside, line.as_bytes())?;
    }
    Ok(id)
}

/// Trust the store at `db` for the workspace at `workspace_dir`, as the current user: from now on
/// it acts on this workspace like a store made here. Returns how it was judged before.
pub fn trust_store(workspace_dir: &Path, db: &Path) -> Result<Trust, HostError> {
    trust_store_in(workspace_dir, db, None)
}

/// [`trust_store`] for the store `url` names (PostgreSQL) when given; `db` is then where the
/// workspace's own files are (`<workspace>/.rewind/rewind.db`, see `open_store_with`).
pub fn trust_store_in(
    workspace_dir: &Path,
    db: &Path,
    url: Option<&str>,
) -> Result<Trust, HostError> {
    let root = std::fs::canonicalize(workspace_dir).map_err(|e| {
        HostError::io(format!(
            "workspace root {} cannot be resolved: {e}",
            workspace_dir.display()
        ))
    })?;
    let mut store: AnyStore = match url {
        Some(url) => AnyStore::open_postgres(url)?,
        None if !db.exists() => {
            return Err(HostError::io(format!(
                "there is no rewind store at {}",
                db.display()
            )));
        }
        None => SqliteStore::open(db)?.into(),
    };
    let before = check(&store, &root, db)?;
    claim(&mut store, &root, db)?;
    Ok(before)
}
