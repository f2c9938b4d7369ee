//! Precious ignored files: a snapshot also tracks the files `.gitignore` ignores that sit in
//! directories the walk entered and are no larger than a cap (`.env`, `*.pem`, local config),
//! so a command that removes or overwrites one can be rewound; ignored *directories*
//! (`target/`, `node_modules/`) stay unwalked. `.rewindignore` files have the last word: a
//! pattern excludes, a `!pattern` includes whatever its size, and a `!` pattern that names a
//! directory (`!target/keep.txt`) reaches into an ignored one.
//!
//! Cost: the walker's threads list each directory they enter once more, counting its regular
//! files by the types the directory itself reports (no stat, no name kept); only a directory
//! holding more regular files than the walk listed is listed again by name, and only its
//! unlisted files are stat'ed.

use super::DiskWorkspace;
use super::entry::{IGNORE_FILE, entry_of, skipped_dir};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rewind_core::ports::{EntryKind, ScanEntry};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The size cap of an ignored file tracked by default (1 MiB).
pub const IGNORED_FILE_MAX_BYTES: u64 = 1 << 20;

/// What one walked directory holds, as its own listing says.
#[derive(Debug, Default)]
pub(super) struct DirFiles {
    /// The directory, relative to the root (empty: the root).
    pub(super) rel: PathBuf,
    /// How many regular files it holds.
    pub(super) files: usize,
    /// Whether it holds a `.rewindignore`.
    pub(super) has_rules: bool,
}

/// Count the regular files of `abs` (the directory `rel`), by the entry types the directory
/// itself reports (no stat, no name kept). Unreadable: nothing (the walk reports it).
pub(super) fn dir_files(abs: &Path, rel: &Path) -> DirFiles {
    let mut out = DirFiles {
        rel: rel.to_path_buf(),
        ..DirFiles::default()
    };
    let Ok(read) = std::fs::read_dir(abs) else {
        return out;
    };
    for item in read.flatten() {
        if item.file_type().is_ok_and(|t| t.is_file()) {
            out.has_rules |= item.file_name() == IGNORE_FILE;
            out.files += 1;
        }
    }
    out
}

/// The regular files' names of `abs`.
fn file_names(abs: &Path) -> Vec<OsString> {
    let Ok(read) = std::fs::read_dir(abs) else {
        return Vec::new();
    };
    read.flatten()
        .filter(|i| i.file_type().is_ok_and(|t| t.is_file()))
        .map(|i| i.file_name())
        .collect()
}

/// The `.rewindignore` matchers, by directory.
struct Rules(BTreeMap<PathBuf, Gitignore>);

impl Rules {
    fn load(root: &Path, dirs: &[DirFiles]) -> Self {
        let mut by_dir = BTreeMap::new();
        for d in dirs.iter().filter(|d| d.has_rules) {
            let dir = root.join(&d.rel);
            let mut b = GitignoreBuilder::new(&dir);
            // A malformed line is skipped, as the walker itself skips it.
            let _ = b.add(dir.join(IGNORE_FILE));
            if let Ok(gi) = b.build() {
                by_dir.insert(d.rel.clone(), gi);
            }
        }
        Self(by_dir)
    }

    /// The deepest `.rewindignore` that has a say about the file `rel`, as gitignore decides.
    fn verdict(&self, root: &Path, rel: &Path) -> Match<()> {
        let abs = root.join(rel);
        let mut dir = rel.parent();
        while let Some(d) = dir {
            if let Some(gi) = self.0.get(d) {
                match gi.matched(&abs, false) {
                    Match::None => {}
                    Match::Ignore(_) => return Match::Ignore(()),
                    Match::Whitelist(_) => return Match::Whitelist(()),
                }
            }
            dir = d.parent();
        }
        Match::None
    }

