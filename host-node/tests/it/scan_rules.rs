//! The one-pass walk of shell capture against two oracles, on generated trees: the `ignore`
//! crate's own `WalkBuilder` (the walker shell capture used before, with the same options) and
//! git itself (`git ls-files --others --cached --exclude-standard`, and `-i` for the ignored
//! files). Each tree mixes nested `.gitignore` files with negations, anchored and directory
//! patterns, `.git/info/exclude`, ignored directories and small and large ignored files; half
//! of them have `.rewindignore` files too (excludes and `!` re-includes), which git knows
//! nothing of, so those are compared with the `ignore` crate only.

use rewind_core::ports::{EntryKind, Workspace};
use rewind_host::DiskWorkspace;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The size cap of tracked ignored files in these trees: `big.bin` (200 B) is over it.
const CAP: u64 = 64;

const DIRS: &[&str] = &[
    "src",
    "build",
    "logs",
    "node_modules",
    "a",
    "b",
    "keep",
    "deep",
];
const FILES: &[&str] = &[
    "x.txt", "y.log", "keep.log", ".env", "z.tmp", "notes.md", "big.bin", "c",
];
const GIT_PATTERNS: &[&str] = &[
    "*.log",
    "!keep.log",
    "build/",
    "/a",
    "logs",
    "*.tmp",
    "!z.tmp",
    "b/*.txt",
    "deep/**/x.txt",
    "node_modules/",
    ".env",
    "!.env",
    "keep/",
    "*.bin",
    "src/c",
    "/x.txt",
];
const REWIND_PATTERNS: &[&str] = &["x.txt", "!y.log", "*.md", "!.env", "!*.tmp", "z.tmp", "c"];

/// splitmix64: the same tree for the same seed, everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn lines(&mut self, pool: &[&str], most: usize) -> String {
        let n = 1 + self.below(most);
        (0..n)
            .map(|_| format!("{}\n", pool[self.below(pool.len())]))
            .collect()
    }
}

fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, bytes).expect("write");
}

/// Fill `dir` (relative; `""` the root) with files, ignore files and subdirectories.
fn fill(root: &Path, dir: &str, depth: usize, rng: &mut Rng, rewind_rules: bool) {
    let at = |name: &str| match dir.is_empty() {
        true => name.to_owned(),
        false => format!("{dir}/{name}"),
    };
    let mut names: Vec<&str> = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let name = FILES[rng.below(FILES.len())];
        if !names.contains(&name) {
            names.push(name);
            let size = if name == "big.bin" { 200 } else { 10 };
            put(root, &at(name), &vec![b'x'; size]);
        }
    }
    if rng.chance(45) {
        put(
            root,
            &at(".gitignore"),
            rng.lines(GIT_PATTERNS, 3).as_bytes(),
        );
    }
    if rewind_rules && rng.chance(30) {
        put(
            root,
            &at(".rewindignore"),
            rng.lines(REWIND_PATTERNS, 2).as_bytes(),
        );
    }
    if depth == 0 {
        return;
    }
    for _ in 0..rng.below(4) {
        let name = DIRS[rng.below(DIRS.len())];
        if !names.contains(&name) {
            names.push(name);
            fill(root, &at(name), depth - 1, rng, rewind_rules);
        }
    }
}

/// A generated tree in a fresh git repository (nothing committed), with an exclude file.
fn tree(seed: u64, rewind_rules: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q"]);
    let mut rng = Rng(seed);
    put(
        root,
        ".git/info/exclude",
        rng.lines(GIT_PATTERNS, 2).as_bytes(),
    );
    fill(root, "", 3, &mut rng, rewind_rules);
    dir
}

fn git(root: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    out.stdout
}

/// The paths git lists (`-z` output).
fn git_paths(root: &Path, args: &[&str]) -> BTreeSet<String> {
    let mut all = vec!["ls-files", "-z"];
    all.extend(args);
    git(root, &all)
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8(p.to_vec()).expect("utf8"))
        .collect()
}

/// What the disk workspace lists: (files, directories).
fn listed(root: &Path, cap: Option<u64>) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut ws = DiskWorkspace::open(root)
        .expect("open")
        .track_ignored_files(cap);
    let listing = ws.scanner().expect("disk scans").list().expect("list");
    assert!(listing.unlisted.is_empty(), "{:?}", listing.unlisted);
    let sorted: Vec<&str> = listing.entries.iter().map(|e| e.path.as_str()).collect();
    assert!(sorted.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
    let of = |kind: EntryKind| {
        listing
            .entries
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.path.to_string())
            .collect()
    };
    (of(EntryKind::File), of(EntryKind::Dir))
}

