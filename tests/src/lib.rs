//! Cross-host conformance: a JSON call surface over the engine (the same method names and field
//! shapes as the JS API and the CLI's `--json`) and the scenario runner that drives it. The same
//! scenario files under `tests/scenarios/` run against every host.

pub mod call;
#[cfg(doctest)]
mod doc_examples;
pub mod scenario;
pub mod steps;

pub use call::{CallError, call};
pub use scenario::{Scenario, load_dir, run, run_all};
