//! jsdiff's `autoConvertLineEndings` (on by default in `applyPatch`): a patch written with one
//! line-ending style is converted to the style of a text that consistently uses the other.

use std::borrow::Cow;

use super::{Hunk, LineKind};

/// The hunks as jsdiff applies them to `text`.
pub(super) fn match_line_endings<'h>(text: &str, hunks: &'h [Hunk]) -> Cow<'h, [Hunk]> {
    if has_only_crlf_endings(text) && is_lf_patch(hunks) {
        Cow::Owned(map_lines(hunks, |lines, index| {
            let line = &lines[index];
            if is_marker(line) || line.ends_with('\r') || precedes_marker(lines, index) {
                line.clone()
            } else {
                format!("{line}\r")
            }
        }))
    } else if has_only_lf_endings(text) && is_crlf_patch(hunks) {
        Cow::Owned(map_lines(hunks, |lines, index| {
            let line = &lines[index];
            line.strip_suffix('\r').unwrap_or(line).to_owned()
        }))
    } else {
        Cow::Borrowed(hunks)
    }
}

/// jsdiff's `hasOnlyWinLineEndings`: some CRLF, and no `\n` without a `\r` before it.
fn has_only_crlf_endings(text: &str) -> bool {
    text.contains("\r\n")
        && !text.starts_with('\n')
        && !text
            .as_bytes()
            .windows(2)
            .any(|pair| pair[1] == b'\n' && pair[0] != b'\r')
}

/// jsdiff's `hasOnlyUnixLineEndings`: some `\n`, and no CRLF.
fn has_only_lf_endings(text: &str) -> bool {
    !text.contains("\r\n") && text.contains('\n')
}

/// jsdiff's `isUnix`: no line other than a marker ends with `\r`.
fn is_lf_patch(hunks: &[Hunk]) -> bool {
    all_lines(hunks).all(|line| is_marker(line) || !line.ends_with('\r'))
}

/// jsdiff's `isWin`: some line ends with `\r`, and every line does except markers and lines
/// without a final newline.
fn is_crlf_patch(hunks: &[Hunk]) -> bool {
    all_lines(hunks).any(|line| line.ends_with('\r'))
        && hunks.iter().all(|hunk| {
            hunk.lines.iter().enumerate().all(|(index, line)| {
                is_marker(line) || line.ends_with('\r') || precedes_marker(&hunk.lines, index)
            })
        })
}

fn all_lines(hunks: &[Hunk]) -> impl Iterator<Item = &String> {
    hunks.iter().flat_map(|hunk| &hunk.lines)
}

fn is_marker(line: &str) -> bool {
    LineKind::of(line) == Some(LineKind::NoNewlineMarker)
}

fn precedes_marker(lines: &[String], index: usize) -> bool {
    lines.get(index + 1).is_some_and(|next| is_marker(next))
}

/// Rebuilds the hunks with each line replaced by `convert(lines, index)`.
fn map_lines(hunks: &[Hunk], convert: impl Fn(&[String], usize) -> String) -> Vec<Hunk> {
    hunks
        .iter()
        .map(|hunk| Hunk {
            lines: (0..hunk.lines.len())
                .map(|index| convert(&hunk.lines, index))
                .collect(),
            ..*hunk
        })
        .collect()
}
