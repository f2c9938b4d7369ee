//! [`Opener`]: opening the native engine for one call, written once for every front end (the
//! CLI, `rewind hook`, `rewind serve`, the Node addon, the benchmarks): load `config.json`
//! beside the database, open with exactly the [`Access`] the call needs, and, for a caller
//! that opens again and again, keep one idle connection.
//!
//! Why the idle connection: the first connection to open a WAL database reads the whole WAL to
//! rebuild its index (the `-shm`), which every call would do when it is the only one (the last
//! to close no longer checkpoints, see `sqlite::schema::configure`, so the WAL is there). While
//! the kept one is open no call's connection is the first. It never reads or writes, so it holds
//! no lock that could block another process.

use super::{Access, OpenError, OpenOptions, Opened, open_store_with};
use crate::config::Config;
use crate::sqlite::SqliteStore;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A workspace and its store, opened per call (see the module docs).
#[derive(Debug)]
pub struct Opener {
    workspace: PathBuf,
    db: PathBuf,
    /// The PostgreSQL store the records live in instead of the SQLite file `db`.
    store: Option<String>,
    /// Whether to keep an idle connection once a call opened the store to write.
    keep_idle: bool,
    keeper: Mutex<Option<SqliteStore>>,
}

impl Opener {
    /// The workspace `workspace` with its database file `db` (where its own files are, also
    /// when the records are in PostgreSQL).
    pub fn new(workspace: impl Into<PathBuf>, db: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            db: db.into(),
            store: None,
            keep_idle: false,
            keeper: Mutex::new(None),
        }
    }

    /// Keep the records in the PostgreSQL store at `url` (a `postgres://` URL), when given.
    #[must_use]
    pub fn on_store(mut self, url: Option<String>) -> Self {
        self.store = url;
        self
    }

    /// Keep one idle connection from the first call that opens to write (SQLite only:
    /// PostgreSQL has no last-connection checkpoint to spare). For callers that open many
    /// times (a server, the Node addon); a one-shot CLI command has nothing to spare.
    #[must_use]
    pub fn keeping_idle(mut self) -> Self {
        self.keep_idle = true;
        self
    }

    /// The workspace root.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The database file.
    pub fn db(&self) -> &Path {
        &self.db
    }

    /// The PostgreSQL store, when the records are there.
    pub fn store(&self) -> Option<&str> {
        self.store.as_deref()
    }

    /// Load the config, then open with `access` (see `open_store_with`); what opening settled
    /// or found stuck is in the [`Opened`].
    pub fn open(&self, access: Access) -> Result<Opened, OpenError> {
        let config = Config::load(&self.db).map_err(OpenError::Config)?;
        let opts = OpenOptions { access, config };
        let opened = open_store_with(&self.workspace, &self.db, self.store.as_deref(), opts)?;
        if self.keep_idle && access != Access::Read && self.store.is_none() {
            self.keep();
        }
        Ok(opened)
    }

    /// Let go of the idle connection (the next writing call opens it again).
    pub fn release(&self) {
        if let Ok(mut keeper) = self.keeper.lock() {
            *keeper = None;
        }
    }

    fn keep(&self) {
        // A poisoned lock, or a store that will not open, only loses the speed-up.
        if let Ok(mut keeper) = self.keeper.lock()
            && keeper.is_none()
        {
            *keeper = SqliteStore::open(&self.db).ok();
        }
    }
}
