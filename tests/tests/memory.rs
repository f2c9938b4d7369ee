//! Every JSON scenario against the memory hosts.

use rewind_core::Engine;
use rewind_core::testkit::{Faulty, MemStore, MemWorkspace, SeqIds, TickClock};

#[test]
fn every_scenario_passes_on_the_memory_hosts() {
    let ran = rewind_tests::run_all(|| {
        let engine = Engine::new(
            Faulty::new(MemStore::new()),
            Faulty::new(MemWorkspace::new()),
            TickClock::default(),
            SeqIds::default(),
        );
        (engine, ())
    });
    if let Err(failures) = ran {
        panic!("{failures}");
    }
}
