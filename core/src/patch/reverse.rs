//! jsdiff's `reversePatch`.

use super::{Hunk, LineKind, content};

/// The patch that undoes `hunks`, as jsdiff's `reversePatch` builds it.
///
/// Old and new swap, `'+'` and `'-'` swap, and every line, marker included, keeps its place. A
/// reversed change therefore lists its additions before its removals, which
/// [`apply()`](super::apply()) accepts like jsdiff.
#[must_use]
pub fn reverse(hunks: &[Hunk]) -> Vec<Hunk> {
    hunks
        .iter()
        .map(|hunk| Hunk {
            old_start: hunk.new_start,
            old_lines: hunk.new_lines,
            new_start: hunk.old_start,
            new_lines: hunk.old_lines,
            lines: hunk.lines.iter().map(|line| reverse_line(line)).collect(),
        })
        .collect()
}

fn reverse_line(line: &str) -> String {
    match LineKind::of(line) {
        Some(LineKind::Added) => format!("-{}", content(line)),
        Some(LineKind::Removed) => format!("+{}", content(line)),
        _ => line.to_owned(),
    }
}
