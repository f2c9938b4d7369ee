//! The hook's own log, `hook.log` beside the database: a hook never writes to stdout or stderr
//! beyond its `{}` (agents show stray output to the person or feed it to the model), so this is
//! where failures are told. Bounded: past 1 MiB it moves to `hook.log.1`, replacing the older one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const LIMIT: u64 = 1 << 20;

fn file(db: &Path) -> PathBuf {
    db.parent().unwrap_or(Path::new(".")).join("hook.log")
}

/// Append one line; any failure to log is swallowed (there is nowhere left to say it).
pub(super) fn line(db: &Path, agent: &str, event: &str, message: &str) {
    let path = file(db);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > LIMIT) {
        let _ = std::fs::rename(&path, path.with_extension("log.1"));
    }
    let Some(dir) = path.parent() else { return };
    if !dir.is_dir() {
        return;
    }
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let one_line = message.replace('\n', " ");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(f, "{ms} {agent} {event}: {one_line}");
    }
}
