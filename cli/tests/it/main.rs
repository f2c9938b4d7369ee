//! The `rewind` binary's integration tests: one test binary, one module per concern (the
//! module names are the old file names, so a failure still says where it comes from). One
//! binary, not one per file: each file was its own crate, recompiling `common/` and linking the
//! whole dependency graph again, ~50 times over in `cargo test` and again in clippy.

// The helpers shared by the modules, compiled once.
mod common;
mod mcp_client;
// The throwaway PostgreSQL cluster (one per test process, a fresh database per test), shared
// with host-node's tests. `#[macro_use]`: `pg_or_skip!` is in scope in the modules below.
#[path = "../../../host-node/tests/common/pg.rs"]
#[macro_use]
mod pg;

mod cli;
mod cli_agent_resume;
mod cli_attribution;
mod cli_current;
mod cli_diff;
mod cli_doctor;
mod cli_edit_external;
mod cli_edit_stdin;
mod cli_fork;
mod cli_gc;
mod cli_help;
mod cli_hook;
mod cli_hook_attribution;
mod cli_hook_bounds;
mod cli_hook_dialects;
mod cli_hook_dirs;
mod cli_hook_quirks;
mod cli_id_slips;
mod cli_ignored;
mod cli_import;
mod cli_init;
mod cli_init_agents;
mod cli_log;
mod cli_mcp;
mod cli_mcp_rewind;
mod cli_mixed_conflicts;
mod cli_open_turn;
mod cli_output_safety;
mod cli_pager;
mod cli_pick;
mod cli_postgres;
mod cli_refs;
mod cli_session_admin;
mod cli_shell;
mod cli_shell_dirs;
mod cli_shell_kept;
mod cli_show;
mod cli_show_turns;
mod cli_slips;
mod cli_snapshots;
mod cli_status;
mod concurrency;
mod crash;
mod locate;
mod pg_doubt;
mod pg_errors;
mod safety;
mod serve_attack;
mod serve_http;
mod serve_postgres;
mod serve_slow;
mod serve_stdio;

/// Every file in this directory is a declared module, so no test file is silently skipped; and
/// no test file sits beside this directory, where cargo would make it a binary of its own.
#[test]
fn every_test_file_is_declared() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&tests).expect("tests/") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            !name.ends_with(".rs"),
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
