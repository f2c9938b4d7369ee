//! Opening the native engine, with exactly the rights the caller needs.
//!
//! * [`Access::Read`] opens the database read-only and never writes anything, anywhere: no
//!   recovery, no migration, no new files (a missing store reads as an empty one). A store that
//!   came from elsewhere, or that this user may not write, still reads.
//! * [`Access::Record`] writes records; before that it settles journals whose owner is gone
//!   (only when it can take the apply lock, and only for a trusted store).
//! * [`Access::Rewrite`] and [`Access::Maintain`] hold the apply lock for the engine's whole
//!   life, so they plan and apply without another process's apply in between. `Rewrite` writes
//!   the workspace and so refuses a foreign store ([`OpenError::Untrusted`]).
//!
//! The records live in the SQLite file `db`, or in a PostgreSQL database
//! ([`open_store_with`] with a `postgres://` URL); the rules are the same. With PostgreSQL,
//! `db` still names where the workspace's own files are (`config.json`, the current session,
//! the workspace id file): `<workspace>/.rewind/` unless `--db` says otherwise.

use super::AnyStore;
use super::trust::{self, Trust};
use super::{NativeEngine, NativeWorkspace, RandomIds, SystemClock};
use crate::config::Config;
use crate::disk::DiskWorkspace;
use crate::sqlite::{LOCK_TIMEOUT, SqliteStore};
use rewind_core::recover;
use rewind_core::{Engine, ErrorKind, HostError, HostErrorKind};
use std::path::{Path, PathBuf};

/// What the caller will do with the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Only read: nothing is written to the store or the workspace.
    Read,
    /// Record into the store (settling dead journals first).
    #[default]
    Record,
    /// Rewrite workspace files (apply, undo, both, a restoring fork, recover): holds the apply
    /// lock and needs a trusted store.
    Rewrite,
    /// Change the store under the apply lock without writing the workspace (gc).
    Maintain,
}

/// How to open.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// The rights needed.
    pub access: Access,
    /// Limits and protections from `config.json`.
    pub config: Config,
}

/// An opened engine and what opening found.
#[derive(Debug)]
pub struct Opened {
    /// The engine.
    pub engine: NativeEngine,
    /// Journals settled on open (or found live or stuck).
    pub recovered: recover::Outcome,
    /// Whether the store may act on this workspace.
    pub trust: Trust,
    /// Things the person should know (stuck or unsettled journals), one sentence each.
    pub warnings: Vec<String>,
}

/// `<workspace>/.rewind/rewind.db`.
pub fn default_db_path(workspace: &Path) -> PathBuf {
    workspace.join(".rewind").join("rewind.db")
}

/// Why the native engine could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The workspace directory is unusable.
    #[error("{source}")]
    Workspace {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: HostError,
    },
    /// The database cannot be opened or created.
    #[error("{source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// Why.
        source: HostError,
    },
    /// The store is not trusted for this workspace, and the command would write files.
    #[error(
        "not writing files on the word of this store: {0}. If it is yours, run `rewind trust` \
         in this workspace first"
    )]
    Untrusted(String),
    /// `config.json` beside the database cannot be read.
    #[error("{0}")]
    Config(HostError),
    /// Settling a crashed apply failed; nothing else was done.
    #[error("recovering an interrupted apply failed: {0}")]
    Recover(#[from] recover::Error),
}

impl OpenError {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Workspace { source, .. }
            | Self::Database { source, .. }
            | Self::Config(source) => source.error_kind(),
            Self::Untrusted(_) => ErrorKind::Untrusted,
            Self::Recover(e) => e.kind(),
        }
    }
}

/// Open for recording (see [`Access::Record`]), with default settings, returning what recovery
/// settled.
pub fn open(
    workspace_dir: &Path,
    db_path: &Path,
) -> Result<(NativeEngine, recover::Outcome), OpenError> {
    let opened = open_with(workspace_dir, db_path, OpenOptions::default())?;
    Ok((opened.engine, opened.recovered))
}

