//! A walked path as the engine sees it: its workspace path, kind and stat data, shared by the
//! walk (`scan`) and the ignored-file pass (`precious`).

use rewind_core::path::WorkPath;
use rewind_core::ports::{EntryKind, ScanEntry, Stat};
use std::fs::Metadata;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Per-directory ignore files of rewind's own, read like `.gitignore` (and winning over it).
pub const IGNORE_FILE: &str = ".rewindignore";

pub(super) fn ns_since_epoch(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

#[cfg(unix)]
pub(super) fn stat_of(meta: &Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    Stat {
        size: meta.len(),
        mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
        ctime_ns: Some(ns(meta.ctime(), meta.ctime_nsec())),
        inode: Some(meta.ino()),
        mode: Some(meta.mode() & 0o7777),
    }
}

#[cfg(not(unix))]
pub(super) fn stat_of(meta: &Metadata) -> Stat {
    Stat {
        size: meta.len(),
        mtime_ns: meta.modified().map(ns_since_epoch).unwrap_or(0),
        ctime_ns: None,
        inode: None,
        mode: None,
    }
}

pub(super) fn kind_of(meta: &Metadata) -> Option<EntryKind> {
    let t = meta.file_type();
    if t.is_dir() {
        Some(EntryKind::Dir)
    } else if t.is_symlink() {
        Some(EntryKind::Symlink)
    } else if t.is_file() {
        Some(EntryKind::File)
    } else {
        Some(EntryKind::Other)
    }
}

/// `rel` as a workspace path, or why not.
pub(super) fn work_path(rel: &Path) -> Result<WorkPath, String> {
    let mut parts = Vec::new();
    for c in rel.components() {
        let part = c.as_os_str().to_str().ok_or("invalid_path: not UTF-8")?;
        parts.push(part);
    }
    WorkPath::parse(&parts.join("/")).map_err(|e| format!("invalid_path: {e}"))
}

/// Directories the walk never enters.
pub(super) fn skipped_dir(name: &str) -> bool {
    name.eq_ignore_ascii_case(super::STORE_DIR) || name == super::GIT_DIR
}

/// The entry of `rel` as a workspace path (`None`: a directory, or not a valid path).
pub(super) fn entry_of(rel: &Path, meta: &Metadata) -> Option<ScanEntry> {
    Some(ScanEntry {
        path: work_path(rel).ok()?,
        kind: kind_of(meta)?,
        stat: stat_of(meta),
    })
}
