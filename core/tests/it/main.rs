//! rewind-core integration tests: one binary, one module per concern.

mod contract;
mod faults;
mod harness;
mod props;
mod race;
