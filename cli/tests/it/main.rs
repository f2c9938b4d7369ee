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

// The guard below, shared with the other one-binary test crate.
#[path = "../../../host-node/tests/common/declared.rs"]
mod declared;

/// Every file in `tests/it/` is a declared module and no test file sits directly in `tests/`.
#[test]
fn every_test_file_is_declared() {
    declared::check(env!("CARGO_MANIFEST_DIR"), &[]);
}
