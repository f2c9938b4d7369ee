//! The Rust examples of the README and of `docs/rust.md`, compiled and run as doc tests
//! (`cargo test -p rewind-tests --doc`), so none of them can go stale. This crate has every
//! dependency they use: rewind-core with its test kit, rewind-host, tempfile.

/// README.md, the front door.
#[doc = include_str!("../../README.md")]
pub struct Readme;

/// docs/rust.md, the Rust guide.
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuide;
