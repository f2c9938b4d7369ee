//! Directories and symbolic links as workspace entries of their own: what a path is without
//! following its last segment, and the steps a rewind takes on them (make a directory with its
//! mode, remove an empty one, list one, make a link). The directories on the way are found by
//! the same segment walk as every file operation, so none of this reaches outside the root or
//! into the store.

use super::walk::Lookup;
use super::{DiskWorkspace, invalid, io_error};
use rewind_core::HostError;
use rewind_core::node::Node;
use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use std::fs;
use std::io;
use std::path::PathBuf;

/// Where a path's last segment sits: `None` when a directory on the way is missing or is not
/// a directory (then nothing can be there).
enum Place {
    At(PathBuf),
    Nowhere,
}

impl DiskWorkspace {
    fn place(&mut self, path: &WorkPath, create: bool) -> Result<Place, HostError> {
        let segments: Vec<&str> = path.segments().collect();
        self.check_segments(path, segments.iter().copied())?;
        let (last, dirs) = segments
            .split_last()
            .ok_or_else(|| invalid(format!("refusing {path}: the path is empty")))?;
        let dir = match dirs.is_empty() {
            true => self.root.clone(),
            false => {
                let parent =
                    WorkPath::parse(&dirs.join("/")).map_err(|e| invalid(e.to_string()))?;
                if create {
                    self.make_dir_at(&parent, None)?;
                }
                // The directory the entry sits in, found by the walk every file operation
                // takes (links on the way inside the root followed, the store refused); the
                // entry itself is not followed.
                match self.walk(&parent, None)? {
                    Lookup::Entry { entry, meta } if meta.is_dir() => entry,
                    Lookup::Link { real, meta, .. } if meta.is_dir() => real,
                    _ => return Ok(Place::Nowhere),
                }
            }
        };
        let entry = dir.join(last);
        if self.protected.iter().any(|p| entry.starts_with(p)) {
            return Err(invalid(format!(
                "refusing {path}: it is the store's own directory"
            )));
        }
        Ok(Place::At(entry))
    }

    fn lstat(&mut self, path: &WorkPath) -> Result<Option<(PathBuf, fs::Metadata)>, HostError> {
        let Place::At(entry) = self.place(path, false)? else {
            return Ok(None);
        };
        match fs::symlink_metadata(&entry) {
            Ok(meta) => Ok(Some((entry, meta))),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(io_error("cannot look up", path, &entry, e)),
        }
    }

    pub(super) fn node_of(&mut self, path: &WorkPath) -> Result<Option<Node>, HostError> {
        let Some((entry, meta)) = self.lstat(path)? else {
            return Ok(None);
        };
        let t = meta.file_type();
        if t.is_symlink() {
            let target = fs::read_link(&entry)
                .map_err(|e| io_error("cannot read symlink", path, &entry, e))?;
            return Ok(Some(Node::Symlink(os_bytes(target.into_os_string()))));
        }
        if t.is_dir() {
            return Ok(Some(Node::Dir));
        }
        Ok(self.read(path)?.map(Node::File))
    }

    /// Remove a symbolic link itself (never what it leads to); `false` when `path` is no link.
    pub(super) fn unlink(&mut self, path: &WorkPath) -> Result<bool, HostError> {
        let Some((entry, meta)) = self.lstat(path)? else {
            return Ok(false);
        };
        if !meta.file_type().is_symlink() {
            return Ok(false);
        }
        fs::remove_file(&entry).map_err(|e| io_error("cannot remove", path, &entry, e))?;
        self.note_changed(&entry);
        Ok(true)
    }

    fn note_changed(&mut self, entry: &std::path::Path) {
        if let Some(dir) = entry.parent() {
            self.unsynced.insert(dir.to_path_buf());
        }
    }

    pub(super) fn make_dir_at(
        &mut self,
        path: &WorkPath,
        mode: Option<u32>,
    ) -> Result<(), HostError> {
        let Place::At(entry) = self.place(path, true)? else {
            return Err(HostError::io(format!(
                "cannot create directory {path}: a file stands where a directory on the way should be"
            )));
        };
        match fs::create_dir(&entry) {
            Ok(()) => self.note_changed(&entry),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && entry.is_dir() => {}
            Err(e) => return Err(io_error("cannot create directory", path, &entry, e)),
        }
        match mode {
            Some(m) => self.set_mode_of(path, m),
            None => Ok(()),
        }
    }

    pub(super) fn remove_dir_at(&mut self, path: &WorkPath) -> Result<(), HostError> {
        let Some((entry, meta)) = self.lstat(path)? else {
            return Ok(());
        };
        if !meta.is_dir() {
            return Err(HostError::io(format!(
                "cannot remove directory {path}: it is not one"
            )));
        }
        // `remove_dir` refuses a directory that holds anything: never anyone's files.
        fs::remove_dir(&entry).map_err(|e| io_error("cannot remove directory", path, &entry, e))?;
        self.note_changed(&entry);
        Ok(())
    }

    pub(super) fn entries_of(&mut self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        let Some((entry, meta)) = self.lstat(path)? else {
            return Ok(Vec::new());
        };
        if !meta.is_dir() {
            return Ok(Vec::new());
        }
        let list = fs::read_dir(&entry).map_err(|e| io_error("cannot list", path, &entry, e))?;
        let mut names = Vec::new();
        for item in list {
            let item = item.map_err(|e| io_error("cannot list", path, &entry, e))?;
            names.push(item.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    pub(super) fn make_symlink_at(
        &mut self,
        path: &WorkPath,
        target: &[u8],
    ) -> Result<(), HostError> {
        let Place::At(entry) = self.place(path, true)? else {
            return Err(HostError::io(format!(
                "cannot make link {path}: a file stands where a directory on the way should be"
            )));
        };
        symlink(target, &entry).map_err(|e| io_error("cannot make symlink", path, &entry, e))?;
        self.note_changed(&entry);
        Ok(())
    }
}

#[cfg(unix)]
fn os_bytes(s: std::ffi::OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStringExt;
    s.into_vec()
}

#[cfg(not(unix))]
fn os_bytes(s: std::ffi::OsString) -> Vec<u8> {
    s.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn symlink(target: &[u8], at: &std::path::Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), at)
}

#[cfg(not(unix))]
fn symlink(_target: &[u8], _at: &std::path::Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "symbolic links need a unix host",
    ))
}
