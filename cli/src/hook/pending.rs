//! A file tool's before-state, kept between its before and after events (two processes): the
//! exact bytes and mode the file had when the agent announced the tool, in a small file per
//! tool call beside the database. Written atomically; taken (read and removed) by the after
//! event. Stale ones (a tool that never finished) are swept after a day.

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
    /// It did not exist.
    Absent,
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

    /// The bytes (`None`: absent) or why they are unknown.
    pub(super) fn bytes(&self) -> Result<(Option<Vec<u8>>, Option<u32>), String> {
        match self {
            Self::Absent => Ok((None, None)),
            Self::Present { bytes, mode } => base64::engine::general_purpose::STANDARD
                .decode(bytes)
                .map(|b| (Some(b), *mode))
                .map_err(|e| format!("pending before-state is damaged: {e}")),
            Self::Unknown { reason } => Err(reason.clone()),
        }
    }
}

/// The file that holds one tool call's before-state of one path.
fn slot(db: &Path, agent: &str, session: &str, call: &str, path: &str) -> PathBuf {
    let key = ContentHash::of(format!("{agent}\n{session}\n{call}\n{path}").as_bytes());
    db.parent()
        .unwrap_or(Path::new("."))
        .join(DIR)
        .join(format!("{}.json", &key.as_str()[..32]))
}

/// Keep `before` for the tool call.
pub(super) fn keep(
    db: &Path,
    key: (&str, &str, &str, &str),
    before: &Before,
) -> Result<(), String> {
    let file = slot(db, key.0, key.1, key.2, key.3);
    let dir = file.parent().expect("slot has a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let body = serde_json::to_vec(before).map_err(|e| e.to_string())?;
    rewind_host::disk::write_own_file(&file, &body).map_err(|e| e.to_string())?;
    sweep(dir);
    Ok(())
}

/// Take the before-state kept for the tool call, if any.
pub(super) fn take(db: &Path, key: (&str, &str, &str, &str)) -> Option<Result<Before, String>> {
    let file = slot(db, key.0, key.1, key.2, key.3);
    let bytes = std::fs::read(&file).ok()?;
    let _ = std::fs::remove_file(&file);
    Some(
        serde_json::from_slice(&bytes).map_err(|e| format!("pending before-state is damaged: {e}")),
    )
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
