//! Shell capture's walk of a disk workspace, in one pass: each directory is listed once
//! (`read_dir`, whose entries carry their type), each entry judged by the ignore rules stacked
//! per directory (`ignores`), and only what a snapshot keeps is stat'ed, relative to the open
//! directory (`DirEntry::metadata`, an `fstatat` on Linux, with no path lookup from the root).
//! The small ignored files of walked directories come out of the same pass: an entry git's
//! rules ignore is a regular file of the listing already, stat'ed for its size. Ignored
//! directories, `.git/`, `.rewind/` (any case) and protected directories are never entered,
//! and a symlink is reported as a link, never followed.
//!
//! Directories are shared among one worker per core (a stack: depth first, so the open
//! listings stay few); each worker keeps its own finds, merged at the end.

mod ignores;

use super::entry::{kind_of, skipped_dir, stat_of};
use ignore::gitignore::Gitignore;
use ignores::{Global, Layers, Verdict};
use rewind_core::path::WorkPath;
use rewind_core::ports::{ScanEntry, Unlisted};
use std::fs::DirEntry;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// What a walk found.
#[derive(Debug, Default)]
pub(super) struct Walked {
    pub(super) entries: Vec<ScanEntry>,
    pub(super) unlisted: Vec<Unlisted>,
    /// The `.rewindignore` matchers of walked directories (rooted at their relative paths),
    /// kept when ignored files are tracked.
    pub(super) rules: Vec<(String, Gitignore)>,
    /// Every directory entered, relative to the root (`""`: the root), when ignored files are
    /// tracked.
    pub(super) walked: Vec<String>,
}

impl Walked {
    fn append(&mut self, mut other: Self) {
        self.entries.append(&mut other.entries);
        self.unlisted.append(&mut other.unlisted);
        self.rules.append(&mut other.rules);
        self.walked.append(&mut other.walked);
    }
}

/// A directory to list.
struct Job {
    abs: PathBuf,
    rel: String,
    /// The rules in force in its parent.
    layers: Layers,
}

/// The directories waiting, and how many workers are listing one (and may add more).
struct Queue {
    state: Mutex<(Vec<Job>, usize)>,
    more: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One walk's settings.
struct Lister<'a> {
    protected: &'a [PathBuf],
    /// The size cap of tracked ignored files; `None`: none are tracked.
    ignored_max: Option<u64>,
    global: Global,
    /// Walk only these paths (and what is under them, and the directories on the way).
    scope: Option<&'a [String]>,
}

/// Walk the canonical `root`, never entering `protected` directories; with `ignored_max`, small
/// ignored files of walked directories are listed too. Entries come unsorted.
pub(super) fn list(root: &Path, protected: &[PathBuf], ignored_max: Option<u64>) -> Walked {
    list_within(root, protected, ignored_max, None)
}

