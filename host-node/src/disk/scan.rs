//! Shell capture's walk of a disk workspace: ripgrep's parallel walker (`ignore`), honouring
//! `.gitignore` (with or without a git repository, plus `.git/info/exclude` and the user's
//! global excludes file, as git does) and `.rewindignore` files, never entering `.git/`, the
//! store's `.rewind/` (at any depth, any case) or another protected directory, and never
//! following a symlink: a link is reported as a link, whatever it points at.

use super::DiskWorkspace;
use super::entry::{kind_of, ns_since_epoch, skipped_dir, stat_of, work_path};
use super::precious::{DirFiles, dir_files};
use super::walk::Lookup;
use rewind_core::HostError;
use rewind_core::path::WorkPath;
use rewind_core::ports::{EntryKind, Listing, Scan, ScanEntry, Stat, Unlisted};

pub use super::entry::IGNORE_FILE;
use std::fs::Metadata;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

#[derive(Default)]
struct Found {
    entries: Vec<ScanEntry>,
    unlisted: Vec<Unlisted>,
    /// What each walked directory holds, when ignored files are tracked.
    dirs: Vec<DirFiles>,
}

impl DiskWorkspace {
    fn walker(&self) -> ignore::WalkParallel {
        let protected: Vec<PathBuf> = self.protected.clone();
        let mut b = ignore::WalkBuilder::new(&self.root);
        b.hidden(false)
            .parents(false)
            .ignore(false)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(true)
            .require_git(false)
            .follow_links(false)
            .add_custom_ignore_filename(IGNORE_FILE)
            .filter_entry(move |e| {
                let dir = e.file_type().is_some_and(|t| t.is_dir());
                let name = e.file_name().to_string_lossy();
                !(dir && (skipped_dir(&name) || protected.iter().any(|p| p == e.path())))
            });
        b.build_parallel()
    }

    fn entry_at(&self, rel: WorkPath, meta: &Metadata) -> Option<ScanEntry> {
        Some(ScanEntry {
            path: rel,
            kind: kind_of(meta)?,
            stat: stat_of(meta),
        })
    }
}

trait Merge {
    fn merge(&self, local: Found) -> ignore::WalkState;
}

impl Merge for Mutex<Found> {
    /// Add one thread's finds to the whole.
    fn merge(&self, mut local: Found) -> ignore::WalkState {
        let mut all = self
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.entries.append(&mut local.entries);
        all.unlisted.append(&mut local.unlisted);
        all.dirs.append(&mut local.dirs);
        ignore::WalkState::Continue
    }
}

impl Scan for DiskWorkspace {
    fn list(&mut self) -> Result<Listing, HostError> {
        let started_ns = ns_since_epoch(SystemTime::now());
        let found = Mutex::new(Found::default());
        let root = self.root.clone();
        let tracks_ignored = self.ignored_file_max.is_some();
        self.walker().run(|| {
            let found = &found;
            let root = &root;
            Box::new(move |item| {
                let mut local = Found::default();
                match item {
                    Err(e) => local.unlisted.push(Unlisted {
                        path: e.to_string(),
                        reason: "unreadable".into(),
                    }),
                    Ok(entry) => {
                        let Ok(rel) = entry.path().strip_prefix(root) else {
                            return ignore::WalkState::Continue;
                        };
                        if tracks_ignored && entry.file_type().is_some_and(|t| t.is_dir()) {
                            local.dirs.push(dir_files(entry.path(), rel));
                        }
                        if rel.as_os_str().is_empty() {
                            return found.merge(local);
                        }
                        match (work_path(rel), entry.metadata()) {
                            (Ok(path), Ok(meta)) => {
                                if let Some(kind) = kind_of(&meta) {
                                    let stat = stat_of(&meta);
                                    local.entries.push(ScanEntry { path, kind, stat });
                                }
                            }
                            (Err(why), _) => local.unlisted.push(Unlisted {
                                path: rel.to_string_lossy().into_owned(),
                                reason: why,
                            }),
                            (Ok(path), Err(e)) => local.unlisted.push(Unlisted {
                                path: path.to_string(),
                                reason: format!("unreadable: {e}"),
                            }),
                        }
                    }
                }
                found.merge(local)
            })
        });
        let mut found = found
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tracks_ignored {
            self.add_ignored_files(&mut found.entries, &found.dirs);
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
