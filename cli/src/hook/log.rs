//! The hook's own log, `hook.log` beside the database: a hook never writes to stdout or stderr
//! beyond its `{}` (agents show stray output to the person or feed it to the model), so this is
//! where failures are told. Bounded: past 1 MiB it moves to `hook.log.1`, replacing the older one.
//!
//! One line per real problem, none for normal events: `<ms> <agent> <event> session <id>:
//! <what>`, where what says what was not recorded (so cannot be rewound). Everything in it comes
//! from the agent or the file system, so control characters are shown escaped (`visible`):
//! a line is one line, and reading the log on a terminal cannot be hijacked.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const LIMIT: u64 = 1 << 20;

fn file(db: &Path) -> PathBuf {
    db.parent().unwrap_or(Path::new(".")).join("hook.log")
}

/// Append one line about `event` of the agent's session `session` (`""`: not known); any
/// failure to log is swallowed (there is nowhere left to say it).
pub(super) fn line(db: &Path, agent: &str, event: &str, session: &str, message: &str) {
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
    let shown = crate::visible::visible;
    let session = if session.is_empty() { "?" } else { session };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(
            f,
            "{ms} {agent} {} session {}: {}",
            shown(event),
            shown(session),
            shown(message)
        );
    }
}
