//! `rewind diff [SESSION] (--since MSG | --turn MSG | --checkpoint ID) [--path P]... [--stat]`:
//! what a file rewind would write, as a git-style unified diff. A conflict shows the person's
//! change next to the agent's; binary and large files are named, not dumped. Reads only.

use super::target::TargetArgs;
use super::{CliError, Context, Report, Verb};
use crate::style::{Role, Style, count, visible, visible_lines};
use rewind_core::files::{DiffAction, DiffHunk, FileDiff, LineKind, RewindDiff, UnsafeReason};
use std::fmt::Write as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    target: TargetArgs,
    /// Only a summary: changed lines per file, as `git diff --stat`.
    #[arg(long)]
    stat: bool,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let target = a.target.target()?;
    let mut engine = ctx.engine(Verb::DiffFileRewind)?;
    let session = ctx.session(&engine, &a.target.session)?;
    let opts = target.options(ctx.lookup(&engine), &session)?;
    let diff = engine.diff_file_rewind(&session, opts)?;
    let text = if a.stat {
        stat(&ctx.style, &diff)
    } else {
        render(&ctx.style, &diff)
    };
    Ok(Report::new(&diff, text))
}

/// The unified diff of every file, in path order.
pub(super) fn render(style: &Style, d: &RewindDiff) -> String {
    if d.files.is_empty() {
        return "nothing to restore".to_owned();
    }
    let mut t = String::new();
    for f in &d.files {
        if f.safe {
            file(&mut t, style, f, &f.hunks);
        } else {
            conflict(&mut t, style, f);
        }
    }
    t
}

/// What an unsafe file is; for one changed after the agent, both changes; then what `merge`
/// and `force` would write, where they would.
fn conflict(t: &mut String, style: &Style, f: &FileDiff) {
    let why = match f.reason {
        Some(UnsafeReason::ExternalModified) => "modified after the agent",
        Some(UnsafeReason::CheckpointUnreadable) => "the content to restore is unreadable",
        Some(UnsafeReason::FileReadFailed) => "the file could not be read",
        Some(UnsafeReason::UnsupportedCheckpoint) => "its earlier state was not captured",
        Some(UnsafeReason::DirectoryNotEmpty) => "a directory that holds what the rewind keeps",
        None => "not restorable",
    };
    let how = if f.mergeable {
        " (mergeable)"
    } else if f.forceable {
        " (not mergeable; --policy force restores it)"
    } else {
        ""
    };
    line(
        t,
        style,
        Role::Warn,
        &format!("CONFLICT {}: {why}{how}", visible(&f.path)),
    );
    if let Some(m) = &f.message {
        line(t, style, Role::Dim, m);
    }
    if f.reason == Some(UnsafeReason::ExternalModified) {
        both_changes(t, style, f);
    }
    if let Some(merge) = &f.merge_hunks {
        line(t, style, Role::Warn, "--policy merge would write:");
        file(t, style, f, merge);
    }
    if f.forceable {
        line(t, style, Role::Warn, "--policy force would write:");
        file(t, style, f, &f.hunks);
    }
}

fn both_changes(t: &mut String, style: &Style, f: &FileDiff) {
    let sides = [
        ("your change since the agent:", &f.person_change),
        ("the agent's change being undone:", &f.agent_change),
    ];
    for (label, side) in sides {
        line(t, style, Role::Warn, label);
        match side {
            Some(h) => hunks(t, style, h),
            None => line(
                t,
                style,
                Role::Dim,
                "(not shown: binary, large or unreadable)",
            ),
        }
    }
}

