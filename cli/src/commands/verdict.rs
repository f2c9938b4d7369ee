//! The human form of previews and applies (`preview`, `apply`, `both`, `undo`, the picker): what
//! would change or changed, file by file, and what to do next, with the real command to run.
//! Advice follows the policy that can help: no `--policy merge` where nothing can merge, and the
//! files that cannot are named.

use crate::style::{Role, Style, count, short_id, visible};
use rewind_core::files::{ApplyOutcome, Preview, RestoredFile, TargetOptions, UnsafeFile};
use rewind_core::id::SessionId;
use rewind_core::patch::LineStats;
use std::fmt::Write as _;

/// Said of a file too large for a patch, whose lines the totals do not count.
const LARGE: &str = "large file, no line counts";

/// The command that would run this rewind again, without `--policy` (e.g. `rewind apply
/// --since msg_1a2b3c4d`), for advice; `None` where there is nothing to retry.
pub(super) type Retry<'a> = Option<&'a str>;

pub(super) fn word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Up to three paths, then how many more: `a, b, c and 2 more`.
pub(super) fn names(files: &[&UnsafeFile]) -> String {
    let shown: Vec<String> = files
        .iter()
        .take(3)
        .map(|f| visible(f.path.as_str()).into_owned())
        .collect();
    match files.len() {
        n if n > 3 => format!("{} and {} more", shown.join(", "), n - 3),
        _ => shown.join(", "),
    }
}

/// The one wording of a rewind's line count (the preview's, the diff's, the picker's): what it
/// writes in the workspace, said in words so no `+`/`-` has to be read as a direction.
pub(super) fn lines_written(style: &Style, l: LineStats) -> String {
    format!(
        "the rewind adds {} and removes {}",
        style.paint(Role::Added, count(l.additions as usize, "line")),
        style.paint(Role::Removed, count(l.deletions as usize, "line"))
    )
}

/// The file lines and the verdict of a preview.
pub(super) fn preview(style: &Style, p: &Preview, retry: Retry<'_>) -> String {
    let mut t = String::new();
    for f in &p.safe_files {
        let action = word(&f.action);
        let large = if f.large {
            format!("; {LARGE}")
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "  {} {}  {}",
            style.paint(Role::Added, format!("{action:<8}")),
            visible(f.path.as_str()),
            style.text(
                Role::Dim,
                format!(
                    "({} by {}{large})",
                    count(f.operation_count, "change"),
                    f.tool_names.join(", ")
                )
            )
        );
    }
    for f in &p.unsafe_files {
        let merge = if f.mergeable {
            " [can merge: your later edits are kept]"
        } else {
            ""
        };
        let large = if f.large {
            format!(" [{LARGE}]")
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "  {} {}  {}: {}{merge}{large}",
            style.paint(Role::Warn, "CONFLICT"),
            visible(f.path.as_str()),
            word(&f.reason),
            visible(&f.message)
        );
    }
    for path in &p.reverted_paths {
        let _ = writeln!(
            t,
            "  {} {}  {}",
            style.paint(Role::Dim, "undone  "),
            visible(path.as_str()),
            style.paint(Role::Dim, "(already restored by an earlier rewind)")
        );
    }
    let large = p.safe_files.iter().filter(|f| f.large).count()
        + p.unsafe_files.iter().filter(|f| f.large).count();
    let uncounted = match large {
        0 => String::new(),
        n => format!(" (not counting {})", count(n, "large file")),
    };
    let lines = format!(
        "{}; {}{uncounted}",
        count(p.stats.files, "file"),
        lines_written(style, p.stats.lines)
    );
    let _ = write!(t, "{lines}; {}", verdict(style, p, retry));
    t
}

