//! The disk workspace: the shared workspace contract, plus what only a real disk has: symlinks,
//! file modes, temp files and the engine's own store directory.

use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use rewind_core::{HostError, HostErrorKind};
use rewind_host::DiskWorkspace;
use std::fs;
use std::path::Path;
use tempfile::TempDir;

/// A disk workspace over its own temp directory, which lives exactly as long as it does.
struct TempWorkspace {
    ws: DiskWorkspace,
    dir: TempDir,
}

impl Workspace for TempWorkspace {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        self.ws.read(path)
    }
    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        self.ws.write(path, bytes)
    }
    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.ws.remove(path)
    }
}

impl TempWorkspace {
    fn root(&self) -> &Path {
        self.dir.path()
    }
}

fn fresh() -> TempWorkspace {
    let dir = TempDir::new().expect("temp dir");
    let ws = DiskWorkspace::open(dir.path()).expect("open");
    TempWorkspace { ws, dir }
}

rewind_core::workspace_contract!(disk, fresh());

// A commit whose outcome is unknown, on real SQLite and real files: nothing is rolled back on
// a guess, and recover makes the log and the files agree (SQLite itself is never in doubt; the
// faults stand in for a store that can be).
rewind_core::in_doubt_contract!(
    sqlite_and_disk_in_doubt,
    rewind_core::testkit::Faulty::new(rewind_host::SqliteStore::open_in_memory().expect("open")),
    fresh()
);

fn p(s: &str) -> WorkPath {
    WorkPath::parse(s).expect("valid path")
}

fn put(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, bytes).expect("put");
}

