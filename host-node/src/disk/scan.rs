//! Shell capture's walk of a disk workspace (`lister`: one pass, each directory listed once),
//! honouring `.gitignore` (with or without a git repository, plus `.git/info/exclude` and the
//! user's global excludes file, as git does) and `.rewindignore` files, never entering `.git/`,
//! the store's `.rewind/` (at any depth, any case) or another protected directory, and never
//! following a symlink: a link is reported as a link, whatever it points at. Small ignored
//! files of walked directories are listed by the same pass (`precious` adds what a `!` pattern
//! re-includes inside ignored directories).

use super::DiskWorkspace;
use super::entry::{kind_of, ns_since_epoch, stat_of};
use super::lister;
use super::walk::Lookup;
use rewind_core::HostError;
use rewind_core::path::WorkPath;
use rewind_core::ports::{EntryKind, Listing, Scan, ScanEntry, Stat};

pub use super::entry::IGNORE_FILE;
use std::fs::Metadata;
use std::time::SystemTime;

impl DiskWorkspace {
    fn entry_at(&self, rel: WorkPath, meta: &Metadata) -> Option<ScanEntry> {
        Some(ScanEntry {
            path: rel,
            kind: kind_of(meta)?,
            stat: stat_of(meta),
        })
    }
}

impl Scan for DiskWorkspace {
    fn list(&mut self) -> Result<Listing, HostError> {
        let started_ns = ns_since_epoch(SystemTime::now());
        let mut found = lister::list(&self.root, &self.protected, self.ignored_file_max);
        if self.ignored_file_max.is_some() {
            self.add_reincluded_files(&mut found);
        }
        found.entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Listing {
            entries: found.entries,
            started_ns,
            unlisted: found.unlisted,
        })
    }

    fn stat(&mut self, path: &WorkPath) -> Result<Option<ScanEntry>, HostError> {
        let lookup = match self.walk(path, None) {
            Ok(l) => l,
            // A tracked path that now leads somewhere rewind may not go (a directory on the way
            // became a link out of the root, …) is no longer a file rewind can track here.
            Err(e) if e.kind() == rewind_core::HostErrorKind::InvalidPath => {
                return Ok(Some(ScanEntry {
                    path: path.clone(),
                    kind: EntryKind::Other,
                    stat: Stat::default(),
                }));
            }
            Err(e) => return Err(e),
        };
        let at = match lookup {
            Lookup::Missing { .. } => return Ok(None),
            Lookup::Entry { entry, .. } => entry,
            Lookup::Link { entry, .. } => entry,
            Lookup::Dangling { link, .. } => link,
        };
        match std::fs::symlink_metadata(&at) {
            Ok(meta) => Ok(self.entry_at(path.clone(), &meta)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(super::io_error("cannot stat", path, &at, e)),
        }
    }
}
