//! The 200 jsdiff 8.0.4 vectors (`tests/fixtures/jsdiff/structured-patches.json`), checked byte for
//! byte: creating, applying, reversing and counting must all agree with jsdiff.

use std::fmt::Debug;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use rewind_core::patch::{ApplyError, Hunk, LineStats, apply, create, reverse, stats};
use serde::Deserialize;

/// Embedded at compile time because the crate's clippy configuration forbids file I/O.
const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/jsdiff/structured-patches.json"
));

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    name: String,
    context: u32,
    old: String,
    new: String,
    hunks: Vec<Hunk>,
    apply_old_result: String,
    apply_reversed_to_new_result: String,
    other: String,
    apply_to_other_result: OtherResult,
    additions: u32,
    deletions: u32,
}

/// jsdiff's `applyPatch` result: the patched text, or `false` when the patch does not apply.
#[derive(Deserialize)]
#[serde(untagged)]
enum OtherResult {
    Applied(String),
    Refused(bool),
}

fn cases() -> Vec<Case> {
    serde_json::from_str::<Fixture>(FIXTURE)
        .expect("fixture file parses")
        .cases
}

/// Runs `check` on every case and fails listing every case it rejected, with why.
fn check_all(check: impl Fn(&Case) -> Result<(), String>) {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|case| check(case).err().map(|why| format!("{}: {why}", case.name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) disagree with jsdiff:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn expect_eq<T: PartialEq + Debug>(what: &str, got: &T, want: &T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

fn expect_applied(what: &str, got: Result<String, ApplyError>, want: &str) -> Result<(), String> {
    match got {
        Ok(text) if text == want => Ok(()),
        got => Err(format!("{what}: got {got:?}, want {want:?}")),
    }
}

#[test]
fn fixture_has_all_200_cases() {
    assert_eq!(cases().len(), 200);
}

#[test]
fn create_matches_jsdiff_hunks() {
    check_all(|case| {
        expect_eq(
            "hunks",
            &create(&case.old, &case.new, case.context),
            &case.hunks,
        )
    });
}

#[test]
fn apply_to_old_gives_jsdiff_result() {
    check_all(|case| {
        expect_applied(
            "apply",
            apply(&case.old, &case.hunks),
            &case.apply_old_result,
        )
    });
}

#[test]
fn reversed_patch_applies_to_new_like_jsdiff() {
    check_all(|case| {
        let reversed = reverse(&case.hunks);
        expect_eq("reverse twice", &reverse(&reversed), &case.hunks)?;
        let got = apply(&case.new, &reversed);
        expect_applied("apply reversed", got, &case.apply_reversed_to_new_result)
    });
}

#[test]
fn apply_to_other_text_applies_or_refuses_like_jsdiff() {
    check_all(|case| {
        let got = apply(&case.other, &case.hunks);
        match &case.apply_to_other_result {
            OtherResult::Applied(want) => expect_applied("apply to other", got, want),
            OtherResult::Refused(false) => match got {
                Err(_) => Ok(()),
                Ok(text) => Err(format!("jsdiff refuses, we produced {text:?}")),
            },
            OtherResult::Refused(true) => Err("fixture has `true` as a result".to_owned()),
        }
    });
}

#[test]
fn stats_count_jsdiff_additions_and_deletions() {
    check_all(|case| {
        let want = LineStats {
            additions: case.additions,
            deletions: case.deletions,
        };
        expect_eq("stats", &stats(&case.hunks), &want)
    });
}
