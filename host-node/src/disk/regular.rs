//! Reading a file that must be a regular one, without ever blocking on what it turns out to be.
//!
//! A path checked with `lstat` can be swapped for a FIFO before it is opened, and opening a FIFO
//! for reading blocks until a writer comes (reading `/dev/zero` never ends). So the file is
//! opened with `O_NONBLOCK` (which returns at once for a FIFO and changes nothing for a regular
//! file), then `fstat`ed: only a regular file is read, and never more than the caller's cap.

use std::fs::{File, Metadata};
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::path::Path;

/// What a bounded read found.
#[derive(Debug)]
pub enum Bounded {
    /// The whole file (or, from [`read_tail`], its last `cap` bytes), and the size it has.
    Bytes { bytes: Vec<u8>, size: u64 },
    /// A regular file larger than the cap: not read (see [`read_tail`] for the tail instead).
    TooLarge(u64),
    /// Not a regular file (a FIFO, a device, a socket, a directory): not read. Says what it is.
    NotRegular(&'static str),
}

/// What a file that is not regular is, in words.
pub fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_symlink() {
        return "a symlink";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Open `path` for reading without blocking; `follow`: whether a symlink as the last component
/// is followed (else opening it fails with `ELOOP`).
#[cfg(unix)]
fn open(path: &Path, follow: bool) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(io::Error::from)?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open(path: &Path, _follow: bool) -> io::Result<File> {
    File::open(path)
}

/// The open file and its metadata when it is regular, else what it is.
fn open_regular(path: &Path, follow: bool) -> io::Result<Result<(File, Metadata), &'static str>> {
    let file = open(path, follow)?;
    let meta = file.metadata()?;
    Ok(if meta.is_file() {
        Ok((file, meta))
    } else {
        Err(kind_of(&meta))
    })
}

/// Read up to `cap` bytes from where `file` stands; more than that is [`Bounded::TooLarge`]
/// (a file can grow while it is read, and some report size 0 and stream, like `/proc`'s).
fn read_capped(file: File, size: u64, cap: u64) -> io::Result<Bounded> {
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(cap)).unwrap_or(0));
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Ok(Bounded::TooLarge(size.max(bytes.len() as u64)));
    }
    Ok(Bounded::Bytes { bytes, size })
}

/// The whole of the regular file at `path`, if it holds at most `cap` bytes.
pub fn read_at_most(path: &Path, cap: u64, follow: bool) -> io::Result<Bounded> {
    let (file, meta) = match open_regular(path, follow)? {
        Ok(found) => found,
        Err(what) => return Ok(Bounded::NotRegular(what)),
    };
    if meta.len() > cap {
        return Ok(Bounded::TooLarge(meta.len()));
    }
    read_capped(file, meta.len(), cap)
}

/// The last `cap` bytes of the regular file at `path` (all of it when smaller): for logs and
/// transcripts, whose newest part is at the end.
pub fn read_tail(path: &Path, cap: u64, follow: bool) -> io::Result<Bounded> {
    let (mut file, meta) = match open_regular(path, follow)? {
        Ok(found) => found,
        Err(what) => return Ok(Bounded::NotRegular(what)),
    };
    let size = meta.len();
    if size > cap {
        file.seek(SeekFrom::Start(size - cap))?;
    }
    match read_capped(file, size, cap)? {
        // Grew past the cap while read: what was read is still its tail as of the open.
        Bounded::TooLarge(_) => read_tail_again(path, cap, follow),
        found => Ok(found),
    }
}

/// A file that grew while its tail was read: once more, then whatever the cap holds.
fn read_tail_again(path: &Path, cap: u64, follow: bool) -> io::Result<Bounded> {
    let (mut file, meta) = match open_regular(path, follow)? {
        Ok(found) => found,
        Err(what) => return Ok(Bounded::NotRegular(what)),
    };
    file.seek(SeekFrom::Start(meta.len().saturating_sub(cap)))?;
    let mut bytes = Vec::new();
    file.take(cap).read_to_end(&mut bytes)?;
    Ok(Bounded::Bytes {
        bytes,
        size: meta.len(),
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_not_read_and_caps_hold() {
        let dir = tempfile::tempdir().expect("tmp");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        // Opening a FIFO that has no writer returns at once (O_NONBLOCK), and it is not read.
        assert!(matches!(
            read_at_most(&fifo, 10, true).expect("open"),
            Bounded::NotRegular("a FIFO")
        ));
        assert!(matches!(
            read_tail(Path::new("/dev/zero"), 10, true).expect("open"),
            Bounded::NotRegular("a device")
        ));
        assert!(matches!(
            read_at_most(dir.path(), 10, true).expect("open"),
            Bounded::NotRegular("a directory")
        ));
        let file = dir.path().join("f");
        std::fs::write(&file, b"0123456789").expect("write");
        assert!(matches!(
            read_at_most(&file, 9, true).expect("read"),
            Bounded::TooLarge(10)
        ));
        match read_tail(&file, 4, true).expect("read") {
            Bounded::Bytes { bytes, size } => {
                assert_eq!((bytes.as_slice(), size), (&b"6789"[..], 10));
            }
            other => panic!("{other:?}"),
        }
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).expect("link");
        assert!(read_at_most(&link, 100, false).is_err(), "not followed");
        assert!(matches!(
            read_at_most(&link, 100, true).expect("followed"),
            Bounded::Bytes { .. }
        ));
    }
}
