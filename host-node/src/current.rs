//! The workspace's current session: the one the hooks last wrote, kept in `current-session`
//! beside the database so commands can default to it.

use rewind_core::HostError;
use rewind_core::id::SessionId;
use std::path::{Path, PathBuf};

fn file(db: &Path) -> PathBuf {
    db.parent()
        .unwrap_or(Path::new("."))
        .join("current-session")
}

/// Make `session` the current one.
pub fn mark(db: &Path, session: &SessionId) -> Result<(), HostError> {
    let path = file(db);
    if std::fs::read(&path).is_ok_and(|b| b == session.as_str().as_bytes()) {
        return Ok(()); // already: no write on every hook event
    }
    crate::disk::write_own_file(&path, session.as_str().as_bytes())
}

/// The current session, if one was marked (a missing or garbled file is `None`).
pub fn read(db: &Path) -> Option<SessionId> {
    let bytes = std::fs::read(file(db)).ok()?;
    SessionId::parse(std::str::from_utf8(&bytes).ok()?.trim()).ok()
}
