//! The native engine: SQLite store, disk workspace, the system clock and random ids, opened
//! together ([`open`]), with the rules that make it safe beside other processes and with stores
//! that came from elsewhere (see `open` and `trust`).

mod any;
mod locate;
mod open;
mod opener;
mod trust;
mod verb;

pub use locate::{Found, Location, holds_store, locate};
pub use open::{
    Access, OpenError, OpenOptions, Opened, default_db_path, describe_stuck, is_postgres_url, open,
    open_store_with, open_with,
};
pub use opener::Opener;
pub use trust::{Trust, trust_store, trust_store_in};
pub use verb::Verb;

use crate::disk::DiskWorkspace;
pub use any::AnyStore;
use rewind_core::model::Millis;
use rewind_core::path::WorkPath;
use rewind_core::ports::{Clock, IdSource, Workspace};
use rewind_core::{Engine, HostError, HostErrorKind};

/// Wall-clock milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> Millis {
        // Test-only (feature `crash-hook`): a fixed "now", so the CLI's text can be compared
        // byte for byte across runs.
        #[cfg(feature = "crash-hook")]
        if let Some(ms) = std::env::var("REWIND_TEST_NOW_MS")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            return ms;
        }
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
    /// Why this engine may not write the workspace (a read-only command, an untrusted store).
    refuse_writes: Option<(HostErrorKind, String)>,
    #[cfg(feature = "crash-hook")]
    hook: crash::Hook,
}

impl NativeWorkspace {
    /// Wrap a disk workspace.
    pub fn new(disk: DiskWorkspace) -> Self {
        Self {
            disk,
            refuse_writes: None,
            #[cfg(feature = "crash-hook")]
            hook: crash::Hook::from_env(),
        }
    }

    /// Refuse every write and removal with this reason; reads still work.
    #[must_use]
    pub fn refusing_writes(mut self, kind: HostErrorKind, why: impl Into<String>) -> Self {
        self.refuse_writes = Some((kind, why.into()));
        self
    }

    fn check_writable(&self, path: &WorkPath) -> Result<(), HostError> {
        match &self.refuse_writes {
            Some((kind, why)) => Err(HostError::new(*kind, format!("not writing {path}: {why}"))),
            None => Ok(()),
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
        self.check_writable(path)?;
        self.disk.write(path, bytes)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        self.disk.mode(path)
    }
    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        self.check_writable(path)?;
        self.disk.set_mode(path, mode)
    }
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check_writable(path)?;
        self.disk.remove(path)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn node(&mut self, path: &WorkPath) -> Result<Option<rewind_core::node::Node>, HostError> {
        self.disk.node(path)
    }
    fn make_dir(&mut self, path: &WorkPath, mode: Option<u32>) -> Result<(), HostError> {
        self.check_writable(path)?;
        self.disk.make_dir(path, mode)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn remove_dir(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check_writable(path)?;
        self.disk.remove_dir(path)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn remove_link(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check_writable(path)?;
        self.disk.remove_link(path)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn dir_entries(&mut self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        self.disk.dir_entries(path)
    }
    fn make_symlink(&mut self, path: &WorkPath, target: &[u8]) -> Result<(), HostError> {
        self.check_writable(path)?;
        self.disk.make_symlink(path, target)?;
        #[cfg(feature = "crash-hook")]
        self.hook.after_write();
        Ok(())
    }
    fn sync(&mut self) -> Result<(), HostError> {
        self.disk.sync()
    }
    // Listing only reads: an untrusted store may still take snapshots, whose commits its store
    // refuses on its own.
    fn scanner(&mut self) -> Option<&mut dyn rewind_core::ports::Scan> {
        self.disk.scanner()
    }
}

/// Test-only (feature `crash-hook`): `REWIND_TEST_STAGED_FAIL_AT=N` makes a staged write (an
/// import's, `rewind_core::mem::stage`) refuse its Nth commit and every later one, so a test can
/// fail an import part-way. Always `None` without the feature.
pub fn staged_fault() -> Option<u64> {
    #[cfg(feature = "crash-hook")]
    if let Some(n) = std::env::var("REWIND_TEST_STAGED_FAIL_AT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Some(n);
    }
    None
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
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "rewind-test: paused after write {}",
                    self.writes
                );
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
            }
        }
    }
}

/// The engine over SQLite or PostgreSQL ([`AnyStore`]) and the disk.
pub type NativeEngine = Engine<AnyStore, NativeWorkspace>;
