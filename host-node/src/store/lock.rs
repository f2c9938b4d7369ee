//! The apply lock: exclusive, held by every process for the whole life of each journal it
//! writes, and let go by the system when the process dies (SQLite: an `flock` on a file beside
//! the database, [`FileLock`]; PostgreSQL: a session-level advisory lock, which the server
//! drops with the connection). So "the lock is free" proves that no journal in the store has a
//! live owner, and `recover` settles journals only while it holds the lock itself.
//!
//! The lock is taken implicitly by the commit that writes a journal and let go by the commit
//! that clears the last one, or held on purpose for longer (a CLI command that plans and applies
//! under it, so two applies never plan from the same state). [`ApplyLock`] keeps those rules
//! once; an [`Exclusive`] is only the thing taken.

use rewind_core::batch::{Batch, Write};
use rewind_core::{HostError, HostErrorKind};
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a writer waits for another process's apply before giving up.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// Something only one process (connection) holds at a time, released when it dies.
pub(crate) trait Exclusive {
    /// Take it without waiting: `false` when someone else holds it. Never called while held.
    fn try_acquire(&mut self) -> Result<bool, HostError>;
    /// Let go of it (only called while held).
    fn release(&mut self);
    /// What it is, for the message of a writer that gave up waiting ("it holds …").
    fn describe(&self) -> String;
}

/// `<db>.lock`, flocked.
#[derive(Debug)]
pub(crate) struct FileLock {
    path: PathBuf,
    file: Option<File>,
}

impl FileLock {
    /// The lock file of the database at `db`.
    pub(crate) fn beside(db: &Path) -> Self {
        let mut name = db.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        Self {
            path: db.with_file_name(name),
            file: None,
        }
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
}

impl Exclusive for FileLock {
    fn try_acquire(&mut self) -> Result<bool, HostError> {
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

    fn release(&mut self) {
        // Closing the file releases the lock.
        self.file = None;
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

#[derive(Debug)]
pub(crate) struct ApplyLock<L> {
    lock: L,
    held: bool,
    /// Held on purpose (until [`ApplyLock::unpin`]), not only for journals.
    pinned: bool,
    /// Held while settling (`begin_settling` .. `end_settling`).
    settling: bool,
    /// Journals this store wrote and has not cleared yet.
    own: BTreeSet<String>,
}

impl<L: Exclusive> ApplyLock<L> {
    pub(crate) fn new(lock: L) -> Self {
        Self {
            lock,
            held: false,
            pinned: false,
            settling: false,
            own: BTreeSet::new(),
        }
    }

    /// Take the lock without waiting; `false` when another process holds it.
    pub(crate) fn try_take(&mut self) -> Result<bool, HostError> {
        if !self.held {
            self.held = self.lock.try_acquire()?;
        }
        Ok(self.held)
    }

    /// Take the lock, waiting up to `timeout` for another process to let go.
    pub(crate) fn take(&mut self, timeout: Duration) -> Result<(), HostError> {
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_millis(2);
        while !self.try_take()? {
            if Instant::now() >= deadline {
                return Err(HostError::new(
                    HostErrorKind::Busy,
                    format!(
                        "another rewind process is applying changes to this workspace (it holds \
                         {}); waited {} s, try again when it ends",
                        self.lock.describe(),
                        timeout.as_secs()
                    ),
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
        Ok(())
    }

    pub(crate) fn pin(&mut self, timeout: Duration) -> Result<(), HostError> {
        self.take(timeout)?;
        self.pinned = true;
        Ok(())
    }

    pub(crate) fn unpin(&mut self) {
        self.pinned = false;
        self.release_if_idle();
    }

    pub(crate) fn begin_settling(&mut self) -> Result<bool, HostError> {
        let got = self.try_take()?;
        self.settling = got;
        Ok(got)
    }

    pub(crate) fn end_settling(&mut self) {
        self.settling = false;
        self.release_if_idle();
    }

    /// A journal this store committed.
    fn wrote(&mut self, journal: &str) {
        self.own.insert(journal.to_owned());
    }

    /// A journal this store's commit cleared.
    fn cleared(&mut self, journal: &str) {
        self.own.remove(journal);
    }

    /// Run `commit` (the store's transaction for `batch`) under the lock's rules: a journal is
    /// only ever written under the apply lock (so a free lock proves its owner is gone), and
    /// the lock is let go once this store has no journal pending and nobody pinned it.
    pub(crate) fn guard_commit(
        &mut self,
        batch: &Batch,
        commit: impl FnOnce() -> Result<(), HostError>,
    ) -> Result<(), HostError> {
        let writes_journal = batch
            .writes
            .iter()
            .any(|w| matches!(w, Write::PutJournal { .. }));
        if writes_journal {
            self.take(LOCK_TIMEOUT)?;
        }
        let result = commit();
        // A commit in doubt that would have cleared a journal ends this process's hold on it
        // just the same: the apply has given up and will not touch it again, so the journal
        // (if it is still there) has no live owner and `recover` may settle it, here or in
        // any other process. Holding the lock for it would stall every other apply.
        let in_doubt = result.as_ref().is_err_and(HostError::is_in_doubt);
        for w in &batch.writes {
            match w {
                Write::PutJournal { journal, .. } if result.is_ok() => {
                    self.wrote(journal.as_str());
                }
                Write::RemoveJournal { journal } if result.is_ok() || in_doubt => {
                    self.cleared(journal.as_str());
                }
                _ => {}
            }
        }
        self.release_if_idle();
        result
    }

    pub(crate) fn release_if_idle(&mut self) {
        if self.held && !self.pinned && !self.settling && self.own.is_empty() {
            self.lock.release();
            self.held = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ApplyLock, Exclusive};
    use rewind_core::batch::{Batch, Write};
    use rewind_core::id::{JournalId, SessionId};
    use rewind_core::{HostError, HostErrorKind};
    use std::cell::Cell;
    use std::rc::Rc;

    /// A lock that only counts whether it is held.
    struct Flag(Rc<Cell<bool>>);

    impl Exclusive for Flag {
        fn try_acquire(&mut self) -> Result<bool, HostError> {
            self.0.set(true);
            Ok(true)
        }
        fn release(&mut self) {
            self.0.set(false);
        }
        fn describe(&self) -> String {
            "a flag".into()
        }
    }

    fn journal() -> JournalId {
        JournalId::parse("jnl_x").expect("valid")
    }

    fn batch(w: Write) -> Batch {
        let mut b = Batch::new();
        b.push(w);
        b
    }

    #[test]
    fn a_journal_cleared_in_doubt_no_longer_holds_the_lock() {
        for (result, held_after) in [(HostErrorKind::Io, true), (HostErrorKind::InDoubt, false)] {
            let held = Rc::new(Cell::new(false));
            let mut lock = ApplyLock::new(Flag(Rc::clone(&held)));
            let put = batch(Write::PutJournal {
                journal: journal(),
                session: SessionId::parse("ses_x").expect("valid"),
                body: "{}".into(),
            });
            lock.guard_commit(&put, || Ok(())).expect("journal");
            assert!(held.get(), "held for the pending journal");
            let clear = batch(Write::RemoveJournal { journal: journal() });
            let failed = lock.guard_commit(&clear, || Err(HostError::new(result, "lost")));
            assert!(failed.is_err());
            assert_eq!(held.get(), held_after, "{result:?}");
        }
    }
}
