//! Precious ignored files: a snapshot also tracks the files `.gitignore` ignores that sit in
//! directories the walk entered and are no larger than a cap (`.env`, `*.pem`, local config),
//! so a command that removes or overwrites one can be rewound; ignored *directories*
//! (`target/`, `node_modules/`) stay unwalked. `.rewindignore` files have the last word: a
//! pattern excludes, a `!pattern` includes whatever its size, and a `!` pattern that names a
//! directory (`!target/keep.txt`) reaches into an ignored one.
//!
//! The walk (`lister`) lists the small ignored files of the directories it enters in the same
//! pass as the rest; what is left here is the reach of `!` patterns into ignored directories,
//! walked only when a `.rewindignore` has such a pattern.

use super::DiskWorkspace;
use super::entry::{IGNORE_FILE, entry_of, skipped_dir};
use super::lister::Walked;
use ignore::Match;
use ignore::gitignore::Gitignore;
use rewind_core::ports::ScanEntry;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The size cap of an ignored file tracked by default (1 MiB).
pub const IGNORED_FILE_MAX_BYTES: u64 = 1 << 20;

/// The `.rewindignore` matchers of the walked directories, by directory (each rooted at its
/// relative path, as the walk built it).
struct Rules(BTreeMap<PathBuf, Gitignore>);

impl Rules {
    /// The deepest `.rewindignore` that has a say about the file `rel`, as gitignore decides.
    fn verdict(&self, rel: &Path) -> Match<()> {
        let mut dir = rel.parent();
        while let Some(d) = dir {
            if let Some(gi) = self.0.get(d) {
                match gi.matched(rel, false) {
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
    fn reincluded_dirs(&self, root: &Path, walked: &HashSet<&Path>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for dir in self.0.keys() {
            let Ok(text) = std::fs::read_to_string(root.join(dir).join(IGNORE_FILE)) else {
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
    /// Add to what the walk found the files under ignored directories that a `.rewindignore`
    /// `!` pattern re-includes (the walk listed the small ignored files of walked directories
    /// itself).
    pub(super) fn add_reincluded_files(&self, found: &mut Walked) {
        let rules = Rules(
            std::mem::take(&mut found.rules)
                .into_iter()
                .map(|(dir, gi)| (PathBuf::from(dir), gi))
                .collect(),
        );
        if rules.0.is_empty() {
            return;
        }
        let walked: HashSet<&Path> = found.walked.iter().map(Path::new).collect();
        let dirs = rules.reincluded_dirs(&self.root, &walked);
        if dirs.is_empty() {
            return;
        }
        let names: HashSet<&str> = found.entries.iter().map(|e| e.path.as_str()).collect();
        let mut more = Vec::new();
        for dir in dirs {
            self.add_reincluded(&rules, &dir, &names, &mut more);
        }
        found.entries.extend(more);
    }

    /// The entry of the re-included file `rel` (any size), when it is a regular file.
    fn reincluded_entry(&self, rel: &Path) -> Option<ScanEntry> {
        let meta = std::fs::symlink_metadata(self.root.join(rel)).ok()?;
        meta.is_file().then(|| entry_of(rel, &meta)).flatten()
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
            if let Match::Whitelist(_) = rules.verdict(rel)
                && let Some(e) = self.reincluded_entry(rel)
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
