//! Every JSON scenario against the memory hosts.

use rewind_core::Engine;
use rewind_core::testkit::{Faulty, MemStore, MemWorkspace, SeqIds, TickClock};
use std::path::Path;

#[test]
fn every_scenario_passes_on_the_memory_hosts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenarios = rewind_tests::load_dir(&dir);
    assert!(
        scenarios.len() >= 10,
        "expected the scenario suite, found {} files",
        scenarios.len()
    );
    let mut failures = Vec::new();
    for (file, sc) in &scenarios {
        let mut engine = Engine::new(
            Faulty::new(MemStore::new()),
            Faulty::new(MemWorkspace::new()),
            TickClock::default(),
            SeqIds::default(),
        );
        if let Err(e) = rewind_tests::run(sc, &mut engine) {
            failures.push(format!("{file}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} scenario(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
