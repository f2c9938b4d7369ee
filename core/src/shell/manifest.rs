//! A workspace snapshot's manifest: every tracked path with its version and the stat data that
//! lets the next snapshot skip it. Stored as a blob, content-addressed like everything else, in
//! a compact binary form: a full list now and then, otherwise only the entries that changed
//! since the manifest before (a delta naming its base), so a snapshot of a big tree in which
//! three files changed stores three entries.

use crate::hash::ContentHash;
use crate::model::FileVersion;
use crate::path::WorkPath;
use crate::ports::Stat;
use std::collections::BTreeMap;

pub(crate) const MAGIC: &[u8; 8] = b"RWNDMAN1";
/// Deltas in a row before a full list is written again: a read follows at most this many.
pub(crate) const MAX_DEPTH: u32 = 32;

/// Why a listed path holds no version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untracked {
    /// Larger than the configured maximum file size.
    TooLarge,
    /// A symbolic link in a manifest written before links were tracked (tag 3); new
    /// snapshots store a link's target as a version of its path.
    Symlink,
    /// A socket, fifo or device.
    Special,
}

impl Untracked {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TooLarge => "too_large",
            Self::Symlink => "symlink",
            Self::Special => "special",
        }
    }
}

/// A path's state in a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Its content is stored.
    Tracked(FileVersion),
    /// Present but not stored, with why.
    Untracked(Untracked),
}

/// One path of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// What it holds.
    pub state: State,
    /// The stat data it held then.
    pub stat: Stat,
}

/// Every path a snapshot saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// By path.
    pub entries: BTreeMap<WorkPath, Entry>,
    /// When the walk that made it began (host clock, nanoseconds): the racy-file line.
    pub started_ns: i64,
}

/// A manifest as stored: a full list, or the changes against a base manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stored {
    pub(crate) base: Option<(ContentHash, u32)>,
    pub(crate) started_ns: i64,
    /// `None` = removed since the base.
    pub(crate) entries: Vec<(WorkPath, Option<Entry>)>,
}