/// What the `ignore` crate's walker lists (files, directories) with git's rules and, when
/// `rewind_rules`, `.rewindignore` (with nothing but `.rewindignore` when `!git_rules`).
fn walk_builder(root: &Path, git_rules: bool) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(false)
        .parents(false)
        .ignore(false)
        .git_ignore(git_rules)
        .git_exclude(git_rules)
        .git_global(git_rules)
        .require_git(false)
        .follow_links(false)
        .add_custom_ignore_filename(".rewindignore")
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != ".rewind");
    let (mut files, mut dirs) = (BTreeSet::new(), BTreeSet::new());
    for entry in b.build() {
        let entry = entry.expect("walks");
        let rel = entry.path().strip_prefix(root).expect("inside");
        let rel = rel.to_str().expect("utf8").to_owned();
        match entry.file_type() {
            Some(t) if t.is_dir() && !rel.is_empty() => dirs.insert(rel),
            Some(t) if t.is_file() => files.insert(rel),
            _ => false,
        };
    }
    (files, dirs)
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

fn size(root: &Path, rel: &str) -> u64 {
    std::fs::metadata(root.join(rel)).expect("stat").len()
}

#[test]
fn without_rewindignore_the_walk_lists_what_git_lists_and_the_ignored_files_git_ignores() {
    for seed in 0..40 {
        let dir = tree(seed, false);
        let root = dir.path();
        let (off, dirs) = listed(root, None);
        let others = git_paths(root, &["--others", "--cached", "--exclude-standard"]);
        assert_eq!(
            off, others,
            "seed {seed}: the stat-only walk is git's file set"
        );
        assert_eq!(
            (off.clone(), dirs.clone()),
            walk_builder(root, true),
            "seed {seed}: and the ignore crate's"
        );
        // With the rule on: the ignored files git reports that sit in walked directories and
        // are no larger than the cap, and nothing else.
        let (on, on_dirs) = listed(root, Some(CAP));
        assert_eq!(
            on_dirs, dirs,
            "seed {seed}: no ignored directory is entered"
        );
        let ignored = git_paths(root, &["--others", "-i", "--exclude-standard"]);
        let expected: BTreeSet<String> = ignored
            .into_iter()
            .filter(|p| parent(p).is_empty() || dirs.contains(parent(p)))
            .filter(|p| size(root, p) <= CAP)
            .collect();
        let added: BTreeSet<String> = on.difference(&off).cloned().collect();
        assert_eq!(added, expected, "seed {seed}: the small ignored files");
        assert!(off.is_subset(&on), "seed {seed}");
    }
}

#[test]
fn with_rewindignore_the_walk_agrees_with_the_ignore_crate_rule_for_rule() {
    let mut trees_with_rules = 0;
    for seed in 100..160 {
        let dir = tree(seed, true);
        let root = dir.path();
        trees_with_rules += usize::from(
            git_paths(root, &["--others"])
                .iter()
                .any(|p| p.ends_with(".rewindignore")),
        );
        let (off, dirs) = listed(root, None);
        let both = walk_builder(root, true);
        assert_eq!((off.clone(), dirs.clone()), both, "seed {seed}: stat-only");
        // On: what both rule sets leave, plus the small files of walked directories that only
        // git's rules ignore (the files a walk by `.rewindignore` alone lists).
        let (rewind_only, _) = walk_builder(root, false);
        let expected: BTreeSet<String> = rewind_only
            .into_iter()
            .filter(|p| parent(p).is_empty() || dirs.contains(parent(p)))
            .filter(|p| off.contains(p) || size(root, p) <= CAP)
            .collect();
        let (on, on_dirs) = listed(root, Some(CAP));
        assert_eq!(on_dirs, dirs, "seed {seed}");
        assert_eq!(on, expected, "seed {seed}: with the rule on");
    }
    assert!(trees_with_rules > 10, "the trees exercise .rewindignore");
}

#[test]
fn a_bang_pattern_reaches_into_an_ignored_directory_and_a_linked_worktree_excludes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    put(root, ".gitignore", b"target/\n");
    put(root, ".rewindignore", b"!target/keep/*.txt\n");
    put(root, "target/keep/a.txt", b"kept\n");
    put(root, "target/keep/b.o", b"not named\n");
    put(root, "target/debug/app", b"not named\n");
    // A linked worktree's `.git` file: its common directory's info/exclude counts.
    let common = tempfile::tempdir().expect("common");
    put(common.path(), "worktrees/w/commondir", b"../..\n");
    put(common.path(), "info/exclude", b"secret.txt\n");
    let gitdir = common.path().join("worktrees/w");
    put(
        root,
        ".git",
        format!("gitdir: {}\n", gitdir.display()).as_bytes(),
    );
    put(root, "secret.txt", &[b's'; 100]);
    put(root, "src/main.rs", b"fn main() {}\n");
    // The `.git` *file* is a file like any other (only `.git` directories are never entered).
    let (off, _) = listed(root, None);
    assert_eq!(
        off.into_iter().collect::<Vec<_>>(),
        [".git", ".gitignore", ".rewindignore", "src/main.rs"]
    );
    let (on, _) = listed(root, Some(1 << 20));
    assert_eq!(
        on.into_iter().collect::<Vec<_>>(),
        [
            ".git",
            ".gitignore",
            ".rewindignore",
            "secret.txt",
            "src/main.rs",
            "target/keep/a.txt"
        ]
    );
    // Under the cap's bytes: the excluded secret is too big, the re-included file never is.
    let (small, _) = listed(root, Some(10));
    assert!(!small.contains("secret.txt") && small.contains("target/keep/a.txt"));
}