/// Every entry under `dir`, relative, sorted; symlinks are listed, not followed.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path.strip_prefix(base).expect("under base");
            out.push(rel.to_string_lossy().into_owned());
            let meta = fs::symlink_metadata(&path).expect("stat");
            if meta.is_dir() {
                walk(base, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn temp_files(dir: &Path) -> Vec<String> {
    tree(dir)
        .into_iter()
        .filter(|e| e.contains(".rewind-") && e.ends_with(".tmp"))
        .collect()
}

fn assert_invalid(result: Result<impl std::fmt::Debug, HostError>, needles: &[&str]) {
    let err = result.expect_err("must be refused");
    assert_eq!(err.kind(), HostErrorKind::InvalidPath, "{err}");
    for needle in needles {
        assert!(err.message().contains(needle), "{err} should name {needle}");
    }
}

#[cfg(unix)]
use std::os::unix::fs::symlink;

#[test]
fn open_needs_an_existing_directory() {
    let dir = TempDir::new().expect("temp dir");
    let missing = dir.path().join("nope");
    let err = DiskWorkspace::open(&missing).expect_err("missing root");
    assert_eq!(err.kind(), HostErrorKind::Io);
    assert!(err.message().contains(&*missing.to_string_lossy()), "{err}");
    assert!(err.message().contains("does not exist"), "{err}");

    let file = dir.path().join("file");
    put(&file, b"x");
    let err = DiskWorkspace::open(&file).expect_err("file root");
    assert!(err.message().contains(&*file.to_string_lossy()), "{err}");
    assert!(err.message().contains("not a directory"), "{err}");

    let ws = DiskWorkspace::open(dir.path()).expect("open");
    let canonical = fs::canonicalize(dir.path()).expect("canonical");
    assert_eq!(ws.root(), canonical);
    assert_eq!(
        ws.resolve(&p("a/b.txt")).expect("resolve"),
        canonical.join("a").join("b.txt")
    );
}

#[cfg(unix)]
#[test]
fn symlinked_directory_outside_the_root_is_refused() {
    let mut w = fresh();
    let outside = TempDir::new().expect("outside");
    put(&outside.path().join("a.txt"), b"outside");
    symlink(outside.path(), w.root().join("out")).expect("symlink");
    let shown = fs::canonicalize(outside.path()).expect("canonical");
    let shown = shown.to_string_lossy();

    assert_invalid(w.read(&p("out/a.txt")), &["out/a.txt", &shown]);
    assert_invalid(w.write(&p("out/a.txt"), b"pwned"), &["out/a.txt", &shown]);
    assert_invalid(w.write(&p("out/new/b.txt"), b"pwned"), &["out/new/b.txt"]);
    assert_invalid(w.remove(&p("out/a.txt")), &["out/a.txt", &shown]);
    assert_invalid(w.ws.resolve(&p("out/a.txt")), &[&shown]);

    assert_eq!(tree(outside.path()), ["a.txt"]);
    assert_eq!(
        fs::read(outside.path().join("a.txt")).expect("read"),
        b"outside"
    );
    assert_eq!(tree(w.root()), ["out"]);
}

#[cfg(unix)]
#[test]
fn symlinked_file_outside_the_root_is_refused() {
    let mut w = fresh();
    let outside = TempDir::new().expect("outside");
    let secret = outside.path().join("secret.txt");
    put(&secret, b"secret");
    symlink(&secret, w.root().join("link.txt")).expect("symlink");
    // A relative target with '..' must not disguise where it leads.
    let hops = "../".repeat(w.root().components().count());
    let sneaky = format!("{hops}{}", secret.to_string_lossy().trim_start_matches('/'));
    symlink(&sneaky, w.root().join("sneaky.txt")).expect("symlink");

    for name in ["link.txt", "sneaky.txt"] {
        assert_invalid(w.read(&p(name)), &[name, "secret.txt"]);
        assert_invalid(w.write(&p(name), b"pwned"), &[name, "secret.txt"]);
        assert_invalid(w.remove(&p(name)), &[name]);
        let meta = fs::symlink_metadata(w.root().join(name)).expect("stat");
        assert!(meta.file_type().is_symlink(), "{name} is still a link");
    }
    assert_eq!(fs::read(&secret).expect("read"), b"secret");
    assert_eq!(tree(outside.path()), ["secret.txt"]);
}

#[cfg(unix)]
#[test]
fn symlinks_inside_the_root_are_followed_and_kept() {
    let mut w = fresh();
    put(&w.root().join("real.txt"), b"one");
    symlink("real.txt", w.root().join("alias.txt")).expect("symlink");
    fs::create_dir(w.root().join("sub")).expect("mkdir");
    symlink("sub", w.root().join("dirlink")).expect("symlink");

    assert_eq!(
        w.read(&p("alias.txt")).expect("read"),
        Some(b"one".to_vec())
    );
    w.write(&p("alias.txt"), b"two").expect("write");
    let meta = fs::symlink_metadata(w.root().join("alias.txt")).expect("stat");
    assert!(meta.file_type().is_symlink(), "the link stays a link");
    assert_eq!(fs::read(w.root().join("real.txt")).expect("read"), b"two");

    w.write(&p("dirlink/x/y.txt"), b"deep").expect("write");
    assert_eq!(
        fs::read(w.root().join("sub/x/y.txt")).expect("read"),
        b"deep"
    );
    let canonical = fs::canonicalize(w.root()).expect("canonical");
    assert_eq!(
        w.ws.resolve(&p("alias.txt")).expect("resolve"),
        canonical.join("real.txt")
    );

    // Removing a link removes the link, never the file it names.
    w.remove(&p("alias.txt")).expect("remove");
    assert!(fs::symlink_metadata(w.root().join("alias.txt")).is_err());
    assert_eq!(fs::read(w.root().join("real.txt")).expect("read"), b"two");
    assert_eq!(w.read(&p("alias.txt")).expect("read"), None);
}

#[cfg(unix)]
#[test]
fn dangling_symlinks_are_never_written_through() {
    let mut w = fresh();
    let outside = TempDir::new().expect("outside");
    let far = outside.path().join("nowhere.txt");
    symlink(&far, w.root().join("far.txt")).expect("symlink");
    symlink("nowhere.txt", w.root().join("near.txt")).expect("symlink");
    symlink(outside.path().join("nodir"), w.root().join("fardir")).expect("symlink");

    for name in ["far.txt", "near.txt", "fardir/x.txt"] {
        assert_eq!(w.read(&p(name)).expect("read"), None, "{name}");
        assert_invalid(w.write(&p(name), b"x"), &[name, "does not exist"]);
        w.remove(&p(name)).expect("nothing to remove");
    }
    assert!(tree(outside.path()).is_empty());
    assert_eq!(tree(w.root()), ["far.txt", "fardir", "near.txt"]);
}

#[cfg(unix)]
#[test]
fn the_rewind_store_is_never_touched() {
    let mut w = fresh();
    put(&w.root().join(".rewind/db.sqlite"), b"db");
    symlink(".rewind", w.root().join("store")).expect("symlink");
    for name in [
        ".rewind/db.sqlite",
        ".rewind/new.txt",
        ".REWIND/x",
        "store/db.sqlite",
    ] {
        assert_invalid(w.read(&p(name)), &[name, ".rewind"]);
        assert_invalid(w.write(&p(name), b"x"), &[name]);
        assert_invalid(w.remove(&p(name)), &[name]);
    }
    assert_invalid(w.write(&p(".rewind"), b"x"), &[".rewind"]);
    assert_eq!(tree(w.root()), [".rewind", ".rewind/db.sqlite", "store"]);
    assert_eq!(
        fs::read(w.root().join(".rewind/db.sqlite")).expect("read"),
        b"db"
    );
    // At any depth, and through a link to the root (`loop/.rewind/…`), the store is refused.
    assert_invalid(w.write(&p("docs/.rewind/x"), b"no"), &["docs/.rewind/x"]);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(".", w.root().join("loop")).expect("symlink");
        for name in ["loop/.rewind/db.sqlite", "loop/loop/.rewind/new.txt"] {
            assert_invalid(w.write(&p(name), b"x"), &[name]);
            assert_invalid(w.remove(&p(name)), &[name]);
        }
        assert_eq!(
            fs::read(w.root().join(".rewind/db.sqlite")).expect("read"),
            b"db"
        );
    }
    // Git's internals are refused by default, anywhere; files that only look like them are not.
    for name in [
        ".git/hooks/pre-commit",
        "vendor/lib/.git/config",
        ".GIT/HEAD",
    ] {
        assert_invalid(w.write(&p(name), b"x"), &[name, "allowGitWrites"]);
    }
    w.write(&p(".gitignore"), b"target/\n")
        .expect("a .gitignore is an ordinary file");
    w.write(&p(".github/ci.yml"), b"on: push\n")
        .expect(".github is not .git");
    let mut allowed = w.ws.clone().allow_git_writes(true);
    allowed
        .write(&p(".git/info/exclude"), b"x\n")
        .expect("allowed by configuration");
}

#[cfg(unix)]
#[test]
fn file_modes_survive_a_write() {
    use std::os::unix::fs::PermissionsExt;
    let mut w = fresh();
    for (name, mode) in [("run.sh", 0o755), ("key.pem", 0o600), ("ro.txt", 0o444)] {
        w.write(&p(name), b"old").expect("write");
        let disk = w.root().join(name);
        fs::set_permissions(&disk, fs::Permissions::from_mode(mode)).expect("chmod");
        w.write(&p(name), b"new").expect("write");
        let got = fs::metadata(&disk).expect("stat").permissions().mode() & 0o7777;
        assert_eq!(got, mode, "{name}: {got:o}");
        assert_eq!(fs::read(&disk).expect("read"), b"new");
    }
}

#[test]
fn bytes_are_never_decoded_or_converted() {
    let mut w = fresh();
    let cases: [&[u8]; 5] = [
        b"line\r\nline\r\n",
        b"lone\rcr\n\n",
        b"nul\0inside\0",
        &[0xff, 0xfe, 0xc3, 0x28, 0x80, b'\n'],
        &[0xef, 0xbb, 0xbf, b'b', b'o', b'm'],
    ];
    for (i, bytes) in cases.iter().enumerate() {
        let name = format!("f{i}.bin");
        w.write(&p(&name), bytes).expect("write");
        assert_eq!(w.read(&p(&name)).expect("read").as_deref(), Some(*bytes));
        assert_eq!(fs::read(w.root().join(&name)).expect("read"), *bytes);
    }
}

#[test]
fn writing_over_a_directory_fails_and_changes_nothing() {
    let mut w = fresh();
    put(&w.root().join("d/inner.txt"), b"keep");
    let err = w.write(&p("d"), b"x").expect_err("target is a directory");
    assert_eq!(err.kind(), HostErrorKind::Io);
    assert!(err.message().contains("is a directory"), "{err}");
    assert_eq!(tree(w.root()), ["d", "d/inner.txt"]);
    assert_eq!(
        fs::read(w.root().join("d/inner.txt")).expect("read"),
        b"keep"
    );

    let err = w.read(&p("d")).expect_err("read a directory");
    assert_eq!(err.kind(), HostErrorKind::Io);
    assert!(err.message().contains("is a directory"), "{err}");
    let err = w.remove(&p("d")).expect_err("remove a directory");
    assert_eq!(err.kind(), HostErrorKind::Io);
    assert_eq!(tree(w.root()), ["d", "d/inner.txt"]);
}

#[test]
fn a_file_in_the_way_of_a_directory() {
    let mut w = fresh();
    put(&w.root().join("f"), b"file");
    assert_eq!(w.read(&p("f/x.txt")).expect("read"), None);
    w.remove(&p("f/x.txt")).expect("nothing to remove");
    let err = w.write(&p("f/x.txt"), b"x").expect_err("f is a file");
    assert_eq!(err.kind(), HostErrorKind::Io);
    assert!(err.message().contains("not a directory"), "{err}");
    assert_eq!(tree(w.root()), ["f"]);
}

#[test]
fn a_failed_write_takes_back_the_directories_it_made() {
    let mut w = fresh();
    // A name too long for the file system fails only after `new/dirs` were made.
    let long = format!("new/dirs/{}", "n".repeat(300));
    let err = w.write(&p(&long), b"x").expect_err("name too long");
    assert_eq!(err.kind(), HostErrorKind::Io);
    assert!(err.message().contains("new/dirs/nnn"), "{err}");
    assert!(tree(w.root()).is_empty(), "{:?}", tree(w.root()));
}

#[test]
fn successful_writes_leave_no_temp_files() {
    let mut w = fresh();
    for i in 0..5 {
        w.write(&p("a/b/c.txt"), format!("v{i}").as_bytes())
            .expect("write");
        w.write(&p(&format!("top{i}")), b"x").expect("write");
    }
    w.write(&p(&"l".repeat(250)), b"long name").expect("write");
    assert!(
        temp_files(w.root()).is_empty(),
        "{:?}",
        temp_files(w.root())
    );
    assert_eq!(w.read(&p("a/b/c.txt")).expect("read"), Some(b"v4".to_vec()));
}

#[test]
fn remove_leaves_parent_directories() {
    let mut w = fresh();
    w.write(&p("a/b/c.txt"), b"x").expect("write");
    w.remove(&p("a/b/c.txt")).expect("remove");
    assert_eq!(tree(w.root()), ["a", "a/b"]);
    w.remove(&p("gone/also/x")).expect("missing is fine");
}
