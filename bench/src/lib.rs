//! rewind-bench: the scenarios behind `scripts/bench`, one module each, plus the timing harness
//! and the Markdown report. The binary (`src/main.rs`) runs them in order and writes
//! BENCHMARKS.md.

pub mod checkpoint;
pub mod cli_log;
pub mod cli_refs;
pub mod corpus;
pub mod floor;
pub mod harness;
pub mod hashing;
pub mod hook;
pub mod hook_edit;
pub mod hook_io;
pub mod hook_shell;
pub mod hook_shell_rig;
pub mod ops;
pub mod per_call;
pub mod reload;
pub mod reload_whole;
pub mod report;
pub mod resume;
pub mod scale_data;
pub mod scaling;
pub mod serve;
pub mod session;
pub mod shadow;
pub mod shell;
pub mod shell_ignored;
pub mod shell_report;
pub mod shell_tree;
pub mod storage;
pub mod walk_before;
pub mod workload;
