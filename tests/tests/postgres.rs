//! Every JSON scenario against PostgreSQL (a real, throwaway cluster: `host-node/tests/common/pg.rs`,
//! a fresh database per scenario) and a real directory: the suite SQLite, the memory hosts, wasm
//! and the Node addon run, so a behaviour is checked on every store the native engine opens.

#[path = "../../host-node/tests/common/pg.rs"]
mod pg;

use rewind_core::Engine;
use rewind_core::testkit::{Faulty, SeqIds, TickClock};
use rewind_host::{DiskWorkspace, PgStore};

#[test]
fn every_scenario_passes_on_postgresql_and_a_real_directory() {
    let Some(cluster) = pg::cluster() else {
        return;
    };
    let ran = rewind_tests::run_all(|| {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("ws");
        std::fs::create_dir_all(&root).expect("mkdir");
        let store = PgStore::open(&cluster.url(&cluster.fresh_db())).expect("postgres");
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
    match ran {
        Ok(n) => assert!(n >= 10, "only {n} scenarios ran"),
        Err(failures) => panic!("{failures}"),
    }
}
