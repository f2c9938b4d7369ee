//! The guard every one-binary test crate runs (`tests/it/main.rs`): each file in `tests/it/` is
//! a declared module, so no test file is silently skipped, and no test file sits directly in
//! `tests/`, where cargo would make it a binary of its own again (each such binary compiles and
//! links the whole dependency graph once more). Shared by `#[path]`, as `pg.rs` is.

use std::path::Path;

/// Check the crate at `manifest_dir`; `standalone` names the files allowed to stay binaries of
/// their own in `tests/` (with why at the caller).
pub(crate) fn check(manifest_dir: &str, standalone: &[&str]) {
    let tests = Path::new(manifest_dir).join("tests");
    for entry in std::fs::read_dir(&tests).expect("tests/") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            !name.ends_with(".rs") || standalone.contains(&name.as_ref()),
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
