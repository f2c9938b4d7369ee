//! jsdiff's `structuredPatch`: a line diff grouped into hunks with context.

use super::align::{Run, RunKind, align};
use super::{Hunk, NO_NEWLINE_MARKER};

/// jsdiff's `structuredPatch(_, _, old, new, _, _, { context }).hunks`: the line changes from
/// `old` to `new`, with `context` unchanged lines around each change (agents use 3; jsdiff's own
/// default is 4).
///
/// Lines are compared with their endings, so `"a\r\n"` and `"a\n"` differ and a last line
/// without a newline differs from the same line with one. Changes whose context would touch or
/// overlap share a hunk. A line without a final newline is followed by [`NO_NEWLINE_MARKER`].
///
/// # Panics
///
/// If a text has more than `u32::MAX` lines, which hunk headers cannot express.
#[must_use]
pub fn create(old: &str, new: &str, context: u32) -> Vec<Hunk> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let runs = align(&old_lines, &new_lines);
    let context = usize::try_from(context).unwrap_or(usize::MAX);
    group(&runs, context)
}

/// A hunk being collected: where it starts and its lines so far.
struct OpenHunk {
    old_start: usize,
    new_start: usize,
    lines: Vec<String>,
}

impl OpenHunk {
    fn close(self, old_end: usize, new_end: usize) -> Hunk {
        Hunk {
            old_start: line_number(self.old_start),
            old_lines: line_number(old_end - self.old_start),
            new_start: line_number(self.new_start),
            new_lines: line_number(new_end - self.new_start),
            lines: self.lines,
        }
    }
}

/// Groups runs into hunks the way jsdiff's `diffLinesResultToPatch` does.
fn group(runs: &[Run<'_>], context: usize) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut open: Option<OpenHunk> = None;
    // 1-based numbers of the next old and new line.
    let (mut old_line, mut new_line) = (1, 1);
    for (index, run) in runs.iter().enumerate() {
        match run.kind {
            RunKind::Removed | RunKind::Added => {
                let hunk = open.get_or_insert_with(|| {
                    let leading = match index.checked_sub(1) {
                        Some(previous) => tail(runs[previous].lines, context),
                        None => &[],
                    };
                    let mut lines = Vec::new();
                    push_lines(&mut lines, ' ', leading);
                    OpenHunk {
                        old_start: old_line - leading.len(),
                        new_start: new_line - leading.len(),
                        lines,
                    }
                });
                if run.kind == RunKind::Added {
                    push_lines(&mut hunk.lines, '+', run.lines);
                    new_line += run.lines.len();
                } else {
                    push_lines(&mut hunk.lines, '-', run.lines);
                    old_line += run.lines.len();
                }
            }
            RunKind::Equal => {
                if let Some(mut hunk) = open.take() {
                    // jsdiff keeps the hunk open across an unchanged stretch short enough for the
                    // contexts on both sides to meet, unless nothing changes after it.
                    let is_last = index + 1 == runs.len();
                    if run.lines.len() <= context.saturating_mul(2) && !is_last {
                        push_lines(&mut hunk.lines, ' ', run.lines);
                        open = Some(hunk);
                    } else {
                        let trailing = &run.lines[..run.lines.len().min(context)];
                        push_lines(&mut hunk.lines, ' ', trailing);
                        hunks
                            .push(hunk.close(old_line + trailing.len(), new_line + trailing.len()));
                    }
                }
                old_line += run.lines.len();
                new_line += run.lines.len();
            }
        }
    }
    hunks.extend(open.map(|hunk| hunk.close(old_line, new_line)));
    hunks
}

/// The last `count` lines.
fn tail<'a>(lines: &'a [&'a str], count: usize) -> &'a [&'a str] {
    &lines[lines.len().saturating_sub(count)..]
}

/// Appends `lines` with `prefix`, dropping each `\n` and marking a line that has none.
fn push_lines(out: &mut Vec<String>, prefix: char, lines: &[&str]) {
    for line in lines {
        if let Some(text) = line.strip_suffix('\n') {
            out.push(format!("{prefix}{text}"));
        } else {
            out.push(format!("{prefix}{line}"));
            out.push(NO_NEWLINE_MARKER.to_owned());
        }
    }
}

fn line_number(n: usize) -> u32 {
    u32::try_from(n).expect("texts have fewer than u32::MAX lines")
}
