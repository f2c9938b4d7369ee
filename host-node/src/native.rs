//! The native engine: SQLite store, disk workspace, the system clock and random ids, opened
//! together. Opening settles any journal a crash left behind before anything else happens.

use crate::disk::DiskWorkspace;
use crate::sqlite::SqliteStore;
use rewind_core::model::Millis;
use rewind_core::path::WorkPath;
use rewind_core::ports::{Clock, IdSource, Workspace};
use rewind_core::recover;
use rewind_core::{Engine, ErrorKind, HostError};
use std::path::{Path, PathBuf};

/// Wall-clock milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> Millis {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Millis::try_from(since.as_millis()).unwrap_or(Millis::MAX)
    }
}

/// Random 128-bit id suffixes (UUID v4, hex), unique across processes sharing a database.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomIds;

impl IdSource for RandomIds {
    fn next_suffix(&mut self) -> String {
        uuid::Uuid::new_v4().simple().to_string()
    }
}

/// The disk workspace as the native engine uses it. With the test-only `crash-hook` feature it
/// can stop the process right after its Nth file write, so crash tests can kill it there.
#[derive(Debug)]
pub struct NativeWorkspace {
    disk: DiskWorkspace,
    #[cfg(feature = "crash-hook")]
    hook: crash::Hook,
}

impl NativeWorkspace {
    /// Wrap a disk workspace.
    pub fn new(disk: DiskWorkspace) -> Self {
        Self {
            disk,
            #[cfg(feature = "crash-hook")]
            hook: crash::Hook::from_env(),
        }
    }

    /// The disk workspace.
    pub fn disk(&self) -> &DiskWorkspace {
        &self.disk
    }
}

impl Workspace for NativeWorkspace {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        self.disk.read(path)
    }
    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        self.disk.write(path, bytes)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.disk.remove(path)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
}

#[cfg(feature = "crash-hook")]
mod crash {
    /// Pauses forever after the Nth write (REWIND_TEST_PAUSE_AFTER_WRITE=N), announcing it on
    /// stderr, so a test can SIGKILL the process at exactly that point.
    #[derive(Debug, Default)]
    pub(super) struct Hook {
        pause_after: Option<u64>,
        writes: u64,
    }

    impl Hook {
        pub(super) fn from_env() -> Self {
            let pause_after = std::env::var("REWIND_TEST_PAUSE_AFTER_WRITE")
                .ok()
                .and_then(|v| v.parse().ok());
            Self {
                pause_after,
                writes: 0,
            }
        }

        pub(super) fn after_write(&mut self) {
            self.writes += 1;
            if self.pause_after == Some(self.writes) {
                eprintln!("rewind-test: paused after write {}", self.writes);
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
            }
        }
    }
}

/// The engine over SQLite and the disk.
pub type NativeEngine = Engine<SqliteStore, NativeWorkspace>;

/// `<workspace>/.rewind/rewind.db`.
pub fn default_db_path(workspace: &Path) -> PathBuf {
    workspace.join(".rewind").join("rewind.db")
}

/// Why the native engine could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The workspace directory is unusable.
    #[error("cannot use workspace {path}: {source}")]
    Workspace {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: HostError,
    },
    /// The database cannot be opened or created.
    #[error("cannot open database {path}: {source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// Why.
        source: HostError,
    },
    /// Settling a crashed apply failed; nothing else was done.
    #[error("recovering an interrupted apply failed: {0}")]
    Recover(#[from] recover::Error),
}

impl OpenError {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Workspace { source, .. } | Self::Database { source, .. } => source.error_kind(),
            Self::Recover(e) => e.kind(),
        }
    }
}

/// Open the workspace and the database (creating its directory and file on first use) and run
/// `recover`, returning what it settled.
pub fn open(
    workspace_dir: &Path,
    db_path: &Path,
) -> Result<(NativeEngine, recover::Outcome), OpenError> {
    let disk = DiskWorkspace::open(workspace_dir).map_err(|source| OpenError::Workspace {
        path: workspace_dir.to_path_buf(),
        source,
    })?;
    let db_err = |source| OpenError::Database {
        path: db_path.to_path_buf(),
        source,
    };
    if let Some(parent) = db_path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            db_err(HostError::io(format!(
                "cannot create {}: {e}",
                parent.display()
            )))
        })?;
    }
    let store = SqliteStore::open(db_path).map_err(db_err)?;
    // A crash between writing a temp file and renaming it leaves the temp file behind; the
    // journal names every path an apply was writing, so clean beside exactly those.
    let journals =
        rewind_core::load::journals(&store).map_err(|e| db_err(HostError::io(e.to_string())))?;
    for entry in journals.items.iter().flat_map(|j| &j.entries) {
        // A path that no longer resolves inside the root has nothing of ours beside it.
        let _ = disk.sweep_temp_files(&entry.path);
    }
    let mut engine = Engine::new(store, NativeWorkspace::new(disk), SystemClock, RandomIds);
    let recovered = engine.recover(None)?;
    Ok((engine, recovered))
}
