//! Structural checks for hunks that come from outside (tool output).

use super::{Hunk, LineKind, PatchError, Side};

/// Checks that `hunks` are shaped like jsdiff's.
///
/// Every line is context, removed, added or a no-newline marker; markers only close the last line
/// of a side, in the last hunk; the header counts match the lines; starts are 1-based, hunks are
/// ordered and non-overlapping, and each `new_start` agrees with its `old_start` shifted by the
/// earlier hunks' net changes.
///
/// # Errors
///
/// The first problem found, naming the hunk (and line) it is in.
pub fn validate(hunks: &[Hunk]) -> Result<(), PatchError> {
    // First old line after the previous hunk, and how far earlier hunks shifted new lines.
    let mut previous_end: Option<u64> = None;
    let mut shift: i64 = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        check_lines(index, &hunk.lines, index + 1 == hunks.len())?;
        check_counts(index, hunk)?;
        check_position(index, hunk, previous_end, shift)?;
        previous_end = Some(u64::from(hunk.old_start) + u64::from(hunk.old_lines));
        shift += i64::from(hunk.new_lines) - i64::from(hunk.old_lines);
    }
    Ok(())
}

fn check_lines(hunk: usize, lines: &[String], is_last_hunk: bool) -> Result<(), PatchError> {
    if lines.is_empty() {
        return Err(PatchError::EmptyHunk { hunk });
    }
    let (mut old_ended, mut new_ended) = (false, false);
    let mut previous = None;
    for (line, text) in lines.iter().enumerate() {
        let kind = LineKind::of(text).ok_or_else(|| match text.chars().next() {
            Some(found) => PatchError::UnknownPrefix { hunk, line, found },
            None => PatchError::EmptyLine { hunk, line },
        })?;
        let ended_side = match kind {
            LineKind::Context | LineKind::Removed if old_ended => Some(Side::Old),
            LineKind::Context | LineKind::Added if new_ended => Some(Side::New),
            _ => None,
        };
        if let Some(side) = ended_side {
            return Err(PatchError::LineAfterEnd { hunk, line, side });
        }
        if kind == LineKind::NoNewlineMarker {
            // Only the last line of a text can lack its newline, so only the last hunk has one.
            match previous {
                Some(LineKind::Context) if is_last_hunk => (old_ended, new_ended) = (true, true),
                Some(LineKind::Removed) if is_last_hunk => old_ended = true,
                Some(LineKind::Added) if is_last_hunk => new_ended = true,
                _ => return Err(PatchError::MisplacedMarker { hunk, line }),
            }
        }
        previous = Some(kind);
    }
    Ok(())
}

fn check_counts(index: usize, hunk: &Hunk) -> Result<(), PatchError> {
    let (mut old, mut new) = (0, 0);
    for line in &hunk.lines {
        match LineKind::of(line) {
            Some(LineKind::Context) => (old, new) = (old + 1, new + 1),
            Some(LineKind::Removed) => old += 1,
            Some(LineKind::Added) => new += 1,
            Some(LineKind::NoNewlineMarker) | None => {}
        }
    }
    for (side, declared, actual) in [
        (Side::Old, hunk.old_lines, old),
        (Side::New, hunk.new_lines, new),
    ] {
        if usize::try_from(declared).ok() != Some(actual) {
            return Err(PatchError::CountMismatch {
                hunk: index,
                side,
                declared,
                actual,
            });
        }
    }
    Ok(())
}

fn check_position(
    index: usize,
    hunk: &Hunk,
    previous_end: Option<u64>,
    shift: i64,
) -> Result<(), PatchError> {
    for (side, start) in [(Side::Old, hunk.old_start), (Side::New, hunk.new_start)] {
        if start == 0 {
            return Err(PatchError::ZeroStart { hunk: index, side });
        }
    }
    if let Some(previous_end) = previous_end
        && u64::from(hunk.old_start) < previous_end
    {
        return Err(PatchError::Overlap {
            hunk: index,
            start: hunk.old_start,
            previous_end,
        });
    }
    let expected = i64::from(hunk.old_start) + shift;
    if expected != i64::from(hunk.new_start) {
        return Err(PatchError::InconsistentStart {
            hunk: index,
            expected,
            found: hunk.new_start,
        });
    }
    Ok(())
}
