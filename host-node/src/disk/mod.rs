//! The disk workspace: the files the agent works on, as real files under one root directory.
//!
//! Every operation walks the [`WorkPath`] one segment at a time from the canonical root, so a
//! symlink anywhere on the way is seen before anything is opened:
//!
//! - a symlink whose target lies outside the root is refused with
//!   [`HostErrorKind::InvalidPath`] for read, write and remove alike, naming where it leads;
//! - a symlink that stays inside the root is followed: reads and writes go to the file it names,
//!   so a write never turns the link into a regular file;
//! - a *dangling* symlink (its target does not exist) is never followed. Reading through it gives
//!   `None` and removing it is a no-op (there is no file), but writing through it is refused with
//!   `InvalidPath`: the file would appear at a place the path does not name, possibly outside the
//!   root, and telling which is racy when links chain. The user removes or fixes the link.
//! - paths through `.rewind/` at any depth (compared ignoring ASCII case for case-insensitive
//!   file systems), or reaching it through a link (every component a link resolves to is
//!   checked), are refused: a rewind must never touch the engine's own store. So are `.git`
//!   directories at any depth, unless [`DiskWorkspace::allow_git_writes`] says otherwise.
//!
//! `remove` unlinks the path's own entry (a link, never the file it names) and never a directory;
//! directories are made and removed (empty only) by the rewind's own steps (`nodes`).
//!
//! Writes are atomic replaces (see `atomic`). What they cannot keep: owner, extended attributes
//! and hard links of the replaced file (the new file is a new inode). Only the mode is copied.
//!
//! Without `openat`-style primitives in `std` (and with `unsafe` forbidden) a directory swapped
//! for a symlink *between* the walk and the open is not caught; the walk closes every window that
//! exists when the operation starts.

mod atomic;
mod entry;
mod identity;
mod lister;
mod mode;
mod nodes;
mod precious;
mod regular;
mod scan;
mod walk;
pub use identity::{FileId, file_id, gone_since};
pub use precious::IGNORED_FILE_MAX_BYTES;
pub use regular::{Bounded, kind_of, read_at_most, read_tail};
pub use scan::IGNORE_FILE;

use rewind_core::{HostError, HostErrorKind};
use rewind_core::{path::WorkPath, ports::Workspace};
use std::collections::BTreeSet;
use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use walk::Lookup;

/// The engine's own directory inside the workspace, never touched by a rewind.
const STORE_DIR: &str = ".rewind";
/// Git's directory: refused unless the configuration allows it.
const GIT_DIR: &str = ".git";

/// Real files under a canonical root directory; see the module docs for the symlink rules.
#[derive(Clone, Debug)]
pub struct DiskWorkspace {
    root: PathBuf,
    store: PathBuf,
    /// More places a rewind never touches (a database kept inside the root elsewhere).
    protected: Vec<PathBuf>,
    allow_git: bool,
    /// The size cap of the ignored files a snapshot tracks; `None`: it tracks none.
    ignored_file_max: Option<u64>,
    /// Directories changed since the last [`Workspace::sync`] (a 50-file apply syncs each once).
    unsynced: BTreeSet<PathBuf>,
    /// The change journal asked before each walk, when watching is on (`scan`).
    journal: Option<scan::Journal>,
}

impl DiskWorkspace {
    /// Open the workspace at `root`, which must be an existing directory. The root is stored in
    /// canonical form, so symlinks in the root's own path are resolved once, here.
    pub fn open(root: &Path) -> Result<Self, HostError> {
        let shown = root.display();
        let meta = fs::metadata(root).map_err(|e| {
            let why = if e.kind() == io::ErrorKind::NotFound {
                "does not exist".to_owned()
            } else {
                format!("cannot be opened: {e}")
            };
            HostError::io(format!("workspace root {shown} {why}")).with_source(e)
        })?;
        if !meta.is_dir() {
            return Err(HostError::io(format!(
                "workspace root {shown} is not a directory"
            )));
        }
        let root = fs::canonicalize(root).map_err(|e| {
            HostError::io(format!("workspace root {shown} cannot be resolved: {e}")).with_source(e)
        })?;
        let store = root.join(STORE_DIR);
        Ok(Self {
            protected: vec![store.clone()],
            root,
            store,
            allow_git: false,
            ignored_file_max: Some(IGNORED_FILE_MAX_BYTES),
            unsynced: BTreeSet::new(),
            journal: None,
        })
    }

    /// Never touch `dir` (or anything under it) either, e.g. the directory of a database kept
    /// inside the workspace somewhere other than `.rewind/`.
    #[must_use]
    pub fn protect(mut self, dir: &Path) -> Self {
        let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if dir != self.root {
            self.protected.push(dir);
        }
        self
    }

