//! Every JSON scenario against the native hosts: SQLite (in memory and on disk) and a real
//! directory.

use rewind_core::Engine;
use rewind_core::testkit::{Faulty, SeqIds, TickClock};
use rewind_host::{DiskWorkspace, SqliteStore};
use std::path::Path;

fn run_all(open_store: impl Fn(&Path) -> SqliteStore) {
    let ran = rewind_tests::run_all(|| {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("ws");
        std::fs::create_dir_all(&root).expect("mkdir");
        let store = open_store(tmp.path());
        let ws = DiskWorkspace::open(&root).expect("workspace");
        (
            Engine::new(
                Faulty::new(store),
                Faulty::new(ws),
                TickClock::default(),
                SeqIds::default(),
            ),
            tmp,
        )
    });
    if let Err(failures) = ran {
        panic!("{failures}");
    }
}

#[test]
fn every_scenario_passes_on_sqlite_in_memory_and_a_real_directory() {
    run_all(|_| SqliteStore::open_in_memory().expect("sqlite"));
}

#[test]
fn every_scenario_passes_on_sqlite_on_disk_and_a_real_directory() {
    run_all(|dir| SqliteStore::open(&dir.join("rewind.db")).expect("sqlite"));
}
