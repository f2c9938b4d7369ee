//! The disk workspace's walk for shell capture: which files a snapshot sees, by git's rules.

use rewind_core::ports::{EntryKind, Workspace};
use rewind_host::DiskWorkspace;
use std::path::Path;

fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, bytes).expect("write");
}

fn listed(root: &Path) -> Vec<String> {
    listed_with(root, None)
}

/// The files listed when ignored files up to `cap` bytes are tracked too (`None`: none are).
fn listed_with(root: &Path, cap: Option<u64>) -> Vec<String> {
    let ws = DiskWorkspace::open(root).expect("open");
    let mut ws = ws.track_ignored_files(cap);
    let listing = ws.scanner().expect("disk scans").list().expect("list");
    assert!(listing.unlisted.is_empty(), "{:?}", listing.unlisted);
    listing
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::File)
        .map(|e| e.path.to_string())
        .collect()
}

#[test]
fn the_walk_follows_gitignore_precedence_and_never_enters_git_or_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    put(root, ".gitignore", b"*.tmp\nbuild/\n");
    put(root, "a.tmp", b"ignored at the root\n");
    put(root, "src/lib.rs", b"kept\n");
    // A deeper directory's rules win: it takes one .tmp file back.
    put(root, "src/.gitignore", b"!keep.tmp\n");
    put(root, "src/keep.tmp", b"re-included\n");
    put(root, "src/other.tmp", b"still ignored\n");
    // An ignored directory is not entered, whatever is inside.
    put(root, "build/out.o", b"obj\n");
    // .rewindignore wins over .gitignore in the same directory.
    put(root, "docs/.gitignore", b"!draft.md\n");
    put(root, "docs/.rewindignore", b"draft.md\n");
    put(root, "docs/draft.md", b"not tracked\n");
    put(root, "docs/final.md", b"tracked\n");
    // .git/info/exclude counts; .git/ and .rewind/ are never walked.
    put(root, ".git/info/exclude", b"local.env\n");
    put(root, ".git/HEAD", b"ref: refs/heads/main\n");
    put(root, "local.env", b"SECRET=1\n");
    put(root, ".rewind/rewind.db", b"db\n");
    put(root, "nested/.rewind/x", b"db\n");
    put(root, ".hidden", b"dotfiles are files\n");
    assert_eq!(
        listed(root),
        [
            ".gitignore",
            ".hidden",
            "docs/.gitignore",
            "docs/.rewindignore",
            "docs/final.md",
            "src/.gitignore",
            "src/keep.tmp",
            "src/lib.rs",
        ]
    );
    // By default the small ignored files in walked directories are listed too; an ignored
    // directory's files and what .rewindignore excludes still are not.
    let with_ignored = listed_with(root, Some(rewind_host::disk::IGNORED_FILE_MAX_BYTES));
    let added: Vec<&String> = with_ignored
        .iter()
        .filter(|p| !listed(root).contains(p))
        .collect();
    assert_eq!(added, ["a.tmp", "local.env", "src/other.tmp"]);
    // The cap counts bytes: a 12-byte cap keeps the 9-byte local.env only.
    let capped = listed_with(root, Some(12));
    assert!(capped.contains(&"local.env".to_owned()) && !capped.contains(&"a.tmp".to_owned()));
}

#[cfg(unix)]
#[test]
fn links_are_listed_as_links_and_never_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let outside = tempfile::tempdir().expect("outside");
    put(outside.path(), "secret.txt", b"outside\n");
    std::os::unix::fs::symlink(outside.path(), root.join("out-dir")).expect("link");
    std::os::unix::fs::symlink("a.txt", root.join("to-a")).expect("link");
    put(root, "a.txt", b"a\n");
    let mut ws = DiskWorkspace::open(root).expect("open");
    let listing = ws.scanner().expect("scans").list().expect("list");
    let kinds: Vec<(String, EntryKind)> = listing
        .entries
        .iter()
        .map(|e| (e.path.to_string(), e.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a.txt".to_owned(), EntryKind::File),
            ("out-dir".to_owned(), EntryKind::Symlink),
            ("to-a".to_owned(), EntryKind::Symlink),
        ]
    );
}