/// One file's header and hunks (the rewind's own diff, or the merge's).
fn file(t: &mut String, style: &Style, f: &FileDiff, h: &[DiffHunk]) {
    let Some(action) = f.action else {
        return;
    };
    if f.binary {
        line(
            t,
            style,
            Role::Heading,
            &format!("Binary file {} differs", visible(&f.path)),
        );
        return;
    }
    if f.large {
        line(
            t,
            style,
            Role::Heading,
            &format!("{}: large file, not shown", visible(&f.path)),
        );
        return;
    }
    let p = visible(&f.path);
    line(t, style, Role::Heading, &format!("diff --git a/{p} b/{p}"));
    if let (Some(old), Some(new)) = (f.old_mode, f.new_mode) {
        // Git's spelling: a regular file's type bits, then the permission bits.
        line(
            t,
            style,
            Role::Heading,
            &format!("old mode {:06o}", 0o100_000 | old),
        );
        line(
            t,
            style,
            Role::Heading,
            &format!("new mode {:06o}", 0o100_000 | new),
        );
    }
    // A restore that only fixes the mode has no hunks, so no ---/+++ either (as git).
    if h.is_empty() {
        return;
    }
    let (old, new) = match action {
        DiffAction::Restore => (format!("a/{p}"), format!("b/{p}")),
        DiffAction::Create => ("/dev/null".to_owned(), format!("b/{p}")),
        DiffAction::Delete => (format!("a/{p}"), "/dev/null".to_owned()),
    };
    line(t, style, Role::Heading, &format!("--- {old}"));
    line(t, style, Role::Heading, &format!("+++ {new}"));
    hunks(t, style, h);
}

fn hunks(t: &mut String, style: &Style, hunks: &[DiffHunk]) {
    for h in hunks {
        // As git prints ranges: a one-line range without its length, an empty one at the line
        // before it (jsdiff's structured hunks start an empty range one line later).
        let range = |start: u32, len: u32| match len {
            0 => format!("{},0", start.saturating_sub(1)),
            1 => start.to_string(),
            _ => format!("{start},{len}"),
        };
        let head = format!(
            "@@ -{} +{} @@",
            range(h.old_start, h.old_lines),
            range(h.new_start, h.new_lines)
        );
        line(t, style, Role::Meta, &head);
        for l in &h.lines {
            let (role, mark) = match l.kind {
                LineKind::Context => (None, ' '),
                LineKind::Added => (Some(Role::Added), '+'),
                LineKind::Removed => (Some(Role::Removed), '-'),
            };
            let text = format!("{mark}{}", l.text);
            match role {
                Some(r) => line(t, style, r, &text),
                None => {
                    let _ = writeln!(t, "{}", visible_lines(&text));
                }
            }
            if l.no_newline {
                line(t, style, Role::Dim, "\\ No newline at end of file");
            }
        }
    }
}

/// One line: a header (stored paths in it already made visible) or a file's line, whose tabs
/// stay and whose other control characters are shown.
fn line(t: &mut String, style: &Style, role: Role, text: &str) {
    let _ = writeln!(t, "{}", style.paint(role, visible_lines(text)));
}

/// The widest `+++---` bar, as git's default for a narrow terminal.
const BAR: u32 = 40;

/// `path | 12 +++---` per file and a summary line.
pub(super) fn stat(style: &Style, d: &RewindDiff) -> String {
    if d.files.is_empty() {
        return "nothing to restore".to_owned();
    }
    let width = d
        .files
        .iter()
        .map(|f| visible(&f.path).chars().count())
        .max()
        .unwrap_or(0);
    let mut t = String::new();
    for f in &d.files {
        let (a, r) = (f.lines.additions, f.lines.deletions);
        let body = if f.binary {
            "Bin".to_owned()
        } else if f.large {
            "large, not counted".to_owned()
        } else if !f.safe && !f.forceable {
            // Nothing known would be written (content to restore or on disk unknown).
            "unknown".to_owned()
        } else {
            let total = a.saturating_add(r);
            // Scale the bar down, keeping at least one mark for a side that changed.
            let scale = |n: u32| -> usize {
                let marks = match total {
                    0..=BAR => u64::from(n),
                    _ => (u64::from(n) * u64::from(BAR) / u64::from(total)).max(u64::from(n > 0)),
                };
                usize::try_from(marks).unwrap_or(0)
            };
            format!(
                "{total} {}{}",
                style.paint(Role::Added, "+".repeat(scale(a))),
                style.paint(Role::Removed, "-".repeat(scale(r)))
            )
        };
        let mark = if f.safe {
            String::new()
        } else {
            format!(" {}", style.paint(Role::Warn, "(conflict)"))
        };
        let _ = writeln!(
            t,
            " {:<width$} | {}{mark}",
            visible(&f.path),
            body.trim_end()
        );
    }
    let _ = write!(
        t,
        " {}; {}",
        count(d.stats.files, "file"),
        super::verdict::lines_written(style, d.stats.lines)
    );
    t
}
