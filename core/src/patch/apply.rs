//! jsdiff's `applyPatch(text, patch, { fuzzFactor: 0 })`.

use super::line_endings::match_line_endings;
use super::{ApplyError, Hunk, LineKind, content, validate};

/// Applies `hunks` to `text` as jsdiff's `applyPatch` does with `fuzzFactor: 0`.
///
/// Hunks apply first to last. Each is tried at its `old_start` (shifted by how far the previous
/// hunk moved), then one line further, one line nearer, two further, and so on, and lands on the
/// first position where all its context and removed lines match exactly; a later hunk never lands
/// before the end of the previous one's changes. Like jsdiff (`autoConvertLineEndings`), a patch
/// whose lines all end in LF is applied to a text whose lines all end in CRLF as if it were CRLF,
/// and the other way round.
///
/// # Errors
///
/// [`ApplyError::Malformed`] for hunks that fail [`validate()`]; otherwise the error says why
/// jsdiff's `applyPatch` would return `false`.
pub fn apply(text: &str, hunks: &[Hunk]) -> Result<String, ApplyError> {
    validate(hunks)?;
    let hunks = match_line_endings(text, hunks);
    let Some(last) = hunks.last() else {
        return Ok(text.to_owned());
    };
    // jsdiff keeps the text as the pieces between `\n`s; a final newline leaves an empty piece.
    let mut lines: Vec<&str> = text.split('\n').collect();
    adjust_final_newline(&mut lines, last)?;

    let mut patched: Vec<&str> = Vec::with_capacity(lines.len());
    // First text line not yet copied, and how far the previous hunk landed from its header.
    let mut copied = 0;
    let mut shift: i64 = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let expected = i64::from(hunk.old_start) - 1 + shift;
        let last_start = len_i64(lines.len()) - i64::from(hunk.old_lines);
        let (start, fit) = std::iter::once(expected)
            .chain(search_order(expected, len_i64(copied), last_start))
            .find_map(|pos| {
                let start = usize::try_from(pos).ok()?;
                Some((start, fit(&lines, &hunk.lines, start)?))
            })
            .ok_or(ApplyError::NoMatch {
                hunk: index,
                old_start: hunk.old_start,
            })?;
        // An insertion past the end of the text is reached through empty lines: jsdiff copies the
        // missing array entries, which `join` turns into empty strings.
        patched.extend((copied..start).map(|at| lines.get(at).copied().unwrap_or_default()));
        patched.extend(fit.lines);
        copied = fit.end;
        shift = len_i64(start) + 1 - i64::from(hunk.old_start);
    }
    patched.extend(lines.get(copied..).unwrap_or_default());
    Ok(patched.join("\n"))
}

/// Adds or drops the text's final newline where the last hunk's markers say the patch does, and
/// refuses a text whose final newline contradicts them.
fn adjust_final_newline(lines: &mut Vec<&str>, last: &Hunk) -> Result<(), ApplyError> {
    let (mut old_lacks_newline, mut new_lacks_newline) = (false, false);
    for pair in last.lines.windows(2) {
        if LineKind::of(&pair[1]) == Some(LineKind::NoNewlineMarker) {
            match LineKind::of(&pair[0]) {
                Some(LineKind::Removed) => old_lacks_newline = true,
                Some(LineKind::Added) => new_lacks_newline = true,
                // A context line without newline changes nothing, so jsdiff checks nothing.
                _ => {}
            }
        }
    }
    let ends_with_newline = lines.last().is_some_and(|line| line.is_empty());
    match (old_lacks_newline, new_lacks_newline) {
        (true, _) if ends_with_newline => Err(ApplyError::UnexpectedFinalNewline),
        (false, true) if !ends_with_newline => Err(ApplyError::MissingFinalNewline),
        (false, true) => {
            lines.pop();
            Ok(())
        }
        (true, false) => {
            lines.push("");
            Ok(())
        }
        (true, true) | (false, false) => Ok(()),
    }
}

/// A hunk fitted at a position: the lines replacing the old text from that position up to `end`.
#[derive(Debug)]
struct Fit<'a> {
    lines: Vec<&'a str>,
    end: usize,
}

/// Fits `hunk_lines` at `start` if every context and removed line matches exactly.
fn fit<'a>(lines: &[&'a str], hunk_lines: &'a [String], start: usize) -> Option<Fit<'a>> {
    let mut out = Vec::with_capacity(hunk_lines.len());
    let mut at = start;
    let mut trailing_context = 0;
    for line in hunk_lines {
        let text = content(line);
        match LineKind::of(line) {
            Some(kind @ (LineKind::Context | LineKind::Removed)) => {
                if lines.get(at) != Some(&text) {
                    return None;
                }
                at += 1;
                if kind == LineKind::Context {
                    out.push(text);
                    trailing_context += 1;
                } else {
                    trailing_context = 0;
                }
            }
            Some(LineKind::Added) => {
                out.push(text);
                trailing_context = 0;
            }
            Some(LineKind::NoNewlineMarker) | None => {}
        }
    }
    // Leave the trailing context uncopied so the next hunk may start inside it, as jsdiff does.
    out.truncate(out.len() - trailing_context);
    Some(Fit {
        lines: out,
        end: at - trailing_context,
    })
}

/// The positions jsdiff tries after `expected`: alternately one further and one nearer, then two
/// further and two nearer, and so on, going further only up to `max` and nearer only down to
/// `min`.
fn search_order(expected: i64, min: i64, max: i64) -> impl Iterator<Item = i64> {
    (1..)
        .map_while(move |distance| {
            let further = Some(expected + distance).filter(|&pos| pos <= max);
            let nearer = Some(expected - distance).filter(|&pos| pos >= min);
            (further.is_some() || nearer.is_some()).then_some([further, nearer])
        })
        .flatten()
        .flatten()
}

fn len_i64(len: usize) -> i64 {
    i64::try_from(len).expect("slice lengths fit in i64")
}
