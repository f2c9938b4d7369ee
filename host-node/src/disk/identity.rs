//! Which file is at a path, so a command can tell that the store's database it wrote to is
//! still the one at the store's place. An open SQLite connection keeps writing to a database
//! that was removed (`rm -rf .rewind`) or moved away while it ran, and every commit succeeds:
//! only comparing the file before and after says the records are not where the store is.

use std::path::Path;

/// A file's identity: device and inode on Unix (elsewhere: its creation time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId(u64, u64);

/// The identity of the file at `path`; `None` when nothing is there.
pub fn file_id(path: &Path) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        Some(FileId(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let created = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        Some(FileId(created, 0))
    }
}

/// Why the file at `path` is no longer the one `before` saw, if it is not.
pub fn gone_since(path: &Path, before: Option<FileId>) -> Option<String> {
    let shown = path.display();
    match (before, file_id(path)) {
        (Some(a), Some(b)) if a == b => None,
        (Some(_), None) => Some(format!(
            "the store's database {shown} was removed or moved away"
        )),
        (Some(_), Some(_)) => Some(format!(
            "the store's database {shown} was replaced by another file"
        )),
        (None, _) => None,
    }
}