/// Open the workspace and the database with the given rights; see the module docs.
pub fn open_with(
    workspace_dir: &Path,
    db_path: &Path,
    opts: OpenOptions,
) -> Result<Opened, OpenError> {
    open_store_with(workspace_dir, db_path, None, opts)
}

/// Whether `store` names a PostgreSQL database (what `--store` / `REWIND_STORE` take).
pub fn is_postgres_url(store: &str) -> bool {
    store.starts_with("postgres://") || store.starts_with("postgresql://")
}

/// [`open_with`] on the PostgreSQL database `url` names, when given (see the module docs).
pub fn open_store_with(
    workspace_dir: &Path,
    db_path: &Path,
    url: Option<&str>,
    opts: OpenOptions,
) -> Result<Opened, OpenError> {
    let disk = DiskWorkspace::open(workspace_dir).map_err(|source| OpenError::Workspace {
        path: workspace_dir.to_path_buf(),
        source,
    })?;
    let db_err = |source| OpenError::Database {
        path: db_path.to_path_buf(),
        source,
    };
    let root = disk.root().to_path_buf();
    let disk = protect_store(disk, db_path)
        .allow_git_writes(opts.config.allow_git_writes)
        .track_ignored_files(opts.config.ignored_files_cap())
        .watch_changes(opts.config.watching());
    if opts.access == Access::Read {
        let found: Option<AnyStore> = match url {
            Some(url) => AnyStore::open_postgres_read_only(url).map_err(db_err)?,
            None if db_path.exists() => {
                Some(SqliteStore::open_read_only(db_path).map_err(db_err)?.into())
            }
            None => None,
        };
        let store = match found {
            Some(mut store) => {
                store.set_blob_limit(opts.config.max_file_bytes);
                store
            }
            // Nothing recorded yet reads as an empty store; creating one would be a write.
            None => SqliteStore::open_in_memory().map_err(db_err)?.into(),
        };
        let trust = trust::check(&store, &root, db_path).map_err(db_err)?;
        let workspace = NativeWorkspace::new(disk)
            .refusing_writes(HostErrorKind::Untrusted, "this command only reads");
        let engine =
            Engine::new(store, workspace, SystemClock, RandomIds).with_limits(opts.config.limits());
        return Ok(Opened {
            engine,
            recovered: recover::Outcome::default(),
            trust,
            warnings: Vec::new(),
        });
    }
    let existed = url.is_none() && db_path.exists();
    prepare_store_dir(db_path).map_err(db_err)?;
    let mut store: AnyStore = match url {
        Some(url) => AnyStore::open_postgres(url).map_err(db_err)?,
        None => SqliteStore::open(db_path).map_err(db_err)?.into(),
    };
    store.set_blob_limit(opts.config.max_file_bytes);
    if !existed || is_blank(&store).map_err(db_err)? {
        trust::claim(&mut store, &root, db_path).map_err(db_err)?;
    }
    let trust = trust::check(&store, &root, db_path).map_err(db_err)?;
    let mut workspace = NativeWorkspace::new(disk);
    if let Trust::Foreign(why) = &trust {
        if opts.access == Access::Rewrite {
            return Err(OpenError::Untrusted(why.clone()));
        }
        workspace = workspace.refusing_writes(HostErrorKind::Untrusted, why.clone());
    }
    if matches!(opts.access, Access::Rewrite | Access::Maintain) {
        store.hold_apply_lock(LOCK_TIMEOUT).map_err(db_err)?;
    }
    let mut engine =
        Engine::new(store, workspace, SystemClock, RandomIds).with_limits(opts.config.limits());
    let (recovered, warnings) = match &trust {
        Trust::Owned => settle_dead(&mut engine)?,
        Trust::Foreign(why) => untrusted_journals(&engine, why),
    };
    Ok(Opened {
        engine,
        recovered,
        trust,
        warnings,
    })
}

