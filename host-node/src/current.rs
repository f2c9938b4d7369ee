//! The workspace's current session: `current-session` beside the database, holding one session
//! id. `rewind session new`, `rewind session use` and the agent hooks set it; every command that
//! takes a session uses it when none is given.

use rewind_core::HostError;
use rewind_core::id::SessionId;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The file's name, in the database's directory.
pub const FILE_NAME: &str = "current-session";

/// A session id is short; anything longer than this is not one.
const MAX_BYTES: u64 = 1024;

/// `current-session` beside the database.
pub fn path_for(db: &Path) -> PathBuf {
    db.with_file_name(FILE_NAME)
}

/// Make `session` the current one (replaced atomically and durably, like rewind's other own
/// files). The database's directory must exist (opening the store creates it).
pub fn mark(db: &Path, session: &SessionId) -> Result<(), HostError> {
    let body = format!("{session}\n");
    // Hooks mark on every event: an unchanged mark costs a read, not a durable write.
    if std::fs::read(path_for(db)).is_ok_and(|now| now == body.as_bytes()) {
        return Ok(());
    }
    crate::disk::write_own_file(&path_for(db), body.as_bytes())
}

/// Stop naming a current session, if the one marked is `session` (a removed session must not
/// stay current; another one marked meanwhile stays). A missing file is fine.
pub fn clear_if(db: &Path, session: &SessionId) -> Result<(), HostError> {
    if read(db).as_ref() != Some(session) {
        return Ok(());
    }
    match std::fs::remove_file(path_for(db)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(HostError::io(format!(
            "cannot remove {}: {e}",
            path_for(db).display()
        ))),
        _ => Ok(()),
    }
}

/// The current session, if one was marked. Reads only: a missing, unreadable or garbled file
/// (or anything but a regular file) is `None`. Whether the session still exists is the caller's
/// question.
pub fn read(db: &Path) -> Option<SessionId> {
    let path = path_for(db);
    // A FIFO or a device could block forever or never end.
    if !std::fs::metadata(&path).ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .ok()?
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_BYTES {
        return None;
    }
    std::str::from_utf8(&bytes).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_reads_back_and_garbage_is_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("rewind.db");
        assert_eq!(read(&db), None, "missing");
        let id: SessionId = "ses_abc-1".parse().expect("id");
        mark(&db, &id).expect("mark");
        assert_eq!(read(&db), Some(id.clone()));
        let other: SessionId = "ses_def".parse().expect("id");
        mark(&db, &other).expect("mark again");
        assert_eq!(read(&db), Some(other.clone()));
        for garbage in [&b"not an id"[..], b"", b"\xff\xfe", &[b'x'; 5000][..]] {
            std::fs::write(path_for(&db), garbage).expect("write");
            assert_eq!(read(&db), None, "{:?}", String::from_utf8_lossy(garbage));
        }
        mark(&db, &other).expect("mark");
        clear_if(&db, &id).expect("not the current one");
        assert_eq!(
            read(&db),
            Some(other.clone()),
            "another session stays current"
        );
        clear_if(&db, &other).expect("clear");
        assert_eq!(read(&db), None);
        clear_if(&db, &other).expect("already clear");
        std::fs::create_dir(path_for(&db)).expect("dir");
        assert_eq!(read(&db), None, "a directory");
    }
}
