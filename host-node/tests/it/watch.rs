//! The change journal against real files: a running watcher names exactly what changed since a
//! manifest's token, and says "walk everything" whenever it cannot vouch (no token yet, the
//! journal full, an ignore file changed, the watcher gone).
#![cfg(target_os = "linux")]

use rewind_core::hash::ContentHash;
use rewind_core::ports::Scan;
use rewind_host::disk::DiskWorkspace;
use rewind_host::watch::{self, Settings};
use std::fs;
use std::time::{Duration, Instant};

fn hash(n: u8) -> ContentHash {
    ContentHash::of(&[n])
}

fn names(ws: &mut DiskWorkspace, since: &ContentHash) -> Option<Vec<String>> {
    let mut out: Vec<String> = ws
        .changed_since(Some(since))?
        .iter()
        .map(|p| p.as_str().to_owned())
        .collect();
    out.sort();
    Some(out)
}

/// A watcher on a fresh tree, and a workspace whose first walk's token it vouches for as `1`.
fn started(max_paths: usize, idle: Duration) -> (tempfile::TempDir, DiskWorkspace) {
    let dir = tempfile::tempdir().expect("test setup");
    fs::write(dir.path().join("a.txt"), "a").expect("test setup");
    fs::create_dir(dir.path().join("src")).expect("test setup");
    fs::write(dir.path().join("src/b.txt"), "b").expect("test setup");
    let root = fs::canonicalize(dir.path()).expect("test setup");
    let settings = Settings {
        root: root.clone(),
        dir: watch::dir_of(&root.join(".rewind")),
        idle,
        max_paths,
    };
    std::thread::spawn(move || watch::run(settings));
    let mut ws = DiskWorkspace::open(&root)
        .expect("test setup")
        .watch_changes(true);
    let deadline = Instant::now() + Duration::from_secs(10);
    // Not vouched for until it answers with a token: the first walk is whole.
    loop {
        assert_eq!(ws.changed_since(None), None);
        ws.vouch(&hash(1));
        if names(&mut ws, &hash(1)).is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "the watcher never became ready");
        std::thread::sleep(Duration::from_millis(20));
    }
    ws.vouch(&hash(1));
    (dir, ws)
}

#[test]
fn names_what_changed_since_a_token_and_nothing_else() {
    let (dir, mut ws) = started(1000, Duration::from_secs(60));
    assert_eq!(names(&mut ws, &hash(1)), Some(vec![]));
    fs::write(dir.path().join("src/b.txt"), "changed").expect("test setup");
    let got = names(&mut ws, &hash(1)).expect("test setup");
    assert_eq!(got, vec!["src/b.txt"]);
    ws.vouch(&hash(2));
    assert_eq!(names(&mut ws, &hash(2)), Some(vec![]));
    ws.vouch(&hash(2));
    // A new directory and what is made in it at once: the directory is named (walked whole).
    fs::create_dir(dir.path().join("new")).expect("test setup");
    fs::write(dir.path().join("new/c.txt"), "c").expect("test setup");
    fs::remove_file(dir.path().join("a.txt")).expect("test setup");
    let got = names(&mut ws, &hash(2)).expect("test setup");
    assert!(got.contains(&"new".to_owned()), "{got:?}");
    assert!(got.contains(&"a.txt".to_owned()), "{got:?}");
    // The store's own files never count.
    ws.vouch(&hash(3));
    fs::write(dir.path().join(".rewind/x.db"), "x").expect("test setup");
    assert_eq!(names(&mut ws, &hash(3)), Some(vec![]));
    // A token for another manifest is unknown: walk everything.
    assert_eq!(names(&mut ws, &hash(9)), None);
}

#[test]
fn a_full_journal_or_a_changed_ignore_file_means_walk_everything() {
    let (dir, mut ws) = started(3, Duration::from_secs(60));
    for i in 0..5 {
        fs::write(dir.path().join(format!("f{i}")), "x").expect("test setup");
    }
    assert_eq!(names(&mut ws, &hash(1)), None);
    ws.vouch(&hash(2));
    assert_eq!(names(&mut ws, &hash(2)), Some(vec![]));
    ws.vouch(&hash(2));
    fs::write(dir.path().join(".gitignore"), "*.log\n").expect("test setup");
    assert_eq!(names(&mut ws, &hash(2)), None);
}

#[test]
fn a_watcher_gone_idle_vouches_for_nothing() {
    let (dir, mut ws) = started(1000, Duration::from_millis(600));
    std::thread::sleep(Duration::from_millis(1500));
    fs::write(dir.path().join("a.txt"), "changed").expect("test setup");
    assert_eq!(names(&mut ws, &hash(1)), None);
}
