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

/// Every file in this directory is a declared module, so no test file is silently skipped; and
/// no test file but `postgres.rs` sits beside this directory, where cargo would make it a binary
/// of its own.
#[test]
fn every_test_file_is_declared() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&tests).expect("tests/") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            !name.ends_with(".rs") || name == "postgres.rs",
            "tests/{name}: move it into tests/it/ as a module"
        );
    }
    let dir = tests.join("it");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    for entry in std::fs::read_dir(&dir).expect("dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            assert!(
                main.contains(&format!("mod {module};")),
                "{name} is not declared in main.rs"
            );
        }
    }
}
