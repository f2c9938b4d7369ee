//! A file tool's before-state, kept between its before and after events (two processes): the
//! exact bytes and mode the file had when the agent announced the tool, in a small file per
//! tool call beside the database. Written atomically; taken (read and removed) by the after
//! event. Stale ones (a tool that never finished) are swept after a day.
//!
//! Gemini CLI's tool events carry no call id, so its calls are keyed by tool name and path, and
//! two calls of one tool on one path share a key. Each before-state is therefore kept in a file
//! of its own, named by the time it was kept, and the after event takes the oldest: the calls'
//! after events come in the order they ran, so the first takes the first call's before-state,
//! and no before-state is overwritten by a later one (which would lose the bytes the file had
//! before the first call). What the first after event records as the file's new state is then
//! the before-state of the calls still pending on that key (`rebase`): the chain of recorded
//! changes stays unbroken however the calls' runs interleave with their events.

use base64::Engine as _;
use rewind_core::hash::ContentHash;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const DIR: &str = "hook-pending";
const STALE: Duration = Duration::from_secs(24 * 3600);

/// What a file held before the tool ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub(super) enum Before {
    /// It did not exist, nor did these folders above it (nearest first): a tool that writes
    /// the file creates them, and they are then that tool's change.
    Absent {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dirs: Vec<String>,
    },
    /// Its bytes (base64) and mode.
    Present {
        bytes: String,
        #[serde(default)]
        mode: Option<u32>,
    },
    /// It could not be kept (too large, unreadable), with why.
    Unknown { reason: String },
}

impl Before {
    pub(super) fn present(bytes: &[u8], mode: Option<u32>) -> Self {
        Self::Present {
            bytes: base64::engine::general_purpose::STANDARD.encode(bytes),
            mode,
        }
    }

    /// The folders above the file that were missing.
    pub(super) fn missing_dirs(&self) -> &[String] {
        match self {
            Self::Absent { dirs } => dirs,
            _ => &[],
        }
    }

    /// The bytes (`None`: absent) or why they are unknown.
    pub(super) fn bytes(&self) -> Result<(Option<Vec<u8>>, Option<u32>), String> {
        match self {
            Self::Absent { .. } => Ok((None, None)),
            Self::Present { bytes, mode } => base64::engine::general_purpose::STANDARD
                .decode(bytes)
                .map(|b| (Some(b), *mode))
                .map_err(|e| format!("pending before-state is damaged: {e}")),
            Self::Unknown { reason } => Err(reason.clone()),
        }
    }
}

fn dir(db: &Path) -> PathBuf {
    db.parent().unwrap_or(Path::new(".")).join(DIR)
}

/// The start of the names of the files holding one call key's before-states of one path.
fn prefix(agent: &str, session: &str, call: &str, path: &str) -> String {
    let key = ContentHash::of(format!("{agent}\n{session}\n{call}\n{path}").as_bytes());
    format!("{}-", &key.as_str()[..32])
}

/// A new before-state's file: the prefix, then the time (fixed width, so names sort by it)
/// and the process (two hooks in one nanosecond).
fn new_slot(db: &Path, prefix: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    dir(db).join(format!(
        "{prefix}{nanos:024}-{:010}.json",
        std::process::id()
    ))
}

/// The files of `prefix`, oldest first.
fn slots(db: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir(db)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".json"))
        .collect();
    names.sort();
    names.into_iter().map(|n| dir(db).join(n)).collect()
}

/// Keep `before` for the tool call.
pub(super) fn keep(
    db: &Path,
    key: (&str, &str, &str, &str),
    before: &Before,
) -> Result<(), String> {
    let file = new_slot(db, &prefix(key.0, key.1, key.2, key.3));
    let dir = file.parent().expect("slot has a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let body = serde_json::to_vec(before).map_err(|e| e.to_string())?;
    rewind_host::disk::write_own_file(&file, &body).map_err(|e| e.to_string())?;
    sweep(dir);
    Ok(())
}

/// Take the oldest before-state kept for the tool call, if any. Another after event taking
/// the same file at once gets the next one: only the one whose removal succeeds uses it.
pub(super) fn take(db: &Path, key: (&str, &str, &str, &str)) -> Option<Result<Before, String>> {
    for file in slots(db, &prefix(key.0, key.1, key.2, key.3)) {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        if std::fs::remove_file(&file).is_err() {
            continue;
        }
        return Some(
            serde_json::from_slice(&bytes)
                .map_err(|e| format!("pending before-state is damaged: {e}")),
        );
    }
    None
}

/// The file now holds `after` (with `mode`), as just recorded: that is the before-state of
/// every call still pending on `key`. Best effort: a pending one not rewritten keeps its own.
pub(super) fn rebase(
    db: &Path,
    key: (&str, &str, &str, &str),
    after: &Option<Vec<u8>>,
    mode: Option<u32>,
) {
    let slots = slots(db, &prefix(key.0, key.1, key.2, key.3));
    if slots.is_empty() {
        return;
    }
    let now = match after {
        Some(bytes) => Before::present(bytes, mode),
        None => Before::Absent { dirs: Vec::new() },
    };
    let Ok(body) = serde_json::to_vec(&now) else {
        return;
    };
    for slot in slots {
        // Only one still there: another after event may have taken it meanwhile.
        if slot.exists() {
            let _ = rewind_host::disk::write_own_file(&slot, &body);
        }
    }
}

/// Remove before-states older than a day: their tool never reported back.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > STALE));
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