/// Why stored manifest bytes could not be read.
#[derive(Debug, thiserror::Error)]
#[error("manifest is malformed: {0}")]
pub struct Malformed(pub(crate) &'static str);

impl Manifest {
    /// The stored form of `self`, given the manifest it follows: a delta when one is short,
    /// else the full list.
    pub(crate) fn stored(&self, prev: Option<(&Self, &ContentHash, u32)>) -> Stored {
        let full = || Stored {
            base: None,
            started_ns: self.started_ns,
            entries: self
                .entries
                .iter()
                .map(|(p, e)| (p.clone(), Some(e.clone())))
                .collect(),
        };
        let Some((prev, hash, depth)) = prev.filter(|(_, _, d)| *d < MAX_DEPTH) else {
            return full();
        };
        let mut entries: Vec<(WorkPath, Option<Entry>)> = self
            .entries
            .iter()
            .filter(|(p, e)| prev.entries.get(*p) != Some(e))
            .map(|(p, e)| (p.clone(), Some(e.clone())))
            .collect();
        entries.extend(
            prev.entries
                .keys()
                .filter(|p| !self.entries.contains_key(*p))
                .map(|p| (p.clone(), None)),
        );
        // A delta that rewrites most of the tree buys nothing over the list itself.
        if entries.len() * 2 > self.entries.len().max(1) {
            return full();
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Stored {
            base: Some((hash.clone(), depth + 1)),
            started_ns: self.started_ns,
            entries,
        }
    }

    /// Apply a delta on top of `self` (its base).
    pub(crate) fn apply(&mut self, delta: Stored) {
        self.started_ns = delta.started_ns;
        if self.entries.is_empty() {
            // A full list: built in one go (its entries are sorted).
            self.entries = delta
                .entries
                .into_iter()
                .filter_map(|(p, e)| Some((p, e?)))
                .collect();
            return;
        }
        for (path, entry) in delta.entries {
            match entry {
                Some(e) => self.entries.insert(path, e),
                None => self.entries.remove(&path),
            };
        }
    }

    /// Every content hash the manifest references (a directory's too: its tagged form is a
    /// blob every restore of a directory reads).
    pub fn hashes(&self) -> impl Iterator<Item = &ContentHash> {
        self.entries.values().filter_map(|e| match &e.state {
            State::Tracked(v) => Some(&v.hash),
            State::Untracked(_) => None,
        })
    }

    /// How many regular files it tracks (directories and links not counted).
    pub(crate) fn file_count(&self) -> u64 {
        self.entries
            .values()
            .filter(|e| matches!(&e.state, State::Tracked(v) if v.kind.is_file()))
            .count() as u64
    }

    /// The bytes of every tracked file (directories count 0, links their target's length).
    pub(crate) fn tracked_bytes(&self) -> u64 {
        self.entries
            .values()
            .filter_map(|e| match &e.state {
                State::Tracked(v) => Some(v.size),
                State::Untracked(_) => None,
            })
            .sum()
    }
}

impl Stored {
    /// How many deltas lead down to a full list (0 for a full list).
    pub(crate) fn depth(&self) -> u32 {
        self.base.as_ref().map_or(0, |(_, d)| *d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(hash: &[u8], mtime: i64) -> Entry {
        Entry {
            state: State::Tracked(FileVersion {
                hash: ContentHash::of(hash),
                size: hash.len() as u64,
                mode: Some(0o644),
                kind: crate::model::NodeKind::File,
            }),
            stat: Stat {
                size: hash.len() as u64,
                mtime_ns: mtime,
                ctime_ns: Some(mtime),
                inode: Some(7),
                mode: Some(0o644),
            },
        }
    }

    fn manifest(files: &[(&str, &[u8], i64)]) -> Manifest {
        Manifest {
            entries: files
                .iter()
                .map(|(p, b, t)| (WorkPath::parse(p).expect("valid"), entry(b, *t)))
                .collect(),
            started_ns: 99,
        }
    }

    #[test]
    fn full_and_delta_round_trip() {
        let files: Vec<(String, Vec<u8>, i64)> = (0..10)
            .map(|i| (format!("src/f{i}.rs"), vec![i as u8; 3], -5 + i64::from(i)))
            .collect();
        let list: Vec<(&str, &[u8], i64)> = files
            .iter()
            .map(|(p, b, t)| (p.as_str(), b.as_slice(), *t))
            .collect();
        let old = manifest(&list);
        let stored = old.stored(None);
        let decoded = Stored::decode(&stored.encode()).expect("decodes");
        assert_eq!(decoded, stored);
        let mut rebuilt = Manifest::default();
        rebuilt.apply(decoded);
        assert_eq!(rebuilt, old);

        let mut new = old.clone();
        new.entries
            .remove(&WorkPath::parse("src/f3.rs").expect("valid"));
        new.entries.insert(
            WorkPath::parse("src/f1.rs").expect("valid"),
            entry(b"new", 5),
        );
        new.started_ns = 200;
        let base = ContentHash::of(b"base");
        let delta = new.stored(Some((&old, &base, 0)));
        assert_eq!(delta.entries.len(), 2, "only what changed is stored");
        assert_eq!(delta.depth(), 1);
        let mut again = old;
        again.apply(Stored::decode(&delta.encode()).expect("decodes"));
        assert_eq!(again, new);
    }

    #[test]
    fn long_chains_and_big_deltas_store_the_full_list() {
        let old = manifest(&[("a", b"1", 1), ("b", b"2", 2)]);
        let base = ContentHash::of(b"base");
        let new = manifest(&[("a", b"x", 1), ("b", b"y", 2)]);
        assert_eq!(new.stored(Some((&old, &base, 0))).depth(), 0);
        let three = manifest(&[
            ("a", b"1", 1),
            ("b", b"2", 2),
            ("c", b"3", 3),
            ("d", b"4", 4),
        ]);
        let mut four = three.clone();
        four.started_ns = 5;
        assert_eq!(four.stored(Some((&three, &base, MAX_DEPTH))).depth(), 0);
        assert_eq!(four.stored(Some((&three, &base, 3))).depth(), 4);
    }

    #[test]
    fn directories_and_links_round_trip_and_old_tags_still_load() {
        use crate::model::NodeKind;
        use crate::node::Node;
        let mut m = manifest(&[("a", b"1", 1)]);
        let link = Node::Symlink(b"a".to_vec());
        for (p, node, mode) in [("d", Node::Dir, Some(0o750)), ("l", link, None)] {
            let bytes = node.encode();
            let v = crate::node::version_of(node.hash(), &bytes, mode);
            let mut e = entry(b"x", 2);
            e.state = State::Tracked(v);
            m.entries.insert(WorkPath::parse(p).expect("valid"), e);
        }
        let mut back = Manifest::default();
        back.apply(Stored::decode(&m.stored(None).encode()).expect("decodes"));
        assert_eq!(back, m);
        let kinds: Vec<NodeKind> = back
            .entries
            .values()
            .filter_map(|e| match &e.state {
                State::Tracked(v) => Some(v.kind),
                State::Untracked(_) => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [NodeKind::File, NodeKind::Directory, NodeKind::Symlink]
        );
        assert_eq!(back.file_count(), 1);
        // A manifest written before links were tracked (tag 3) still loads.
        let mut old = manifest(&[("a", b"1", 1)]);
        old.entries
            .get_mut(&WorkPath::parse("a").expect("valid"))
            .expect("a")
            .state = State::Untracked(Untracked::Symlink);
        let bytes = old.stored(None).encode();
        assert!(bytes.contains(&3));
        assert_eq!(Stored::decode(&bytes).expect("decodes").entries.len(), 1);
    }

    #[test]
    fn malformed_bytes_are_an_error_not_a_panic() {
        let good = manifest(&[("a", b"1", 1)]).stored(None).encode();
        for cut in 0..good.len() {
            assert!(Stored::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        assert!(Stored::decode(b"RWNDMAN1\x07").is_err());
    }
}
