//! The apply lock: an exclusive `flock` on a file beside the database, held by every process for
//! the whole life of each journal it writes. The kernel lets go when the process dies, so "the
//! lock is free" proves that no journal in the store has a live owner, and `recover` settles
//! journals only while it holds the lock itself.
//!
//! The lock is taken implicitly by the commit that writes a journal and let go by the commit
//! that clears the last one, or held on purpose for longer (a CLI command that plans and applies
//! under it, so two applies never plan from the same state).

use rewind_core::{HostError, HostErrorKind};
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a writer waits for another process's apply before giving up.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// `<db>.lock`.
pub(super) fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

#[derive(Debug)]
pub(super) struct ApplyLock {
    path: PathBuf,
    file: Option<File>,
    /// Held on purpose (until [`ApplyLock::unpin`]), not only for journals.
    pinned: bool,
    /// Held while settling (`begin_settling` .. `end_settling`).
    settling: bool,
    /// Journals this store wrote and has not cleared yet.
    own: BTreeSet<String>,
}

impl ApplyLock {
    pub(super) fn new(db: &Path) -> Self {
        Self {
            path: lock_path(db),
            file: None,
            pinned: false,
            settling: false,
            own: BTreeSet::new(),
        }
    }

    pub(super) fn held(&self) -> bool {
        self.file.is_some()
    }

    fn open(&self) -> Result<File, HostError> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.path)
            .map_err(|e| {
                HostError::io(format!(
                    "cannot open the lock file {}: {e}",
                    self.path.display()
                ))
                .with_source(e)
            })
    }

    /// Take the lock without waiting; `false` when another process holds it.
    pub(super) fn try_take(&mut self) -> Result<bool, HostError> {
        if self.held() {
            return Ok(true);
        }
        let file = self.open()?;
        match file.try_lock() {
            Ok(()) => {
                self.file = Some(file);
                Ok(true)
            }
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(HostError::io(format!(
                "cannot lock {}: {e}",
                self.path.display()
            ))),
        }
    }

    /// Take the lock, waiting up to `timeout` for another process to let go.
    pub(super) fn take(&mut self, timeout: Duration) -> Result<(), HostError> {
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_millis(2);
        while !self.try_take()? {
            if Instant::now() >= deadline {
                return Err(HostError::new(
                    HostErrorKind::Busy,
                    format!(
                        "another rewind process is applying changes to this workspace (it holds \
                         {}); waited {} s, try again when it ends",
                        self.path.display(),
                        timeout.as_secs()
                    ),
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
        Ok(())
    }

    pub(super) fn pin(&mut self, timeout: Duration) -> Result<(), HostError> {
        self.take(timeout)?;
        self.pinned = true;
        Ok(())
    }

    pub(super) fn unpin(&mut self) {
        self.pinned = false;
        self.release_if_idle();
    }

    pub(super) fn begin_settling(&mut self) -> Result<bool, HostError> {
        let got = self.try_take()?;
        self.settling = got;
        Ok(got)
    }

    pub(super) fn end_settling(&mut self) {
        self.settling = false;
        self.release_if_idle();
    }

    /// A journal this store committed.
    pub(super) fn wrote(&mut self, journal: &str) {
        self.own.insert(journal.to_owned());
    }

    /// A journal this store's commit cleared.
    pub(super) fn cleared(&mut self, journal: &str) {
        self.own.remove(journal);
    }

    pub(super) fn release_if_idle(&mut self) {
        if !self.pinned && !self.settling && self.own.is_empty() {
            // Closing the file releases the lock.
            self.file = None;
        }
    }
}
