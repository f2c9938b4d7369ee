//! Shell capture's walk of a disk workspace: ripgrep's parallel walker (`ignore`), honouring
//! `.gitignore` (with or without a git repository, plus `.git/info/exclude` and the user's
//! global excludes file, as git does) and `.rewindignore` files, never entering `.git/`, the
//! store's `.rewind/` (at any depth, any case) or another protected directory, and never
//! following a symlink: a link is reported as a link, whatever it points at.

use super::DiskWorkspace;
use super::precious::{DirFiles, dir_files};
use super::walk::Lookup;
use rewind_core::HostError;
use rewind_core::path::WorkPath;
use rewind_core::ports::{EntryKind, Listing, Scan, ScanEntry, Stat, Unlisted};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Per-directory ignore files of rewind's own, read like `.gitignore` (and winning over it).
pub const IGNORE_FILE: &str = ".rewindignore";

fn ns_since_epoch(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

#[cfg(unix)]
fn stat_of(meta: &Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    Stat {
        size: meta.len(),
        mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
        ctime_ns: Some(ns(meta.ctime(), meta.ctime_nsec())),
        inode: Some(meta.ino()),
        mode: Some(meta.mode() & 0o7777),
    }
}

#[cfg(not(unix))]
fn stat_of(meta: &Metadata) -> Stat {
    Stat {
        size: meta.len(),
        mtime_ns: meta.modified().map(ns_since_epoch).unwrap_or(0),
        ctime_ns: None,
        inode: None,
        mode: None,
    }
}

fn kind_of(meta: &Metadata) -> Option<EntryKind> {
    let t = meta.file_type();
    if t.is_dir() {
        None
    } else if t.is_symlink() {
        Some(EntryKind::Symlink)
    } else if t.is_file() {
        Some(EntryKind::File)
    } else {
        Some(EntryKind::Other)
    }
}

/// `rel` as a workspace path, or why not.
fn work_path(rel: &Path) -> Result<WorkPath, String> {
    let mut parts = Vec::new();
    for c in rel.components() {
        let part = c.as_os_str().to_str().ok_or("invalid_path: not UTF-8")?;
        parts.push(part);
    }
    WorkPath::parse(&parts.join("/")).map_err(|e| format!("invalid_path: {e}"))
}

/// Directories the walk never enters.
pub(super) fn skipped_dir(name: &str) -> bool {
    name.eq_ignore_ascii_case(super::STORE_DIR) || name == super::GIT_DIR
}

/// The entry of `rel` as a workspace path (`None`: a directory, or not a valid path).
pub(super) fn entry_of(rel: &Path, meta: &Metadata) -> Option<ScanEntry> {
    Some(ScanEntry {
        path: work_path(rel).ok()?,
        kind: kind_of(meta)?,
        stat: stat_of(meta),
    })
}

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