/// "can apply", "nothing to restore", or why it is blocked and which policy helps.
fn verdict(style: &Style, p: &Preview, retry: Retry<'_>) -> String {
    if p.can_apply {
        return match retry {
            Some(cmd) => format!("can apply: {}", style.hint(cmd)),
            None => "can apply".to_owned(),
        };
    }
    if p.safe_files.is_empty() && p.unsafe_files.is_empty() {
        return "nothing to restore".to_owned();
    }
    let blocked = style.paint(
        Role::Bad,
        format!("blocked by {}", count(p.unsafe_files.len(), "conflict")),
    );
    let Some(cmd) = retry else {
        return blocked;
    };
    let mergeable: Vec<&UnsafeFile> = p.unsafe_files.iter().filter(|f| f.mergeable).collect();
    let stuck: Vec<&UnsafeFile> = p.unsafe_files.iter().filter(|f| !f.mergeable).collect();
    let forceable: Vec<&UnsafeFile> = p.unsafe_files.iter().filter(|f| f.forceable).collect();
    let mut ways = Vec::new();
    // The engine refuses a merge (a force) whole while one conflict cannot merge (be forced):
    // only a policy that every conflict takes is offered for the whole rewind.
    if !mergeable.is_empty() && stuck.is_empty() {
        ways.push(format!(
            "{} keeps your edits in {} and still undoes the agent's",
            style.hint(format!("{cmd} --policy merge")),
            names(&mergeable)
        ));
    } else if !mergeable.is_empty() && !cmd.contains(" --path ") {
        let paths: String = mergeable
            .iter()
            .map(|f| format!(" --path {}", shell_word(f.path.as_str())))
            .collect();
        ways.push(format!(
            "{} merges only {} (your edits kept, the agent's undone): a merge of the whole \
             rewind is refused while {} cannot merge",
            style.hint(format!("{cmd}{paths} --policy merge")),
            names(&mergeable),
            names(&stuck)
        ));
    }
    if !p.safe_files.is_empty() {
        ways.push(format!(
            "{} restores only the {} without a conflict and leaves the rest",
            style.hint(format!("{cmd} --policy skip")),
            count(p.safe_files.len(), "file")
        ));
    }
    if !forceable.is_empty() && forceable.len() == p.unsafe_files.len() {
        ways.push(format!(
            "{} overwrites {} (journaled: `rewind undo` brings {} back)",
            style.hint(format!("{cmd} --policy force")),
            names(&forceable),
            if forceable.len() == 1 { "it" } else { "them" }
        ));
    }
    if ways.is_empty() {
        return format!("{blocked}; no policy can restore {}", names(&stuck));
    }
    format!("{blocked}. To go on:\n  {}", ways.join("\n  "))
}

/// `rewind <verb> SESSION <target flags>`: the command that runs this file rewind (ids short).
pub(super) fn retry_command(verb: &str, session: &SessionId, t: &TargetOptions) -> String {
    let mut cmd = format!("rewind {verb} {}", short_id(session.as_str()));
    if let Some(m) = &t.since {
        let _ = write!(cmd, " --to {}", short_id(m.as_str()));
    }
    if let Some(turn) = &t.turn {
        let _ = write!(cmd, " --turn {}", short_id(turn));
    }
    if let Some(c) = &t.checkpoint {
        let _ = write!(cmd, " --checkpoint {}", short_id(c.as_str()));
    }
    for p in &t.paths {
        let _ = write!(cmd, " --path {}", shell_word(p));
    }
    if t.include_external {
        cmd.push_str(" --include-external");
    }
    cmd
}

/// `p` as one shell word (single-quoted where the shell would read it otherwise).
pub(super) fn shell_word(p: &str) -> String {
    shell_words::quote(p).into_owned()
}

/// The lines of restored files.
pub(super) fn restored(style: &Style, files: &[RestoredFile]) -> String {
    let mut t = String::new();
    for f in files {
        let how = if f.merged {
            " (merged: your later edits kept)"
        } else if f.forced {
            " (forced over later edits)"
        } else {
            ""
        };
        let _ = writeln!(
            t,
            "  {} {}{}",
            style.paint(Role::Added, format!("{:<8}", word(&f.action))),
            visible(f.path.as_str()),
            style.paint(Role::Dim, how)
        );
    }
    t
}