/// [`list`], entering and listing only what lies on the way to, at or under a `scope` path.
pub(super) fn list_within(
    root: &Path,
    protected: &[PathBuf],
    ignored_max: Option<u64>,
    scope: Option<&[String]>,
) -> Walked {
    let lister = Lister {
        protected,
        ignored_max,
        global: Global::load(root),
        scope,
    };
    let queue = Queue {
        state: Mutex::new((
            vec![Job {
                abs: root.to_path_buf(),
                rel: String::new(),
                layers: None,
            }],
            0,
        )),
        more: Condvar::new(),
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(12));
    let mut all = Walked::default();
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| s.spawn(|| lister.work(&queue)))
            .collect();
        all = lister.work(&queue);
        for h in helpers {
            // A worker that panicked lost its finds: the walk as a whole must not pretend.
            match h.join() {
                Ok(found) => all.append(found),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    all
}

impl Lister<'_> {
    /// List directories until none is left and no worker can add one.
    fn work(&self, queue: &Queue) -> Walked {
        let mut out = Walked::default();
        loop {
            let job = {
                let mut state = lock(&queue.state);
                loop {
                    if let Some(job) = state.0.pop() {
                        state.1 += 1;
                        break job;
                    }
                    if state.1 == 0 {
                        return out;
                    }
                    state = queue
                        .more
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            };
            let children = self.dir(job, &mut out);
            let mut state = lock(&queue.state);
            state.0.extend(children);
            state.1 -= 1;
            let wake = !state.0.is_empty() || state.1 == 0;
            drop(state);
            if wake {
                queue.more.notify_all();
            }
        }
    }

    /// List one directory: its entries into `out`, the directories to enter returned.
    fn dir(&self, job: Job, out: &mut Walked) -> Vec<Job> {
        let read = match std::fs::read_dir(&job.abs) {
            Ok(read) => read,
            Err(e) => {
                out.unlisted.push(unreadable(&job.abs, &e));
                return Vec::new();
            }
        };
        let mut items = Vec::new();
        let mut found = ignores::Found::default();
        for item in read {
            match item {
                Ok(item) => {
                    found.note(&item.file_name());
                    items.push(item);
                }
                Err(e) => out.unlisted.push(unreadable(&job.abs, &e)),
            }
        }
        let layers = ignores::enter(&job.layers, &job.abs, &job.rel, &found);
        if self.ignored_max.is_some() {
            out.walked.push(job.rel.clone());
            if found.rewindignore
                && let Some(gi) = layers.as_ref().and_then(|l| l.custom.clone())
            {
                out.rules.push((job.rel.clone(), gi));
            }
        }
        let mut children = Vec::new();
        for item in items {
            if let Some(child) = self.entry(&job.rel, &layers, item, out) {
                children.push(child);
            }
        }
        children
    }

    /// Judge one entry of the directory `dir`: listed, listed as a small ignored file, or
    /// passed over; a directory to enter is returned.
    fn entry(&self, dir: &str, layers: &Layers, item: DirEntry, out: &mut Walked) -> Option<Job> {
        let name = item.file_name();
        let ty = match item.file_type() {
            Ok(ty) => ty,
            Err(e) => {
                out.unlisted.push(unreadable(&item.path(), &e));
                return None;
            }
        };
        let is_dir = ty.is_dir();
        let Some(name) = name.to_str() else {
            // Judged by its raw name; reported only if a snapshot would otherwise list it.
            let rel = Path::new(dir).join(&name);
            let v = ignores::verdict(layers, &self.global, &rel, is_dir);
            if v == Verdict::Listed && !(is_dir && self.refused(&item)) {
                out.unlisted.push(Unlisted {
                    path: rel.to_string_lossy().into_owned(),
                    reason: "invalid_path: not UTF-8".into(),
                });
            }
            return None;
        };
        if is_dir && (skipped_dir(name) || self.refused(&item)) {
            return None;
        }
        let rel = match dir.is_empty() {
            true => name.to_owned(),
            false => format!("{dir}/{name}"),
        };
        if self.scope.is_some_and(|s| !in_scope(&rel, s)) {
            return None;
        }
        // A listed entry's trouble is reported; a small ignored file's is not (as before it).
        let (listed, cap) = match ignores::verdict(layers, &self.global, Path::new(&rel), is_dir) {
            Verdict::Listed => (true, u64::MAX),
            Verdict::Ignored if ty.is_file() => (false, self.ignored_max?),
            Verdict::Ignored | Verdict::Excluded => return None,
        };
        let path = match WorkPath::parse(&rel) {
            Ok(path) => path,
            Err(e) if listed => {
                out.unlisted.push(Unlisted {
                    path: rel,
                    reason: format!("invalid_path: {e}"),
                });
                return None;
            }
            Err(_) => return None,
        };
        let meta = match item.metadata() {
            Ok(meta) => meta,
            Err(e) if listed => {
                out.unlisted.push(Unlisted {
                    path: rel,
                    reason: format!("unreadable: {e}"),
                });
                return None;
            }
            Err(_) => return None,
        };
        if !listed && (!meta.is_file() || meta.len() > cap) {
            return None;
        }
        let kind = kind_of(&meta)?;
        out.entries.push(ScanEntry {
            path,
            kind,
            stat: stat_of(&meta),
        });
        is_dir.then(|| Job {
            abs: item.path(),
            rel,
            layers: layers.clone(),
        })
    }

    /// Whether the directory `item` is one a walk never enters (the store, a protected one).
    fn refused(&self, item: &DirEntry) -> bool {
        !self.protected.is_empty() && {
            let abs = item.path();
            self.protected.contains(&abs)
        }
    }
}

/// Whether `rel` is a scope path, under one, or a directory on the way to one.
pub(super) fn in_scope(rel: &str, scope: &[String]) -> bool {
    let below =
        |a: &str, b: &str| a.len() > b.len() && a.starts_with(b) && a.as_bytes()[b.len()] == b'/';
    scope
        .iter()
        .any(|s| rel == s || below(rel, s) || below(s, rel))
}

fn unreadable(at: &Path, e: &dyn std::fmt::Display) -> Unlisted {
    Unlisted {
        path: format!("{}: {e}", at.display()),
        reason: "unreadable".into(),
    }
}
