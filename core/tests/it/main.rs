//! rewind-core integration tests: one binary, one module per concern.

// The purity rules in core/clippy.toml are for the engine; tests may look at their own files.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod contract;
mod corrupt;
mod faults;
mod fork;
mod gc;
mod guards;
mod harness;
mod ignored;
// Property tests run natively only: proptest does not build for wasm32-unknown-unknown.
#[cfg(not(target_arch = "wasm32"))]
mod props;
mod race;
mod record;
mod sessions;
mod shell;
mod shell_attribution;
mod snapshot;

/// Every file in this directory is a declared module, so no test file is silently skipped.
/// Native only: wasm32 has no file system to list (the native run covers the check).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_test_file_is_declared() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
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
