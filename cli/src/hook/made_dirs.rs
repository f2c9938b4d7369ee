//! The folders a file tool made. A Write into `gen/x/a.rs` with no `gen/` creates `gen/` and
//! `gen/x/` too: they are that tool's change, recorded in its checkpoint beside the file, so a
//! rewind removes them once they are empty (never one that holds what the rewind does not own:
//! the engine's guard) and `undo` makes them again, with their modes.

use rewind_core::node::Node;
use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use rewind_core::record::EditChange;

/// The folders above `path` that do not exist, nearest first (none when its parent does).
pub(super) fn missing_above(ws: &mut dyn Workspace, path: &WorkPath) -> Vec<String> {
    let segments: Vec<&str> = path.segments().collect();
    let mut missing = Vec::new();
    for depth in (1..segments.len()).rev() {
        let Ok(dir) = WorkPath::parse(&segments[..depth].join("/")) else {
            break;
        };
        match ws.node(&dir) {
            Ok(None) => missing.push(dir.to_string()),
            // There, or unknowable: what is above it was there too.
            _ => break,
        }
    }
    missing
}

/// The changes making those of `dirs` that are directories now (each once, none already in
/// `changes`), outermost first.
pub(super) fn made(
    ws: &mut dyn Workspace,
    dirs: &[String],
    changes: &[EditChange],
) -> Vec<EditChange> {
    let mut out: Vec<EditChange> = Vec::new();
    let mut sorted: Vec<&String> = dirs.iter().collect();
    sorted.sort();
    sorted.dedup();
    for dir in sorted {
        if changes.iter().chain(out.iter()).any(|c| &c.path == dir) {
            continue;
        }
        let Ok(path) = WorkPath::parse(dir) else {
            continue;
        };
        if !matches!(ws.node(&path), Ok(Some(Node::Dir))) {
            continue; // the tool failed before making it, or something else is there now
        }
        out.push(EditChange {
            path: dir.clone(),
            before: None,
            after: Some(Node::Dir.encode()),
            patch: None,
            before_mode: None,
            after_mode: ws.mode(&path).unwrap_or(None),
        });
    }
    out
}