    /// Allow paths inside `.git` directories (refused by default).
    #[must_use]
    pub fn allow_git_writes(mut self, allow: bool) -> Self {
        self.allow_git = allow;
        self
    }

    /// Track ignored files in walked directories up to `cap` bytes (`None`: track none).
    #[must_use]
    pub fn track_ignored_files(mut self, cap: Option<u64>) -> Self {
        self.ignored_file_max = cap;
        self
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Remove temp files an interrupted write left beside `path` (only this engine's own
    /// `.<name>.rewind-*.tmp` files). Run for every journaled path before recovery.
    pub fn sweep_temp_files(&self, path: &WorkPath) -> Result<usize, HostError> {
        let real = self.resolve(path)?;
        atomic::sweep_temp_files(&real)
            .map_err(|e| HostError::io(format!("cannot clean temp files beside {path}: {e}")))
    }

    /// The file at `path` if it is a regular file of at most `cap` bytes (`None`: nothing is
    /// there). Opened without blocking and checked on the open file, so a FIFO or device put
    /// there after the walk is never read (see `regular`).
    pub fn read_at_most(&self, path: &WorkPath, cap: u64) -> Result<Option<Bounded>, HostError> {
        let (disk, meta) = match self.walk(path, None)? {
            Lookup::Entry { entry, meta } => (entry, meta),
            Lookup::Link { real, meta, .. } => (real, meta),
            Lookup::Missing { .. } | Lookup::Dangling { .. } => return Ok(None),
        };
        // Checked before opening too: a FIFO or device already there is never opened.
        if !meta.is_file() {
            return Ok(Some(Bounded::NotRegular(kind_of(&meta))));
        }
        // The walk resolved every link: one appearing now at the last component is not followed.
        match regular::read_at_most(&disk, cap, false) {
            Ok(found) => Ok(Some(found)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error("cannot read", path, &disk, e)),
        }
    }

    /// The real path `path` leads to inside the root, with symlinks inside the root resolved.
    /// The file need not exist. A symlink leading outside the root, a dangling symlink, or the
    /// engine's store directory is an [`HostErrorKind::InvalidPath`] error.
    pub fn resolve(&self, path: &WorkPath) -> Result<PathBuf, HostError> {
        match self.walk(path, None)? {
            Lookup::Entry { entry, .. } | Lookup::Missing { entry, .. } => Ok(entry),
            Lookup::Link { real, .. } => Ok(real),
            Lookup::Dangling { link, target } => Err(dangling(path, &link, &target)),
        }
    }
}

impl Workspace for DiskWorkspace {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        match self.read_at_most(path, u64::MAX)? {
            None => Ok(None),
            Some(Bounded::Bytes { bytes, .. }) => Ok(Some(bytes)),
            Some(Bounded::TooLarge(size)) => Err(HostError::io(format!(
                "cannot read {path}: {size} bytes do not fit in memory"
            ))),
            Some(Bounded::NotRegular(what)) => Err(HostError::io(format!(
                "cannot read {path}: it is {what}, not a regular file"
            ))),
        }
    }

    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        let mut created = Vec::new();
        match self.write_inner(path, bytes, &mut created) {
            Ok(dir) => {
                // A directory made on the way is an entry of its parent.
                let parents = created
                    .iter()
                    .filter_map(|d| d.parent().map(Path::to_path_buf));
                self.unsynced.extend(parents);
                self.unsynced.insert(dir);
                Ok(())
            }
            Err(e) => {
                // A failed write changes nothing, including the parent directories it made.
                for dir in created.iter().rev() {
                    let _ = fs::remove_dir(dir);
                }
                Err(e)
            }
        }
    }

    fn sync(&mut self) -> Result<(), HostError> {
        while let Some(dir) = self.unsynced.pop_first() {
            // A directory removed since has nothing left to sync: its parent's entry is.
            if !dir.exists() {
                continue;
            }
            if let Err(e) = atomic::sync(&dir) {
                let message = format!("cannot sync directory {}: {e}", dir.display());
                // Kept for the next call: the rollback that follows a failure syncs again.
                self.unsynced.insert(dir);
                return Err(HostError::io(message).with_source(e));
            }
        }
        Ok(())
    }

    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        let (entry, disk, meta) = match self.walk(path, None)? {
            Lookup::Entry { entry, meta } => (entry.clone(), entry, meta),
            Lookup::Link { entry, real, meta } => (entry, real, meta),
            Lookup::Missing { .. } | Lookup::Dangling { .. } => return Ok(()),
        };
        check_regular(path, &disk, &meta, "remove")?;
        match fs::remove_file(&entry) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_error("cannot remove", path, &entry, e)),
        }
        if let Some(dir) = entry.parent() {
            self.unsynced.insert(dir.to_path_buf());
        }
        Ok(())
    }

    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        self.mode_of(path)
    }

    fn node(&mut self, path: &WorkPath) -> Result<Option<rewind_core::node::Node>, HostError> {
        self.node_of(path)
    }

    fn make_dir(&mut self, path: &WorkPath, mode: Option<u32>) -> Result<(), HostError> {
        self.make_dir_at(path, mode)
    }

    fn remove_link(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.unlink(path).map(|_| ())
    }

    fn remove_dir(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.remove_dir_at(path)
    }

    fn dir_entries(&mut self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        self.entries_of(path)
    }

    fn make_symlink(&mut self, path: &WorkPath, target: &[u8]) -> Result<(), HostError> {
        self.make_symlink_at(path, target)
    }

    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        self.set_mode_of(path, mode)
    }

    fn scanner(&mut self) -> Option<&mut dyn rewind_core::ports::Scan> {
        Some(self)
    }
}

