//! Finding where a workspace path leads, one segment at a time from the canonical root, so no
//! symlink can carry an operation outside the root or into the engine's store.

use super::{DiskWorkspace, GIT_DIR, STORE_DIR, atomic, invalid, io_error};
use rewind_core::HostError;
use rewind_core::path::WorkPath;
use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// Where a workspace path leads. Every path in here is inside the root.
#[derive(Debug)]
pub(super) enum Lookup {
    /// `entry` exists and is not a symlink; `meta` describes it.
    Entry { entry: PathBuf, meta: Metadata },
    /// `entry` is a symlink to the canonical `real`, inside the root; `meta` describes `real`.
    Link {
        entry: PathBuf,
        real: PathBuf,
        meta: Metadata,
    },
    /// Nothing is at `entry`. When `blocked_by` names a file standing where a directory on the
    /// way should be, nothing can ever be there; otherwise every directory on the way exists
    /// (or, when not creating, a missing one was met first).
    Missing {
        entry: PathBuf,
        blocked_by: Option<PathBuf>,
    },
    /// The symlink `link` (on the way or last) says `target`, which does not exist.
    Dangling { link: PathBuf, target: PathBuf },
}

/// What a symlink leads to.
enum Followed {
    Inside(PathBuf, Metadata),
    Dangling(PathBuf),
}

impl DiskWorkspace {
    /// Look `path` up. With `created`, missing directories on the way are made (and recorded,
    /// so a failed write can take them back); without, a missing one ends the walk.
    pub(super) fn walk(
        &self,
        path: &WorkPath,
        mut created: Option<&mut Vec<PathBuf>>,
    ) -> Result<Lookup, HostError> {
        let segments: Vec<&str> = path.segments().collect();
        self.check_segments(path, segments.iter().copied())?;
        let Some((last, dirs)) = segments.split_last() else {
            return Err(invalid(format!("refusing {path}: the path is empty")));
        };
        let mut cur = self.root.clone();
        for (i, segment) in dirs.iter().enumerate() {
            let next = cur.join(segment);
            let rest = || join_all(&next, &segments[i + 1..]);
            let meta = match fs::symlink_metadata(&next) {
                Ok(meta) => meta,
                Err(e) if is_absent(&e) => {
                    let Some(created) = created.as_deref_mut() else {
                        return Ok(Lookup::Missing {
                            entry: rest(),
                            blocked_by: None,
                        });
                    };
                    make_dir(path, &cur, &next, created)?
                }
                Err(e) => return Err(io_error("cannot look up", path, &next, e)),
            };
            if meta.file_type().is_symlink() {
                match self.follow(path, &next)? {
                    Followed::Inside(real, meta) if meta.is_dir() => cur = real,
                    Followed::Inside(..) => {
                        return Ok(Lookup::Missing {
                            entry: rest(),
                            blocked_by: Some(next),
                        });
                    }
                    Followed::Dangling(target) => {
                        return Ok(Lookup::Dangling { link: next, target });
                    }
                }
            } else if meta.is_dir() {
                cur = next;
            } else {
                return Ok(Lookup::Missing {
                    entry: rest(),
                    blocked_by: Some(next),
                });
            }
        }
        let entry = cur.join(last);
        if self.protected.iter().any(|p| entry.starts_with(p)) {
            return Err(self.store_refusal(path));
        }
        match fs::symlink_metadata(&entry) {
            Ok(meta) if meta.file_type().is_symlink() => Ok(match self.follow(path, &entry)? {
                Followed::Inside(real, meta) => Lookup::Link { entry, real, meta },
                Followed::Dangling(target) => Lookup::Dangling {
                    link: entry,
                    target,
                },
            }),
            Ok(meta) => Ok(Lookup::Entry { entry, meta }),
            Err(e) if is_absent(&e) => Ok(Lookup::Missing {
                entry,
                blocked_by: None,
            }),
            Err(e) => Err(io_error("cannot look up", path, &entry, e)),
        }
    }

    /// Resolve the symlink `link`. Canonical paths are compared, so `..` in the target or links
    /// chained through other directories cannot disguise where it really leads.
    fn follow(&self, path: &WorkPath, link: &Path) -> Result<Followed, HostError> {
        let real = match fs::canonicalize(link) {
            Ok(real) => real,
            Err(e) if is_absent(&e) => {
                let target = fs::read_link(link)
                    .map_err(|e| io_error("cannot read symlink", path, link, e))?;
                return Ok(Followed::Dangling(target));
            }
            Err(e) => return Err(io_error("cannot follow symlink", path, link, e)),
        };
        if !real.starts_with(&self.root) {
            return Err(invalid(format!(
                "refusing {path}: {} is a symlink to {}, outside the workspace root {}",
                link.display(),
                real.display(),
                self.root.display()
            )));
        }
        // Every component the link really leads through is checked, so `loop -> .` cannot
        // carry `loop/.rewind/rewind.db` past the segment check.
        if let Ok(inside) = real.strip_prefix(&self.root) {
            self.check_segments(path, inside.iter().filter_map(|c| c.to_str()))?;
        }
        if self.protected.iter().any(|p| real.starts_with(p)) {
            return Err(self.store_refusal(path));
        }
        let meta = fs::metadata(&real).map_err(|e| io_error("cannot look up", path, &real, e))?;
        Ok(Followed::Inside(real, meta))
    }

    /// Refuse a path through the engine's store directory at any depth, or through a `.git`
    /// directory unless the configuration allows it. Compared ignoring ASCII case, for
    /// case-insensitive file systems.
    pub(super) fn check_segments<'s>(
        &self,
        path: &WorkPath,
        segments: impl Iterator<Item = &'s str>,
    ) -> Result<(), HostError> {
        for segment in segments {
            if segment.eq_ignore_ascii_case(STORE_DIR) {
                return Err(self.store_refusal(path));
            }
            if !self.allow_git && segment.eq_ignore_ascii_case(GIT_DIR) {
                return Err(invalid(format!(
                    "refusing {path}: it lies in a .git directory, whose internals a rewind does \
                     not touch (set \"allowGitWrites\": true in config.json to allow it)"
                )));
            }
        }
        Ok(())
    }

    fn store_refusal(&self, path: &WorkPath) -> HostError {
        invalid(format!(
            "refusing {path}: it lies in {}, the rewind store, which a rewind never touches",
            self.store.display()
        ))
    }
}

/// Make the directory `next` inside `cur`, tolerating a racing creator.
fn make_dir(
    path: &WorkPath,
    cur: &Path,
    next: &Path,
    created: &mut Vec<PathBuf>,
) -> Result<Metadata, HostError> {
    match fs::create_dir(next) {
        Ok(()) => {
            created.push(next.to_path_buf());
            // The new entry must survive a crash as surely as the file written into it.
            atomic::sync_dir(cur).map_err(|e| io_error("cannot sync", path, cur, e))?;
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io_error("cannot create directory", path, next, e)),
    }
    // Looked at again rather than assumed: a racing creator may have put a symlink there.
    fs::symlink_metadata(next).map_err(|e| io_error("cannot look up", path, next, e))
}

/// NotFound, or NotADirectory when a file stands where a directory was expected: either way
/// nothing is at the path.
fn is_absent(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

fn join_all(base: &Path, segments: &[&str]) -> PathBuf {
    let mut out = base.to_path_buf();
    out.extend(segments);
    out
}
