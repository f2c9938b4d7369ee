//! Atomic replace: write a temp file beside the target, make it durable, rename it over.
//! A reader sees the old bytes or the new ones, never a mix, even across a crash. The rename
//! itself is durable once the directory is synced: [`replace`] does that at once, the
//! workspace defers it to one sync per directory per apply ([`replace_unsynced`], [`sync`]).

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Longest part of the target's name kept in the temp name, so the temp name stays under the
/// usual 255-byte limit.
const NAME_KEEP: usize = 180;

/// Replace `target` with `bytes` and sync its directory. `keep` describes the file being
/// replaced, whose mode the new file takes. On failure the temp file is gone and `target` is
/// untouched, unless only the directory sync failed; the error says which step failed.
pub(super) fn replace(
    target: &Path,
    bytes: &[u8],
    keep: Option<&Metadata>,
) -> Result<(), (&'static str, io::Error)> {
    let dir = replace_unsynced(target, bytes, keep)?;
    // After the rename the new bytes are in place even if this fails; the engine re-reads the
    // path and rolls it back with the rest.
    sync(&dir).map_err(|e| ("cannot sync the directory of", e))
}

/// [`replace`] up to the rename: the content is durable, the rename atomic but not yet durable
/// until the returned directory is synced ([`sync`]).
pub(super) fn replace_unsynced(
    target: &Path,
    bytes: &[u8],
    keep: Option<&Metadata>,
) -> Result<PathBuf, (&'static str, io::Error)> {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        let e = io::Error::new(io::ErrorKind::InvalidInput, "no parent directory");
        return Err(("cannot write", e));
    };
    // A bare file name (`--db rewind.db`) lives in the current directory.
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let tmp = temp_path(dir, &name.to_string_lossy());
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| ("cannot create temp file for", e))?;
    if let Err(e) = fill_and_rename(file, &tmp, target, bytes, keep) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(dir.to_path_buf())
}

/// Sync a directory whose entries a write or removal changed (the `dirsync` fault point).
pub(super) fn sync(dir: &Path) -> io::Result<()> {
    fault::at("dirsync").and_then(|()| sync_dir(dir))
}

fn fill_and_rename(
    mut file: File,
    tmp: &Path,
    target: &Path,
    bytes: &[u8],
    keep: Option<&Metadata>,
) -> Result<(), (&'static str, io::Error)> {
    fault::at("write")
        .and_then(|()| file.write_all(bytes))
        .map_err(|e| ("cannot write", e))?;
    if let Some(meta) = keep {
        copy_mode(&file, meta).map_err(|e| ("cannot set the mode of", e))?;
    }
    fault::at("fsync")
        .and_then(|()| file.sync_all())
        .map_err(|e| ("cannot flush", e))?;
    drop(file);
    fault::at("rename")
        .and_then(|()| fs::rename(tmp, target))
        .map_err(|e| ("cannot replace", e))
}

/// Remove the temp files a crash left beside `target` (ours only: `.<name>.rewind-*.tmp`).
/// Returns how many were removed.
pub(super) fn sweep_temp_files(target: &Path) -> std::io::Result<usize> {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name().and_then(|n| n.to_str()))
    else {
        return Ok(0);
    };
    let mut end = name.len().min(NAME_KEEP);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let prefix = format!(".{}.rewind-", &name[..end]);
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        if file.starts_with(&prefix) && file.ends_with(".tmp") && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// `.<name>.rewind-<uuid>.tmp`: hidden, recognisable as ours, unique without coordination.
fn temp_path(dir: &Path, name: &str) -> PathBuf {
    let mut end = name.len().min(NAME_KEEP);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let id = uuid::Uuid::new_v4().simple();
    dir.join(format!(".{}.rewind-{id}.tmp", &name[..end]))
}

#[cfg(unix)]
fn copy_mode(file: &File, meta: &Metadata) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // Only the permission bits: the type bits of st_mode mean nothing to chmod.
    file.set_permissions(fs::Permissions::from_mode(
        meta.permissions().mode() & 0o7777,
    ))
}

#[cfg(not(unix))]
fn copy_mode(file: &File, meta: &Metadata) -> io::Result<()> {
    file.set_permissions(meta.permissions())
}

/// Make a directory's entries (a rename, a new file, a removal) durable.
#[cfg(unix)]
pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir).and_then(|d| d.sync_all()) {
        // Some file systems cannot fsync a directory; the rename is still atomic there.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
            ) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// Directories cannot be opened for syncing here; renames are durable on their own.
#[cfg(not(unix))]
pub(super) fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Test-only fault injection (feature `crash-hook`): `REWIND_TEST_FAIL=STEP:N` makes the Nth
/// occurrence of STEP (`write`, `fsync`, `rename`, `dirsync`) fail with an I/O error.
#[cfg(feature = "crash-hook")]
mod fault {
    use std::sync::atomic::{AtomicU64, Ordering};

    static SEEN: AtomicU64 = AtomicU64::new(0);

    pub(super) fn at(step: &str) -> std::io::Result<()> {
        let Ok(spec) = std::env::var("REWIND_TEST_FAIL") else {
            return Ok(());
        };
        let Some((which, n)) = spec.split_once(':') else {
            return Ok(());
        };
        if which != step {
            return Ok(());
        }
        let seen = SEEN.fetch_add(1, Ordering::SeqCst) + 1;
        if n.parse::<u64>().ok() == Some(seen) {
            return Err(std::io::Error::other(format!("injected {step} failure")));
        }
        Ok(())
    }
}

#[cfg(not(feature = "crash-hook"))]
mod fault {
    #[inline]
    pub(super) fn at(_: &str) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_failed_rename_removes_the_temp_file() {
        // The workspace refuses a directory target before getting here; only a race could
        // make the rename fail, so it is provoked directly.
        let dir = tempfile::TempDir::new().expect("temp dir");
        let target = dir.path().join("d");
        fs::create_dir(&target).expect("mkdir");
        fs::write(target.join("inner"), b"keep").expect("write");
        let (what, _) = replace(&target, b"x", None).expect_err("rename over a directory");
        assert_eq!(what, "cannot replace");
        assert_eq!(entries(dir.path()), ["d"]);
        assert_eq!(fs::read(target.join("inner")).expect("read"), b"keep");
    }

    #[test]
    fn temp_names_are_hidden_bounded_and_unique() {
        let dir = Path::new("/w");
        let long = "é".repeat(200);
        let a = temp_path(dir, &long);
        let b = temp_path(dir, &long);
        assert_ne!(a, b);
        let name = a.file_name().expect("name").to_string_lossy().into_owned();
        assert!(name.starts_with(".é") && name.ends_with(".tmp"), "{name}");
        assert!(name.len() <= 255, "{}", name.len());
        assert!(
            temp_path(dir, "a.txt")
                .to_string_lossy()
                .starts_with("/w/.a.txt.rewind-")
        );
    }
}
