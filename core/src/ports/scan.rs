//! The optional capability behind shell capture: walk the workspace and report each file's stat
//! data, so a snapshot re-reads only the files whose stat data changed. Walking, ignore rules and
//! `stat` are host work; what a difference means is the core's (`shell`).

use crate::error::HostError;
use crate::hash::ContentHash;
use crate::path::WorkPath;

/// What a walked entry is. Regular files are read, links' targets are read (never followed),
/// directories are recorded with their mode; other entries are recorded as untracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A symbolic link (not followed: its target may lie outside the workspace).
    Symlink,
    /// A directory (its entries are listed as entries of their own).
    Dir,
    /// A socket, fifo or device.
    Other,
}

/// The stat data a snapshot compares to decide whether a file must be read again. Fields a host
/// does not have are `None` (a browser's virtual file system has no inodes) and compare equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stat {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (the host's clock).
    pub mtime_ns: i64,
    /// Status-change time, when the host has one (it moves on `chmod` and on replacement).
    pub ctime_ns: Option<i64>,
    /// The inode (or file id), when the host has one: a replaced file gets a new one.
    pub inode: Option<u64>,
    /// Permission bits (e.g. `0o755`), when the host has modes.
    pub mode: Option<u32>,
}

/// One walked entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanEntry {
    /// The path, relative to the workspace root with `/` separators.
    pub path: WorkPath,
    /// File, link or other.
    pub kind: EntryKind,
    /// Its stat data.
    pub stat: Stat,
}

/// A path the host saw but could not report (not UTF-8, unreadable directory, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unlisted {
    /// The path as well as the host can spell it.
    pub path: String,
    /// Why (`invalid_path`, `unreadable`, …).
    pub reason: String,
}

/// One walk of the workspace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Every tracked candidate: not ignored, not inside `.git/` or the store's own directory.
    pub entries: Vec<ScanEntry>,
    /// The host's clock when the walk began, on the clock file times are taken from: a file
    /// whose mtime is that close to it may change again within the same timestamp (racy), so
    /// the next snapshot reads it whatever its stat data says.
    pub started_ns: i64,
    /// Entries the host skipped, with why.
    pub unlisted: Vec<Unlisted>,
}

/// Walk and stat the workspace.
pub trait Scan {
    /// Walk the whole workspace, honouring the host's ignore rules.
    fn list(&mut self) -> Result<Listing, HostError>;
    /// One path's stat data whether ignored or not (`None`: it does not exist). A snapshot asks
    /// for the paths it tracked that the walk no longer lists: a tracked file stays tracked
    /// when an ignore rule starts to match it, as in git and jj.
    fn stat(&mut self, path: &WorkPath) -> Result<Option<ScanEntry>, HostError>;
    /// What a change journal says about the workspace since the snapshot whose manifest is
    /// `manifest` was taken (`None`: a first snapshot): `Some(paths)` when it vouches that
    /// nothing but those paths (or what lies under them) can have changed, `None` when it
    /// cannot (no journal, a gap in it): walk everything. Asked before every walk, so the host
    /// can take its journal's token for the walk that follows. Hosts without one say `None`.
    fn changed_since(&mut self, manifest: Option<&ContentHash>) -> Option<Vec<WorkPath>> {
        let _ = manifest;
        None
    }
    /// Walk only `scope`: each path, everything under it, and each directory on the way to
    /// one, with the same ignore rules as [`Scan::list`]. Asked after `changed_since` vouched.
    fn list_within(&mut self, scope: &[WorkPath]) -> Result<Listing, HostError> {
        let _ = scope;
        self.list()
    }
    /// The snapshot whose manifest is `manifest` was recorded (or found unchanged) by the walk
    /// that followed the last `changed_since`: the journal may vouch for it from then on.
    fn vouch(&mut self, manifest: &ContentHash) {
        let _ = manifest;
    }
}
