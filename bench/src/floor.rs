//! The bare file-system floors rewind is compared with: what any durable write of the same
//! bytes must cost, with no engine, database or safety check around it.

use crate::harness::Result;
use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Copy `files` into one backup file and fsync it once: the least a durable checkpoint of their
/// bytes can cost (rewind's record is likewise one file, the WAL).
pub fn copy_with_one_fsync(backup: &Path, files: &[&[u8]]) -> Result<()> {
    let mut f = File::create(backup)?;
    for bytes in files {
        f.write_all(bytes)?;
    }
    f.sync_data()?;
    Ok(())
}

/// Atomically replace each `(path, bytes)`: temp file + write + fsync + rename, then one sync
/// of each directory whose entries changed (without it a rename is not durable). This is the
/// floor of an apply that must leave every file whole across a crash.
pub fn atomic_writes(files: &[(PathBuf, &[u8])]) -> Result<()> {
    let mut dirs = BTreeSet::new();
    for (path, bytes) in files {
        let dir = path.parent().ok_or("no parent")?;
        let tmp = dir.join(".floor.tmp");
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        dirs.insert(dir.to_path_buf());
    }
    for dir in dirs {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}
