//! The adapter contracts, run against the memory hosts (the suite's reference run).

use rewind_core::testkit::{Faulty, MemStore, MemWorkspace};

rewind_core::store_contract!(mem_store, MemStore::new());
rewind_core::store_contract!(faulty_mem_store, Faulty::new(MemStore::new()));
rewind_core::workspace_contract!(mem_workspace, MemWorkspace::new());
rewind_core::in_doubt_contract!(
    mem_in_doubt,
    Faulty::new(MemStore::new()),
    MemWorkspace::new()
);
