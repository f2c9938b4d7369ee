//! Unit tests; expected values were produced by jsdiff 8.0.4 itself.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn hunk(old_start: u32, old_lines: u32, new_start: u32, new_lines: u32, lines: &[&str]) -> Hunk {
    let lines = lines.iter().map(|line| (*line).to_owned()).collect();
    Hunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
        lines,
    }
}

const NL: &str = NO_NEWLINE_MARKER;

#[test]
fn create_of_identical_texts_is_empty() {
    assert!(create("a\nb\n", "a\nb\n", 3).is_empty());
    assert!(create("", "", 3).is_empty());
}

#[test]
fn create_from_and_to_empty_text_starts_at_line_one() {
    assert_eq!(create("", "a\n", 3), [hunk(1, 0, 1, 1, &["+a"])]);
    assert_eq!(create("a\nb\n", "", 3), [hunk(1, 2, 1, 0, &["-a", "-b"])]);
}

#[test]
fn create_marks_lines_without_final_newline() {
    assert_eq!(
        create("a", "b", 3),
        [hunk(1, 1, 1, 1, &["-a", NL, "+b", NL])]
    );
    assert_eq!(create("a", "a\n", 3), [hunk(1, 1, 1, 1, &["-a", NL, "+a"])]);
    assert_eq!(
        create("x\na", "y\na", 3),
        [hunk(1, 2, 1, 2, &["-x", "+y", " a", NL])]
    );
}

#[test]
fn create_keeps_carriage_returns_and_tells_line_endings_apart() {
    assert_eq!(
        create("a\r\nb\r\n", "a\r\nc\r\n", 1),
        [hunk(1, 2, 1, 2, &[" a\r", "-b\r", "+c\r"])]
    );
    assert_eq!(
        create("a\r\n", "a\n", 0),
        [hunk(1, 1, 1, 1, &["-a\r", "+a"])]
    );
}

#[test]
fn create_merges_changes_whose_contexts_meet() {
    assert_eq!(
        create("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", 2),
        [hunk(
            1,
            5,
            1,
            5,
            &["-a", "+A", " b", " c", " d", "-e", "+E"]
        )]
    );
    assert_eq!(
        create("a\nb\nc\nd\ne\nf\ng\n", "A\nb\nc\nd\ne\nf\nG\n", 2),
        [
            hunk(1, 3, 1, 3, &["-a", "+A", " b", " c"]),
            hunk(5, 3, 5, 3, &[" e", " f", "-g", "+G"]),
        ]
    );
}

#[test]
fn create_breaks_ties_like_jsdiff() {
    // A line present on both sides is kept as soon as both texts reach it.
    assert_eq!(
        create("}\na\nc\nc\nt\n", "}\na\nreturn\nc\nt\n", 0),
        [hunk(3, 0, 3, 1, &["+return"]), hunk(4, 1, 5, 0, &["-c"])]
    );
    // Adding first lets the first "中文" be kept rather than the second.
    assert_eq!(
        create("é\nx y\n\n中文\n中文\n", "x y\n\n}\n中文\n", 0),
        [
            hunk(1, 1, 1, 0, &["-é"]),
            hunk(4, 0, 3, 1, &["+}"]),
            hunk(5, 1, 5, 0, &["-中文"])
        ]
    );
}

#[test]
fn apply_searches_further_before_nearer() {
    let patch = [hunk(3, 2, 3, 1, &[" a", "-b"])];
    assert_eq!(
        apply("q\na\nb\na\nb\n", &patch),
        Ok("q\na\nb\na\n".to_owned())
    );
}

#[test]
fn apply_lets_a_hunk_land_in_the_previous_trailing_context() {
    let patch = [
        hunk(1, 2, 1, 2, &["-a", "+A", " b"]),
        hunk(4, 2, 4, 2, &[" b", "-c", "+C"]),
    ];
    assert_eq!(apply("a\nb\nc\n", &patch), Ok("A\nb\nC\n".to_owned()));
}

#[test]
fn apply_pads_with_empty_lines_to_reach_an_insertion_past_the_end() {
    let patch = [hunk(5, 0, 5, 1, &["+x", NL])];
    assert_eq!(apply("a\nb\n", &patch), Ok("a\nb\n\n\nx".to_owned()));
}

#[test]
fn apply_of_no_hunks_returns_the_text() {
    assert_eq!(apply("a\r\nb", &[]), Ok("a\r\nb".to_owned()));
}

#[test]
fn apply_converts_the_patch_to_the_text_line_endings() {
    let lf_patch = [hunk(2, 1, 2, 1, &["-b", "+c"])];
    assert_eq!(apply("a\r\nb\r\n", &lf_patch), Ok("a\r\nc\r\n".to_owned()));
    let crlf_patch = [hunk(2, 1, 2, 1, &["-b\r", "+c\r"])];
    assert_eq!(apply("a\nb\n", &crlf_patch), Ok("a\nc\n".to_owned()));
}

#[test]
fn apply_refuses_a_hunk_that_matches_nowhere() {
    let patch = [hunk(1, 1, 1, 1, &["-a", "+b"])];
    assert_eq!(
        apply("x\ny\n", &patch),
        Err(ApplyError::NoMatch {
            hunk: 0,
            old_start: 1
        })
    );
}

