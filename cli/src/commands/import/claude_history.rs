//! Claude Code's file-history, as its transcript names it: `file-history-snapshot` lines (per
//! prompt `messageId`, the `trackedFileBackups` at the prompt) and, since 2.1.220,
//! `file-history-delta` lines (a file first edited mid-turn, folded in add-only), each naming a
//! blob `<history dir>/<session>/<hash>@v<n>` (`null`: the file did not exist). The blobs are
//! exact byte copies.

use super::read_record;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;

/// The file-history backups a transcript names: per prompt, each tracked file's state when the
/// turn first touched it (`None`: absent).
pub(super) struct Backups {
    dir: PathBuf,
    at: HashMap<String, HashMap<String, Option<String>>>,
}

impl Backups {
    pub(super) fn of(lines: &[Value], dir: PathBuf) -> Self {
        let mut at: HashMap<String, HashMap<String, Option<String>>> = HashMap::new();
        let name = |b: &Value| {
            b.get("backupFileName")
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        for v in lines {
            match v.get("type").and_then(Value::as_str) {
                Some("file-history-snapshot") => {
                    let Some(id) = v.get("messageId").and_then(Value::as_str) else {
                        continue;
                    };
                    let files = v
                        .pointer("/snapshot/trackedFileBackups")
                        .and_then(Value::as_object);
                    let entry = at.entry(id.to_owned()).or_default();
                    for (path, b) in files.into_iter().flatten() {
                        entry.insert(path.clone(), name(b));
                    }
                }
                Some("file-history-delta") => {
                    let id = v.get("snapshotMessageId").and_then(Value::as_str);
                    let path = v.get("trackingPath").and_then(Value::as_str);
                    if let (Some(id), Some(path), Some(b)) = (id, path, v.get("backup")) {
                        // Add-only: a delta never overwrites the snapshot's entry.
                        let entry = at.entry(id.to_owned()).or_default();
                        entry.entry(path.to_owned()).or_insert_with(|| name(b));
                    }
                }
                _ => {}
            }
        }
        Self { dir, at }
    }

    /// The file's bytes when the turn of `prompt` first touched it: `Some(None)` absent, `None`
    /// not kept (or the blob is gone: noted).
    pub(super) fn before(
        &self,
        prompt: &str,
        path: &str,
        diagnostics: &mut Vec<String>,
    ) -> Option<Option<Vec<u8>>> {
        let name = self.at.get(prompt)?.get(path)?;
        let Some(name) = name else {
            return Some(None);
        };
        if name.contains('/') || name.starts_with('.') {
            diagnostics.push(format!(
                "file-history backup name {name:?} is not a plain name: not read"
            ));
            return None;
        }
        match read_record(&self.dir.join(name)) {
            Ok(bytes) => Some(Some(bytes)),
            Err(e) => {
                diagnostics.push(format!("file-history backup of {path} missing: {e}"));
                None
            }
        }
    }
}
