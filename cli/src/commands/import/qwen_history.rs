//! Qwen Code's file-history snapshots (`system` records with subtype `file_history_snapshot`,
//! the format of qwen-spec.md §1.3–1.4): one snapshot per real prompt, taken before the turn's
//! edits, naming for each tracked file a byte copy in `~/.qwen/file-history/<session>/` (or
//! `null`: the file did not exist). Appending a record with the same `promptId` is the update
//! (last wins; a file first edited mid-turn is added so). Qwen Code 0.24.4 writes them only in
//! interactive sessions with checkpointing on (`fileCheckpointingEnabled` is `!sdkMode &&
//! interactive`; no setting turns it on headless).
//!
//! They make exact a change the chat keeps no contents of: the file before turn k is its entry
//! in snapshot k, after it the entry in snapshot k + 1. A failed or missing backup leaves the
//! change a failed capture with that reason.

use super::build::{Step, Turn};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One file in one snapshot.
#[derive(Debug, Clone)]
struct Backup {
    /// `None`: the file did not exist.
    name: Option<String>,
    failed: bool,
}

type Snapshot = HashMap<String, Backup>;

/// The snapshots of `lines`, in the order their prompts first appear, each the last written.
fn snapshots(lines: &[Value], diagnostics: &mut Vec<String>) -> Vec<Snapshot> {
    let mut order: Vec<String> = Vec::new();
    let mut by_prompt: HashMap<String, Snapshot> = HashMap::new();
    let records = lines.iter().filter(|v| {
        v.get("type").and_then(Value::as_str) == Some("system")
            && v.get("subtype").and_then(Value::as_str) == Some("file_history_snapshot")
    });
    for v in records {
        let list = v
            .pointer("/systemPayload/snapshots")
            .and_then(Value::as_array);
        let Some(list) = list else {
            diagnostics
                .push("a file_history_snapshot record holds no snapshots: passed over".into());
            continue;
        };
        for s in list {
            let (Some(id), Some(files)) = (
                s.get("promptId").and_then(Value::as_str),
                s.get("trackedFileBackups").and_then(Value::as_object),
            ) else {
                diagnostics
                    .push("a file-history snapshot without promptId / files: passed over".into());
                continue;
            };
            let snap = files
                .iter()
                .map(|(path, b)| {
                    let backup = Backup {
                        name: b
                            .get("backupFileName")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        failed: b.get("failed") == Some(&Value::Bool(true)),
                    };
                    (path.clone(), backup)
                })
                .collect();
            if !by_prompt.contains_key(id) {
                order.push(id.to_owned());
            }
            by_prompt.insert(id.to_owned(), snap);
        }
    }
    order.iter().filter_map(|id| by_prompt.remove(id)).collect()
}

/// The bytes a backup names (`Ok(None)`: absent), or why they cannot be known.
fn bytes(dir: &Path, path: &str, b: Option<&Backup>) -> Result<Option<Vec<u8>>, String> {
    let Some(b) = b else {
        return Err(format!(
            "Qwen Code's file history does not track {path} there"
        ));
    };
    if b.failed {
        return Err(format!("Qwen Code's snapshot of {path} failed"));
    }
    let Some(name) = &b.name else {
        return Ok(None);
    };
    // The spec's guard: a name that would leave the session's backup folder is refused.
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(format!(
            "the backup name {name:?} of {path} leaves its folder"
        ));
    }
    std::fs::read(dir.join(name))
        .map(Some)
        .map_err(|e| format!("the file-history backup {name} of {path} is missing ({e})"))
}

/// Make exact, from the snapshots, the changes of `turns` the chat keeps no contents of.
pub(super) fn apply(
    home: &Path,
    session: &str,
    lines: &[Value],
    turns: &mut [Turn],
    diagnostics: &mut Vec<String>,
) {
    let snaps = snapshots(lines, diagnostics);
    if snaps.is_empty() {
        return;
    }
    if snaps.len() != turns.len() {
        diagnostics.push(format!(
            "{} file-history snapshots for {} prompts: they do not line up, so none is used",
            snaps.len(),
            turns.len()
        ));
        return;
    }
    let dir = home.join(".qwen/file-history").join(session);
    for (k, turn) in turns.iter_mut().enumerate() {
        let touches = |p: &str, steps: &[Step]| {
            steps
                .iter()
                .filter(|s| matches!(s, Step::Change { path, .. } | Step::Failed { path, .. } if path == p))
                .count()
        };
        let counts: Vec<usize> = turn
            .steps
            .iter()
            .map(|s| match s {
                Step::Failed { path, .. } => touches(path, &turn.steps),
                _ => 0,
            })
            .collect();
        for (step, n) in turn.steps.iter_mut().zip(counts) {
            let Step::Failed { tool, path, reason } = step else {
                continue;
            };
            if n != 1 {
                continue; // several changes to the file in the turn: its snapshots cannot split them
            }
            let Some(next) = snaps.get(k + 1) else {
                reason.push_str("; no later file-history snapshot says what it became");
                continue;
            };
            let before = bytes(&dir, path, snaps[k].get(path.as_str()));
            let after = bytes(&dir, path, next.get(path.as_str()));
            match (before, after) {
                (Ok(before), Ok(after)) => {
                    *step = Step::Change {
                        tool: tool.clone(),
                        call_id: None,
                        path: path.clone(),
                        before,
                        after,
                    };
                }
                (Err(why), _) | (_, Err(why)) => {
                    reason.push_str(&format!("; {why}"));
                }
            }
        }
    }
}
