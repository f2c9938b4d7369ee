//! The workspace contract: what every `Workspace` adapter must do.

/// Workspace guarantees: absent is `None`, writes create parents and replace, removes tolerate
/// missing files, bytes are exact.
///
/// `$make` is an expression producing a fresh, empty `impl Workspace`.
#[macro_export]
macro_rules! workspace_contract {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            // On wasm32 the tests run under wasm-bindgen-test (the invoking crate's dev-dependency);
            // an explicit import, because a glob-imported `test` would be ambiguous.
            #[cfg(target_arch = "wasm32")]
            use wasm_bindgen_test::wasm_bindgen_test as test;
            use $crate::path::WorkPath;
            use $crate::ports::Workspace;

            fn p(s: &str) -> WorkPath {
                WorkPath::parse(s).expect("valid")
            }

            #[test]
            fn missing_file_reads_as_none() {
                let mut w = $make;
                assert_eq!(w.read(&p("nope.txt")).expect("read"), None);
            }

            #[test]
            fn write_creates_parents_and_replaces() {
                let mut w = $make;
                w.write(&p("a/b/c.txt"), b"one").expect("write");
                w.write(&p("a/b/c.txt"), b"two").expect("write");
                assert_eq!(
                    w.read(&p("a/b/c.txt")).expect("read"),
                    Some(b"two".to_vec())
                );
            }

            #[test]
            fn remove_is_idempotent() {
                let mut w = $make;
                w.write(&p("x.txt"), b"x").expect("write");
                w.remove(&p("x.txt")).expect("remove");
                w.remove(&p("x.txt")).expect("remove missing is fine");
                assert_eq!(w.read(&p("x.txt")).expect("read"), None);
            }

            #[test]
            fn bytes_round_trip_exactly() {
                let mut w = $make;
                let bytes: Vec<u8> = (0..=255u8).chain([b'\r', b'\n', b'\r']).collect();
                w.write(&p("bin.dat"), &bytes).expect("write");
                assert_eq!(w.read(&p("bin.dat")).expect("read"), Some(bytes));
                w.write(&p("empty"), b"").expect("write");
                assert_eq!(w.read(&p("empty")).expect("read"), Some(Vec::new()));
            }

            #[test]
            fn modes_round_trip_survive_a_replace_or_are_absent() {
                let mut w = $make;
                assert_eq!(w.mode(&p("none.sh")).expect("mode"), None);
                w.set_mode(&p("none.sh"), 0o755)
                    .expect("a missing file is fine");
                assert_eq!(
                    w.read(&p("none.sh")).expect("read"),
                    None,
                    "set_mode creates nothing"
                );
                w.write(&p("run.sh"), b"#!/bin/sh\n").expect("write");
                if w.mode(&p("run.sh")).expect("mode").is_none() {
                    return; // a host without modes
                }
                w.set_mode(&p("run.sh"), 0o755).expect("set");
                assert_eq!(w.mode(&p("run.sh")).expect("mode"), Some(0o755));
                w.write(&p("run.sh"), b"#!/bin/sh\necho\n")
                    .expect("replace");
                assert_eq!(
                    w.mode(&p("run.sh")).expect("mode"),
                    Some(0o755),
                    "a replace keeps it"
                );
                w.set_mode(&p("run.sh"), 0o644).expect("set");
                assert_eq!(w.mode(&p("run.sh")).expect("mode"), Some(0o644));
                w.remove(&p("run.sh")).expect("remove");
                assert_eq!(w.mode(&p("run.sh")).expect("mode"), None);
            }
        }
    };
}
