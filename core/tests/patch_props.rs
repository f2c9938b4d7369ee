//! Property tests for `rewind_core::patch` over texts built from a small alphabet of lines, so
//! edits collide, with LF, CRLF and mixed endings, with or without a final newline.
// proptest does not build for wasm32-unknown-unknown (its runner forks and seeds from the OS);
// these properties run natively only.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use proptest::sample::select;
use rewind_core::patch::{Hunk, LineStats, apply, create, reverse, stats, validate};

const CONTEXTS: [u32; 3] = [0, 1, 3];

/// Lines that look like patch syntax are included on purpose: prefixes must not confuse anything.
const LINES: &[&str] = &[
    "",
    "a",
    "b",
    "}",
    "    let x = 1;",
    "é",
    "中文 🙂",
    "\t",
    "a\rb",
    "+a",
    "-b",
    "\\ No newline at end of file",
];

#[derive(Clone, Copy, Debug)]
enum Endings {
    Lf,
    Crlf,
    Mixed,
}

fn text() -> impl Strategy<Value = String> {
    let endings = prop_oneof![Just(Endings::Lf), Just(Endings::Crlf), Just(Endings::Mixed)];
    let lines = prop::collection::vec((select(LINES), any::<bool>()), 0..10);
    (lines, endings, any::<bool>()).prop_map(|(lines, endings, final_newline)| {
        let mut text = String::new();
        for (index, (line, crlf)) in lines.iter().enumerate() {
            text.push_str(line);
            let use_crlf = match endings {
                Endings::Lf => false,
                Endings::Crlf => true,
                Endings::Mixed => *crlf,
            };
            if index + 1 < lines.len() || final_newline {
                text.push_str(if use_crlf { "\r\n" } else { "\n" });
            }
        }
        text
    })
}

/// jsdiff's `applyPatch` re-ends a patch's lines when the text consistently uses the other style
/// (`autoConvertLineEndings`), so a round trip is exact only when `target` never uses a line
/// ending of the other style than `source`'s consistent one.
fn round_trip_is_exact(source: &str, target: &str) -> bool {
    let (crlf, lf) = (source.matches("\r\n").count(), source.matches('\n').count());
    let target_has_bare_lf = target.matches('\n').count() > target.matches("\r\n").count();
    match (crlf, lf) {
        (0, 0) => true,
        (0, _) => !target.contains("\r\n"),
        _ if crlf == lf => !target_has_bare_lf,
        _ => true,
    }
}

fn check_apply(source: &str, patch: &[Hunk], target: &str) -> Result<(), TestCaseError> {
    let patched = apply(source, patch);
    if round_trip_is_exact(source, target) {
        prop_assert_eq!(patched, Ok(target.to_owned()));
    } else {
        let lf_only = |text: &str| text.replace("\r\n", "\n");
        prop_assert_eq!(patched.map(|text| lf_only(&text)), Ok(lf_only(target)));
    }
    Ok(())
}

fn count_lines(patch: &[Hunk]) -> LineStats {
    let lines = || patch.iter().flat_map(|hunk| &hunk.lines);
    let count = |prefix: char| {
        let n = lines().filter(|line| line.starts_with(prefix)).count();
        u32::try_from(n).expect("few lines")
    };
    LineStats {
        additions: count('+'),
        deletions: count('-'),
    }
}

fn hunk() -> impl Strategy<Value = Hunk> {
    let line = prop_oneof![
        select(LINES).prop_map(|line| format!(" {line}")),
        select(LINES).prop_map(|line| format!("-{line}")),
        select(LINES).prop_map(|line| format!("+{line}")),
        Just("\\ No newline at end of file".to_owned()),
    ];
    (
        0..6u32,
        0..4u32,
        0..6u32,
        0..4u32,
        prop::collection::vec(line, 0..6),
    )
        .prop_map(|(old_start, old_lines, new_start, new_lines, lines)| Hunk {
            old_start,
            old_lines,
            new_start,
            new_lines,
            lines,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn created_patches_apply_and_revert(old in text(), new in text(), other in text()) {
        for context in CONTEXTS {
            let patch = create(&old, &new, context);
            prop_assert_eq!(validate(&patch), Ok(()));
            prop_assert_eq!(stats(&patch), count_lines(&patch));
            prop_assert_eq!(&reverse(&reverse(&patch)), &patch);
            check_apply(&old, &patch, &new)?;
            check_apply(&new, &reverse(&patch), &old)?;
            // Elsewhere the patch may or may not fit; either way it must not panic.
            let _ = apply(&other, &patch);
        }
    }

    #[test]
    fn a_text_against_itself_has_no_hunks(text in text()) {
        for context in CONTEXTS {
            prop_assert!(create(&text, &text, context).is_empty());
        }
    }

    #[test]
    fn arbitrary_hunks_are_refused_or_applied_without_panicking(
        text in text(),
        hunks in prop::collection::vec(hunk(), 0..4),
    ) {
        let result = apply(&text, &hunks);
        if validate(&hunks).is_err() {
            prop_assert!(result.is_err());
        }
    }
}