#[test]
fn apply_refuses_a_final_newline_that_contradicts_the_markers() {
    let removes_newline = [hunk(1, 1, 1, 1, &["-a", "+b", NL])];
    assert_eq!(
        apply("a", &removes_newline),
        Err(ApplyError::MissingFinalNewline)
    );
    assert_eq!(apply("a\n", &removes_newline), Ok("b".to_owned()));
    let adds_newline = [hunk(1, 1, 1, 1, &["-a", NL, "+b"])];
    assert_eq!(
        apply("a\n", &adds_newline),
        Err(ApplyError::UnexpectedFinalNewline)
    );
    assert_eq!(apply("a", &adds_newline), Ok("b\n".to_owned()));
}

#[test]
fn apply_refuses_malformed_hunks() {
    let patch = [hunk(1, 2, 1, 1, &["-a", "+b"])];
    assert!(matches!(
        apply("a\n", &patch),
        Err(ApplyError::Malformed(_))
    ));
}

#[test]
fn reverse_swaps_sides_and_keeps_line_order() {
    let patch = [hunk(1, 1, 1, 2, &["-a", NL, "+a", "+b"])];
    assert_eq!(reverse(&patch), [hunk(1, 2, 1, 1, &["+a", NL, "-a", "-b"])]);
    assert_eq!(apply("a\nb\n", &reverse(&patch)), Ok("a".to_owned()));
}

#[test]
fn stats_count_added_and_removed_lines_only() {
    let patch = [hunk(1, 2, 1, 2, &[" x", "-a", NL, "+b", "+c", NL])];
    assert_eq!(
        stats(&patch),
        LineStats {
            additions: 2,
            deletions: 1
        }
    );
}

#[test]
fn validate_accepts_created_patches() {
    assert_eq!(validate(&create("a\nb\nc", "a\nB\nc\nd\n", 0)), Ok(()));
    assert_eq!(validate(&[]), Ok(()));
}

#[test]
fn validate_names_what_is_wrong() {
    let cases = [
        (
            vec![hunk(1, 0, 1, 0, &[])],
            PatchError::EmptyHunk { hunk: 0 },
        ),
        (
            vec![hunk(1, 1, 1, 1, &[" a"]), hunk(3, 1, 3, 1, &["", "a"])],
            PatchError::EmptyLine { hunk: 1, line: 0 },
        ),
        (
            vec![hunk(1, 1, 1, 1, &["*a"])],
            PatchError::UnknownPrefix {
                hunk: 0,
                line: 0,
                found: '*',
            },
        ),
        (
            vec![hunk(1, 0, 1, 0, &[NL])],
            PatchError::MisplacedMarker { hunk: 0, line: 0 },
        ),
        (
            vec![hunk(1, 1, 1, 1, &[" a", NL]), hunk(3, 1, 3, 1, &[" b"])],
            PatchError::MisplacedMarker { hunk: 0, line: 1 },
        ),
        (
            vec![hunk(1, 2, 1, 0, &["-a", NL, "-b"])],
            PatchError::LineAfterEnd {
                hunk: 0,
                line: 2,
                side: Side::Old,
            },
        ),
        (
            vec![hunk(1, 1, 1, 1, &["+a", NL, " b"])],
            PatchError::LineAfterEnd {
                hunk: 0,
                line: 2,
                side: Side::New,
            },
        ),
        (
            vec![hunk(1, 2, 1, 1, &["-a", "+b"])],
            PatchError::CountMismatch {
                hunk: 0,
                side: Side::Old,
                declared: 2,
                actual: 1,
            },
        ),
        (
            vec![hunk(1, 1, 1, 2, &["-a", "+b"])],
            PatchError::CountMismatch {
                hunk: 0,
                side: Side::New,
                declared: 2,
                actual: 1,
            },
        ),
        (
            vec![hunk(0, 0, 1, 1, &["+a"])],
            PatchError::ZeroStart {
                hunk: 0,
                side: Side::Old,
            },
        ),
        (
            vec![hunk(1, 2, 1, 2, &[" a", " b"]), hunk(2, 1, 2, 1, &[" b"])],
            PatchError::Overlap {
                hunk: 1,
                start: 2,
                previous_end: 3,
            },
        ),
        (
            vec![
                hunk(1, 1, 1, 2, &[" a", "+b"]),
                hunk(5, 1, 5, 1, &["-c", "+d"]),
            ],
            PatchError::InconsistentStart {
                hunk: 1,
                expected: 6,
                found: 5,
            },
        ),
    ];
    for (hunks, error) in cases {
        assert_eq!(validate(&hunks), Err(error), "{hunks:?}");
    }
}

#[test]
fn errors_read_as_lowercase_sentences_without_trailing_punctuation() {
    let error = ApplyError::from(PatchError::CountMismatch {
        hunk: 2,
        side: Side::New,
        declared: 3,
        actual: 4,
    });
    assert_eq!(
        error.to_string(),
        "malformed patch: hunk 2 declares 3 new lines but has 4"
    );
}
