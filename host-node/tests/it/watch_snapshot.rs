//! Snapshots the change journal vouches for, end to end on real files: a snapshot with nothing
//! changed reuses the previous manifest, one after a command walks only what changed, and what
//! either records is exactly what a whole walk of the same tree finds.
#![cfg(target_os = "linux")]

use rewind_core::Engine;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::record::{PromptOptions, SessionOptions};
use rewind_core::shell::{Attribution, Options, Outcome};
use rewind_host::watch::{self, Settings};
use rewind_host::{DiskWorkspace, NativeWorkspace, RandomIds, SqliteStore, SystemClock};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

type Native = Engine<SqliteStore, NativeWorkspace>;

fn engine(root: &Path, db: &Path, watching: bool) -> Native {
    let disk = DiskWorkspace::open(root)
        .expect("workspace")
        .watch_changes(watching);
    let store = SqliteStore::open(db).expect("store");
    Engine::new(store, NativeWorkspace::new(disk), SystemClock, RandomIds)
}

fn snap(e: &mut Native, s: &SessionId, t: &TurnId) -> Outcome {
    let opts = Options {
        turn_id: t.clone(),
        command: Some("cmd".into()),
        tool_name: None,
        tool_call_id: None,
        tool_message_id: None,
        attribution: Attribution::Command,
    };
    e.snapshot_workspace(s, opts).expect("snapshot")
}

fn names(paths: &[rewind_core::path::WorkPath]) -> Vec<&str> {
    paths.iter().map(|p| p.as_str()).collect()
}

#[test]
fn journal_snapshots_record_what_a_whole_walk_finds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = fs::canonicalize(dir.path()).expect("root");
    fs::write(root.join("a.txt"), "a").expect("write");
    fs::create_dir_all(root.join("src/deep")).expect("mkdir");
    fs::write(root.join("src/b.txt"), "b").expect("write");
    fs::write(root.join("src/deep/d.txt"), "d").expect("write");
    let settings = Settings {
        root: root.clone(),
        dir: watch::dir_of(&root.join(".rewind")),
        idle: Duration::from_secs(60),
        max_paths: 1000,
    };
    std::thread::spawn(move || watch::run(settings));
    let sock = watch::dir_of(&root.join(".rewind")).join("sock");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sock.exists() {
        assert!(Instant::now() < deadline, "no watcher");
        std::thread::sleep(Duration::from_millis(20));
    }
    let db = root.join(".rewind/rewind.db");
    let mut e = engine(&root, &db, true);
    let s = e
        .create_session(SessionOptions::default())
        .expect("session")
        .id;
    let t = e
        .record_prompt(
            &s,
            PromptOptions {
                text: "go".into(),
                payload: None,
            },
        )
        .expect("prompt")
        .turn_id;
    snap(&mut e, &s, &t);
    // Until the watcher vouches for a manifest the snapshots walk; then nothing is read.
    let mut quiet = snap(&mut e, &s, &t);
    while quiet.skipped == 0 || quiet.reread != 0 {
        assert!(Instant::now() < deadline, "never vouched");
        quiet = snap(&mut e, &s, &t);
    }
    let again = snap(&mut e, &s, &t);
    assert_eq!((again.reread, again.checkpoint_id), (0, None));
    assert_eq!(again.manifest, quiet.manifest);
    // A command: one file changed, one made in a new directory, one deleted.
    fs::write(root.join("src/deep/d.txt"), "changed").expect("write");
    fs::create_dir(root.join("new")).expect("mkdir");
    fs::write(root.join("new/c.txt"), "c").expect("write");
    fs::remove_file(root.join("a.txt")).expect("remove");
    let cmd = snap(&mut e, &s, &t);
    assert_eq!(names(&cmd.changed.modified), ["src/deep/d.txt"]);
    assert_eq!(names(&cmd.changed.created), ["new", "new/c.txt"]);
    assert_eq!(names(&cmd.changed.deleted), ["a.txt"]);
    assert!(cmd.checkpoint_id.is_some());
    // A whole walk of the same tree finds the journal's manifest exact: nothing to record.
    drop(e);
    let mut whole = engine(&root, &db, false);
    let check = snap(&mut whole, &s, &t);
    assert_eq!(check.checkpoint_id, None, "{:?}", check.changed);
    assert_eq!(check.changed, Default::default());
    assert_eq!(check.files, cmd.files);
}
