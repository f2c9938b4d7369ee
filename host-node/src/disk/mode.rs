//! Permission bits of workspace files: recorded with each version, restored by a rewind.

use super::walk::Lookup;
use super::{DiskWorkspace, check_regular, io_error};
use rewind_core::HostError;
use rewind_core::path::WorkPath;
use std::fs;

impl DiskWorkspace {
    /// The permission bits of the regular file `path` leads to, `None` when there is none.
    pub(super) fn mode_of(&self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        let meta = match self.walk(path, None)? {
            Lookup::Entry { meta, .. } | Lookup::Link { meta, .. } => meta,
            Lookup::Missing { .. } | Lookup::Dangling { .. } => return Ok(None),
        };
        Ok((meta.is_file() || meta.is_dir()).then(|| bits(&meta)))
    }

    /// Set the permission bits of the regular file `path` leads to; a missing file is fine.
    pub(super) fn set_mode_of(&self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        let (disk, meta) = match self.walk(path, None)? {
            Lookup::Entry { entry, meta } => (entry, meta),
            Lookup::Link { real, meta, .. } => (real, meta),
            Lookup::Missing { .. } | Lookup::Dangling { .. } => return Ok(()),
        };
        if !meta.is_dir() {
            check_regular(path, &disk, &meta, "change the mode of")?;
        }
        if bits(&meta) == mode & 0o7777 {
            return Ok(());
        }
        set(&disk, mode).map_err(|e| io_error("cannot set the mode of", path, &disk, e))
    }
}

#[cfg(unix)]
fn bits(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(unix)]
fn set(disk: &std::path::Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(disk, fs::Permissions::from_mode(mode & 0o7777))
}

// Elsewhere only the read-only bit exists: report it as 0o444 / 0o644 and set it back.
#[cfg(not(unix))]
fn bits(meta: &fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

#[cfg(not(unix))]
fn set(disk: &std::path::Path, mode: u32) -> std::io::Result<()> {
    let mut p = fs::metadata(disk)?.permissions();
    p.set_readonly(mode & 0o200 == 0);
    fs::set_permissions(disk, p)
}