/// Never let a rewind touch the database, its lock, WAL and id files or the current-session
/// pointer, wherever they live.
fn protect_store(disk: DiskWorkspace, db: &Path) -> DiskWorkspace {
    let dir = db.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    // A database in the root, or in a directory above it (`--db ~/rewind.db` for `~/project`),
    // shares its directory with the workspace: protect its own files, not the whole directory.
    let holds_root = std::fs::canonicalize(&dir)
        .ok()
        .is_some_and(|d| disk.root().starts_with(d));
    if !holds_root {
        return disk.protect(&dir);
    }
    let name = db
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    ["", "-wal", "-shm", "-journal", ".lock", ".workspace"]
        .iter()
        .fold(disk, |d, suffix| {
            d.protect(&dir.join(format!("{name}{suffix}")))
        })
        .protect(&crate::current::path_for(db))
}

/// Create the store's directory on first use, with a `.gitignore` so that it is never checked in
/// by accident.
fn prepare_store_dir(db: &Path) -> Result<(), HostError> {
    let Some(dir) = db.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| crate::disk::file_error("cannot create", dir, e))?;
    let ignore = dir.join(".gitignore");
    crate::disk::write_own_file(&ignore, b"# rewind's store: never checked in\n*\n")
}

/// A store with no records and no owner (made by a bare `SqliteStore::open`, or a fresh
/// PostgreSQL database) can be claimed: nothing in it can act on the workspace.
fn is_blank(store: &AnyStore) -> Result<bool, HostError> {
    use rewind_core::ports::Store;
    Ok(store.info("workspace_id")?.is_none()
        && store.sessions()?.is_empty()
        && store.journals()?.is_empty())
}

/// Settle journals whose owner is gone, with the temp files their writes left behind.
fn settle_dead(engine: &mut NativeEngine) -> Result<(recover::Outcome, Vec<String>), OpenError> {
    use rewind_core::ports::StoreWrite;
    let store_err = |source| OpenError::Recover(recover::Error::Store(source));
    // A crash between writing a temp file and renaming it leaves the temp file behind; the
    // journal names every path an apply was writing, so clean beside exactly those, and only
    // while no live apply can be writing them (the lock is ours).
    if engine.store_mut().begin_settling().map_err(store_err)?
        && let Ok(journals) = rewind_core::load::journals(engine.store())
    {
        for entry in journals.items.iter().flat_map(|j| &j.entries) {
            // A path that no longer resolves inside the root has nothing of ours beside it.
            let _ = engine.workspace().disk().sweep_temp_files(&entry.path);
        }
    }
    engine.store_mut().end_settling();
    // `recover` asks the store again itself, journal by journal.
    let outcome = engine.recover(None)?;
    let warnings = outcome.stuck.iter().map(describe_stuck).collect();
    Ok((outcome, warnings))
}

/// A foreign store's pending journals are left alone and named.
fn untrusted_journals(engine: &NativeEngine, why: &str) -> (recover::Outcome, Vec<String>) {
    let journals = rewind_core::load::journals(engine.store())
        .map(|d| d.items)
        .unwrap_or_default();
    let warnings = if journals.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "{} interrupted apply(s) in this store were not settled, because {why}; run \
             `rewind trust` if the store is yours",
            journals.len()
        )]
    };
    (recover::Outcome::default(), warnings)
}

/// A stuck journal and the way out, in one sentence.
pub fn describe_stuck(s: &recover::Stuck) -> String {
    let at = s
        .path
        .as_ref()
        .map(|p| format!(" at {p}"))
        .unwrap_or_default();
    format!(
        "journal {} of session {} is stuck{at}: {}; fix the path and run `rewind recover` again, \
         or `rewind recover --abandon {}` to leave its files as they are",
        s.journal_id, s.session_id, s.reason, s.journal_id
    )
}
