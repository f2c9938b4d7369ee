//! rewind-host's integration tests: one test binary, one module per concern (the module names
//! are the old file names). One binary, not one per file: each file was its own crate, linking
//! the whole dependency graph again in `cargo test` and in clippy.
//!
//! `postgres.rs` stays a binary of its own: its store contract, without PostgreSQL, skips by
//! ending the process (`pg::fresh_store`), which here would end every other test with it.

// The throwaway PostgreSQL cluster (one per test process, a fresh database per test).
#[path = "../common/pg.rs"]
#[macro_use]
mod pg;

mod db_location;
mod delta;
mod disk;
mod postgres_open;
mod range_reads;
mod scan;
mod scan_rules;
mod sqlite;
mod sqlite_wal;
mod watch;
mod watch_snapshot;

// The guard below, shared with the other one-binary test crate.
#[path = "../common/declared.rs"]
mod declared;

/// Every file in `tests/it/` is a declared module and no test file but `postgres.rs` (above)
/// sits directly in `tests/`.
#[test]
fn every_test_file_is_declared() {
    declared::check(env!("CARGO_MANIFEST_DIR"), &["postgres.rs"]);
}
