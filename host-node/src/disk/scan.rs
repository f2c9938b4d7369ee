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
use rewind_core::hash::ContentHash;
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

    #[cfg(unix)]
    fn changed_since(&mut self, manifest: Option<&ContentHash>) -> Option<Vec<WorkPath>> {
        let hash = manifest.map(ToString::to_string);
        let paths = self.journal.as_mut()?.changed_since(hash.as_deref())?;
        // A path the journal names that is no workspace path: walk everything.
        paths.iter().map(|p| WorkPath::parse(p).ok()).collect()
    }

    fn list_within(&mut self, scope: &[WorkPath]) -> Result<Listing, HostError> {
        Ok(self.scope_list(scope))
    }

    #[cfg(unix)]
    fn vouch(&mut self, manifest: &ContentHash) {
        if let Some(j) = self.journal.as_mut() {
            j.vouch(&manifest.to_string());
        }
    }
}

/// The journal a disk workspace asks (`watch`), on Unix; elsewhere there is none.
#[cfg(unix)]
pub(super) type Journal = crate::watch::Client;
/// No journal off Unix.
#[cfg(not(unix))]
#[derive(Clone, Debug)]
pub(super) struct Journal;

impl DiskWorkspace {
    /// Ask the workspace's watcher (`.rewind/watch/`) before each walk, so a snapshot walks only
    /// what changed when it can vouch for the rest (see `watch`); `false` (or off Unix): walk.
    #[must_use]
    pub fn watch_changes(mut self, on: bool) -> Self {
        #[cfg(unix)]
        {
            self.journal = on
                .then(|| crate::watch::Client::new(&self.root, crate::watch::dir_of(&self.store)));
        }
        #[cfg(not(unix))]
        let _ = on;
        self
    }

    fn scope_list(&self, scope: &[WorkPath]) -> Listing {
        let started_ns = ns_since_epoch(SystemTime::now());
        let scope: Vec<String> = scope.iter().map(|p| p.as_str().to_owned()).collect();
        let ignored = self.ignored_file_max;
        let mut found = lister::list_within(&self.root, &self.protected, ignored, Some(&scope));
        if ignored.is_some() {
            self.add_reincluded_files(&mut found);
            found
                .entries
                .retain(|e| lister::in_scope(e.path.as_str(), &scope));
        }
        found.entries.sort_by(|a, b| a.path.cmp(&b.path));
        Listing {
            entries: found.entries,
            started_ns,
            unlisted: found.unlisted,
        }
    }
}
