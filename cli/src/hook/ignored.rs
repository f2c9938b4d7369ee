//! The events rewind ignored, for `rewind doctor`'s "seen but not understood" (counted by
//! host, event and tool): one JSON line each in `hook-ignored.jsonl` beside the database,
//! `{"ms", "agent", "host", "event", "tool", "why"}`. Ignoring is not a problem of its own (VS
//! Code's agent runs a Claude Code install for every tool, matchers or not), so these lines are
//! kept apart from `hook.log`. Written only where a store already is; bounded like `hook.log`:
//! past 256 KiB the file moves to `hook-ignored.jsonl.1`, replacing the older one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const LIMIT: u64 = 256 << 10;

/// The file `rewind doctor` reads (its older half is `<file>.1`).
pub fn file(db: &Path) -> PathBuf {
    db.parent()
        .unwrap_or(Path::new("."))
        .join("hook-ignored.jsonl")
}

/// One ignored event; failures are swallowed (nothing depends on it).
pub(super) fn line(db: &Path, agent: &str, host: &str, event: &str, tool: &str, why: &str) {
    let path = file(db);
    if !db.exists() {
        return;
    }
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > LIMIT) {
        let _ = std::fs::rename(&path, path.with_extension("jsonl.1"));
    }
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let row = serde_json::json!({
        "ms": u64::try_from(ms).unwrap_or(u64::MAX),
        "agent": agent, "host": host, "event": event, "tool": tool, "why": why,
    });
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(f, "{row}");
    }
}