/// Whether an apply that wrote nothing simply had nothing to write: no file to restore and no
/// conflict (its changes are already undone, or already as they were). That is a success,
/// said plainly, not a refusal.
pub(super) fn nothing_to_restore(out: &ApplyOutcome) -> bool {
    !out.applied && out.preview.safe_files.is_empty() && out.preview.unsafe_files.is_empty()
}

/// Whether an apply was refused (exit 1): it wrote nothing although there was something to
/// restore (a conflict under the policy, or a failed write rolled back).
pub(super) fn refused(out: &ApplyOutcome) -> bool {
    !out.applied && !nothing_to_restore(out)
}

/// The human form of an apply (file rewind, the files of `both`, an undo).
pub(super) fn outcome(
    style: &Style,
    session: &SessionId,
    out: &ApplyOutcome,
    retry: Retry<'_>,
) -> String {
    outcome_then(style, session, out, retry, false)
}

/// [`outcome`] of an undo of a rewind, whose own undo is `rewind redo`.
pub(super) fn outcome_of_undo(
    style: &Style,
    session: &SessionId,
    out: &ApplyOutcome,
    retry: Retry<'_>,
) -> String {
    outcome_then(style, session, out, retry, true)
}

fn outcome_then(
    style: &Style,
    session: &SessionId,
    out: &ApplyOutcome,
    retry: Retry<'_>,
    redo: bool,
) -> String {
    if nothing_to_restore(out) {
        let already = match out.preview.unchanged_files.len() + out.preview.reverted_paths.len() {
            0 => "the target changed no file".to_owned(),
            1 => "1 file is already as the rewind would leave it".to_owned(),
            n => format!("{n} files are already as the rewind would leave them"),
        };
        return format!("nothing to restore: {already}; nothing was changed");
    }
    if !out.applied {
        // Conflicts are explained above, with what to do; the engine's cause says it again.
        let cause = if out.preview.unsafe_files.is_empty() {
            out.cause.as_deref().unwrap_or("nothing to do")
        } else {
            "nothing was written"
        };
        return format!(
            "{}\n{}: {}",
            preview(style, &out.preview, retry),
            style.paint(Role::Bad, "not applied"),
            visible(cause)
        );
    }
    let mut t = restored(style, &out.restored_files);
    for s in &out.skipped_files {
        let _ = writeln!(
            t,
            "  {} {}",
            style.paint(Role::Warn, "skipped "),
            visible(s.as_str())
        );
    }
    t.push_str(&skipped_meaning(style, out, retry));
    let undo = match &out.operation_id {
        Some(_) if redo => format!("; take it back with {}", style.hint("rewind redo")),
        Some(op) => format!(
            "; undo with {} (or {} for the latest)",
            style.hint(format!(
                "rewind undo {} {}",
                short_id(session.as_str()),
                short_id(op.as_str())
            )),
            style.hint("rewind undo")
        ),
        None => String::new(),
    };
    let _ = write!(
        t,
        "{}: {} written{undo}",
        style.paint(Role::Added, "applied"),
        count(out.restored_files.len(), "file"),
    );
    t
}

/// What a skipped file means now, and (after a file rewind) what restores it too: it was left
/// as it is, so it may still refer to what the rewind restored or deleted.
fn skipped_meaning(style: &Style, out: &ApplyOutcome, retry: Retry<'_>) -> String {
    let n = out.skipped_files.len();
    if n == 0 {
        return String::new();
    }
    let (left, them, they) = match n {
        1 => ("left as it was", "it", "it"),
        _ => ("left as they were", "them", "they"),
    };
    let force = retry
        .filter(|cmd| cmd.starts_with("rewind apply "))
        .map(|cmd| {
            let cmd = style.hint(format!("{cmd} --policy force"));
            format!("; {cmd} restores {them} too (journaled)")
        })
        .unwrap_or_default();
    format!(
        "  {}\n",
        style.paint(
            Role::Dim,
            format!(
                "skipped: {left}, your later edits and the agent's change in {them} stay, and \
                 {they} may still refer to files this rewind restored or deleted{force}"
            )
        )
    )
}