/// A safety net for a caller that never asked: the writes it made become durable when the
/// workspace goes away (the engine syncs explicitly before it commits that they happened).
impl Drop for DiskWorkspace {
    fn drop(&mut self) {
        let _ = Workspace::sync(self);
    }
}

impl DiskWorkspace {
    /// The write; returns the directory whose entry it changed (not yet synced).
    fn write_inner(
        &self,
        path: &WorkPath,
        bytes: &[u8],
        created: &mut Vec<PathBuf>,
    ) -> Result<PathBuf, HostError> {
        let (target, keep) = match self.walk(path, Some(created))? {
            Lookup::Entry { entry, meta } => {
                check_regular(path, &entry, &meta, "write")?;
                (entry, Some(meta))
            }
            Lookup::Link { real, meta, .. } => {
                check_regular(path, &real, &meta, "write")?;
                (real, Some(meta))
            }
            Lookup::Missing {
                entry,
                blocked_by: None,
            } => (entry, None),
            Lookup::Missing {
                entry,
                blocked_by: Some(file),
            } => {
                return Err(HostError::io(format!(
                    "cannot write {path} ({}): {} is not a directory",
                    entry.display(),
                    file.display()
                )));
            }
            Lookup::Dangling { link, target } => return Err(dangling(path, &link, &target)),
        };
        atomic::replace_unsynced(&target, bytes, keep.as_ref())
            .map_err(|(what, e)| io_error(what, path, &target, e))
    }
}

/// Only regular files are read, replaced or removed; directories and special files are errors.
fn check_regular(
    path: &WorkPath,
    disk: &Path,
    meta: &Metadata,
    verb: &str,
) -> Result<(), HostError> {
    let what = if meta.is_dir() {
        "is a directory"
    } else if meta.is_file() {
        return Ok(());
    } else {
        "is not a regular file"
    };
    Err(HostError::io(format!(
        "cannot {verb} {path} ({}): {what}",
        disk.display()
    )))
}

fn io_error(what: &str, path: &WorkPath, disk: &Path, e: io::Error) -> HostError {
    HostError::io(format!(
        "{what} {path} ({}): {}",
        disk.display(),
        describe(&e)
    ))
    .with_source(e)
}

/// Replace one of rewind's own files beside the store (config, workspace id, `.gitignore`) or
/// an agent's settings file (`rewind init`) the same atomic, durable way a workspace file is
/// replaced, keeping its permission bits.
pub fn write_own_file(path: &Path, bytes: &[u8]) -> Result<(), HostError> {
    let keep = fs::metadata(path).ok();
    write_file_like(path, bytes, keep.as_ref())
}

/// [`write_own_file`] with the permission bits of `like` (a backup gets its original's).
pub fn write_file_like(
    path: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
) -> Result<(), HostError> {
    atomic::replace(path, bytes, like).map_err(|(what, e)| file_error(what, path, e))
}

/// A failure on one of rewind's own files, e.g. "cannot create /w/.rewind: disk full (…)".
pub(crate) fn file_error(what: &str, path: &Path, e: io::Error) -> HostError {
    HostError::io(format!("{what} {}: {}", path.display(), describe(&e))).with_source(e)
}

/// An I/O failure in words a person acts on: a full disk says "disk full".
pub fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => format!("disk full ({e})"),
        _ => e.to_string(),
    }
}

fn invalid(message: String) -> HostError {
    HostError::new(HostErrorKind::InvalidPath, message)
}

fn dangling(path: &WorkPath, link: &Path, target: &Path) -> HostError {
    invalid(format!(
        "refusing {path}: {} is a symlink to {}, which does not exist; writing through it \
         would create a file the path does not name",
        link.display(),
        target.display()
    ))
}
