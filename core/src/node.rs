//! What a path holds, as one byte string: a regular file's bytes as they are; a directory or a
//! symbolic link as a short tagged form no ordinary file starts with. A path's state is then
//! still one content hash everywhere the engine compares, journals and stores states (plans,
//! operations, journals, recovery), and a type change (file ↔ directory ↔ link) is a change of
//! hash like any other: the kind rides in the stored bytes, so a crash mid-apply leaves
//! `recover` everything it needs to put a directory or a link back.

use crate::hash::ContentHash;
use crate::model::{FileVersion, NodeKind};

/// The tag every non-file form starts with: a NUL, a byte that is never UTF-8, a name, a NUL.
/// A regular file that starts with these 14 bytes would be taken for a directory or a link on
/// restore; no text file can, and a binary one would have to carry them by design.
const TAG: &[u8; 14] = b"\0\xffrewind-node\0";

/// One path's content, whatever its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A regular file's bytes.
    File(Vec<u8>),
    /// A directory (its entries are paths of their own).
    Dir,
    /// A symbolic link, by its target as the host spells it (not followed).
    Symlink(Vec<u8>),
}

impl Node {
    /// Its kind.
    pub fn kind(&self) -> NodeKind {
        match self {
            Self::File(_) => NodeKind::File,
            Self::Dir => NodeKind::Directory,
            Self::Symlink(_) => NodeKind::Symlink,
        }
    }

    /// The byte form stored and hashed.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Self::File(b) => b.clone(),
            Self::Dir => [TAG.as_slice(), b"d"].concat(),
            Self::Symlink(t) => [TAG.as_slice(), b"l", t].concat(),
        }
    }

    /// The node a stored byte form stands for.
    pub fn decode(bytes: Vec<u8>) -> Self {
        match bytes.strip_prefix(TAG.as_slice()) {
            Some(b"d") => Self::Dir,
            Some([b'l', target @ ..]) => Self::Symlink(target.to_vec()),
            _ => Self::File(bytes),
        }
    }

    /// The hash of its byte form.
    pub fn hash(&self) -> ContentHash {
        match self {
            Self::File(b) => ContentHash::of(b),
            other => ContentHash::of(&other.encode()),
        }
    }

    /// Whether it is a directory.
    pub fn is_dir(&self) -> bool {
        matches!(self, Self::Dir)
    }
}

/// The recorded version of `bytes` (a node's byte form, hashed as `hash`) with `mode`: a
/// directory's size is 0 and a link's that of its target; a link has no mode of its own.
pub fn version_of(hash: ContentHash, bytes: &[u8], mode: Option<u32>) -> FileVersion {
    let (kind, size, mode) = match bytes.strip_prefix(TAG.as_slice()) {
        Some(b"d") => (NodeKind::Directory, 0, mode),
        Some([b'l', target @ ..]) => (NodeKind::Symlink, target.len() as u64, None),
        _ => (NodeKind::File, bytes.len() as u64, mode),
    };
    FileVersion {
        hash,
        size,
        mode,
        kind,
    }
}

/// The kind of a node's byte form, without copying it.
pub fn kind_of(bytes: &[u8]) -> NodeKind {
    match bytes.strip_prefix(TAG.as_slice()) {
        Some(b"d") => NodeKind::Directory,
        Some([b'l', ..]) => NodeKind::Symlink,
        _ => NodeKind::File,
    }
}

/// The hash every directory has.
pub fn dir_hash() -> ContentHash {
    Node::Dir.hash()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_round_trip_and_never_collide_with_text() {
        for n in [
            Node::File(b"d".to_vec()),
            Node::File(Vec::new()),
            Node::Dir,
            Node::Symlink(b"../a.txt".to_vec()),
        ] {
            assert_eq!(Node::decode(n.encode()), n);
        }
        assert_ne!(Node::Symlink(b"a".to_vec()).hash(), ContentHash::of(b"a"));
        assert_ne!(dir_hash(), ContentHash::of(b""));
        assert!(std::str::from_utf8(&Node::Dir.encode()).is_err());
    }
}