    /// Directories a `!` pattern names that the walk did not enter (they are ignored).
    fn reincluded_dirs(&self, walked: &HashSet<&Path>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for (dir, gi) in &self.0 {
            let Ok(text) = std::fs::read_to_string(gi.path().join(IGNORE_FILE)) else {
                continue;
            };
            for line in text.lines() {
                let Some(pattern) = line.trim_end().strip_prefix('!') else {
                    continue;
                };
                let pattern = pattern.trim_start_matches('/');
                let literal = pattern
                    .find(['*', '?', '[', '{', '\\'])
                    .map_or(pattern, |i| &pattern[..i]);
                let Some((prefix, _)) = literal.rsplit_once('/') else {
                    continue;
                };
                let target = dir.join(prefix);
                if !walked.contains(target.as_path()) {
                    out.push(target);
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

impl DiskWorkspace {
    /// Add to `entries` (the walk's files) the ignored files a snapshot tracks, given what each
    /// walked directory holds.
    pub(super) fn add_ignored_files(&self, entries: &mut Vec<ScanEntry>, dirs: &[DirFiles]) {
        let rules = Rules::load(&self.root, dirs);
        let mut listed: HashMap<&str, usize> = HashMap::new();
        for e in entries.iter().filter(|e| e.kind == EntryKind::File) {
            let parent = e.path.as_str().rsplit_once('/').map_or("", |(p, _)| p);
            *listed.entry(parent).or_default() += 1;
        }
        // Only a directory holding more files than the walk listed has ignored ones: those are
        // listed again, by name.
        let short: Vec<&DirFiles> = dirs
            .iter()
            .filter(|d| {
                let key = d.rel.to_str().unwrap_or_default();
                listed.get(key).copied().unwrap_or(0) < d.files
            })
            .collect();
        let names: HashSet<&str> = match short.is_empty() && rules.0.is_empty() {
            true => HashSet::new(),
            false => entries.iter().map(|e| e.path.as_str()).collect(),
        };
        let mut found = Vec::new();
        for d in short {
            for name in file_names(&self.root.join(&d.rel)) {
                let rel = d.rel.join(name);
                if rel.to_str().is_some_and(|r| names.contains(r)) {
                    continue;
                }
                let verdict = rules.verdict(&self.root, &rel);
                if let Some(e) = self.ignored_entry(&rel, &verdict) {
                    found.push(e);
                }
            }
        }
        let walked: HashSet<&Path> = dirs.iter().map(|d| d.rel.as_path()).collect();
        for dir in rules.reincluded_dirs(&walked) {
            self.add_reincluded(&rules, &dir, &names, &mut found);
        }
        entries.extend(found);
    }

    /// The entry of the ignored file `rel`, when a snapshot tracks it.
    fn ignored_entry(&self, rel: &Path, verdict: &Match<()>) -> Option<ScanEntry> {
        let cap = match verdict {
            Match::Ignore(_) => return None,
            Match::Whitelist(_) => u64::MAX,
            Match::None => self.ignored_file_max?,
        };
        let meta = std::fs::symlink_metadata(self.root.join(rel)).ok()?;
        if !meta.is_file() || meta.len() > cap {
            return None;
        }
        entry_of(rel, &meta)
    }

    /// The files under the ignored directory `dir` that a `!` pattern re-includes.
    fn add_reincluded(
        &self,
        rules: &Rules,
        dir: &Path,
        names: &HashSet<&str>,
        found: &mut Vec<ScanEntry>,
    ) {
        let start = self.root.join(dir);
        if self.walk_refuses(&start) {
            return;
        }
        let protected = self.protected.clone();
        let walk = ignore::WalkBuilder::new(&start)
            .standard_filters(false)
            .follow_links(false)
            .filter_entry(move |e| {
                let name = e.file_name().to_string_lossy();
                !(skipped_dir(&name) || protected.iter().any(|p| p == e.path()))
            })
            .build();
        for item in walk.flatten() {
            let Ok(rel) = item.path().strip_prefix(&self.root) else {
                continue;
            };
            let seen = found.iter().any(|e| Path::new(e.path.as_str()) == rel);
            if seen || rel.to_str().is_some_and(|r| names.contains(r)) {
                continue;
            }
            if let Match::Whitelist(_) = rules.verdict(&self.root, rel)
                && let Some(e) = self.ignored_entry(rel, &Match::Whitelist(()))
            {
                found.push(e);
            }
        }
    }

    /// Whether `abs` is not a real directory inside the root a walk may enter (a link, the
    /// store, something missing).
    fn walk_refuses(&self, abs: &Path) -> bool {
        // The root is canonical: a path that canonicalizes to itself has no link and no `..`.
        let real = std::fs::canonicalize(abs).is_ok_and(|c| c == abs);
        let is_dir = std::fs::symlink_metadata(abs).is_ok_and(|m| m.is_dir());
        let through_skipped = abs.strip_prefix(&self.root).map_or(true, |rel| {
            rel.iter().any(|c| skipped_dir(&c.to_string_lossy()))
        });
        !real || !is_dir || through_skipped || self.protected.iter().any(|p| abs.starts_with(p))
    }
}
