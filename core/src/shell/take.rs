//! Taking a snapshot: turn the host's listing into a manifest, reading only the files whose stat
//! data changed since the manifest used as the stat cache, or whose last read was racy.

use super::manifest::{Entry, Manifest, State, Untracked};
use super::{Error, FLUSH_BYTES, Progress};
use crate::hash::ContentHash;
use crate::node::{Node, version_of};
use crate::path::WorkPath;
use crate::ports::{EntryKind, ScanEntry, Stat, Workspace};
use std::collections::BTreeSet;

/// A file modified this close to the start of the walk that read it may have changed again
/// within the same timestamp: it is read again next time whatever its stat data says. Two
/// seconds covers file systems with coarse times (FAT: 2 s; HFS+, many network mounts: 1 s);
/// where every time is in whole seconds it is the only safe window, and where times are
/// finer it costs a re-read of files touched in the last two seconds only.
pub(crate) const RACY_NS: i64 = 2_000_000_000;

/// Content read this snapshot: stored unless the store has it.
#[derive(Debug)]
pub(crate) struct Fresh {
    /// The first path it was read from.
    pub(crate) path: WorkPath,
    pub(crate) hash: ContentHash,
    pub(crate) bytes: Vec<u8>,
}

/// A snapshot taken, before it is compared with anything.
#[derive(Debug, Default)]
pub(crate) struct Taken {
    pub(crate) manifest: Manifest,
    /// Contents read, by hash (once each).
    pub(crate) fresh: Vec<Fresh>,
    /// Files hashed again.
    pub(crate) reread: u64,
    /// Files whose stat data vouched for them.
    pub(crate) skipped: u64,
    /// Files re-read only because their last read was racy.
    pub(crate) racy: u64,
    seen: BTreeSet<ContentHash>,
    /// Bytes held in `fresh`.
    fresh_bytes: usize,
    /// Contents newly stored by this snapshot (spilled ahead, or in its final batch).
    pub(crate) added: BTreeSet<ContentHash>,
    /// Entries of the walk, in its (sorted) order: the manifest is built from them in one go.
    staged: Vec<(WorkPath, Entry)>,
    staging: bool,
}

/// Whether `stat` is what `cached` recorded: the file looks untouched since.
fn same_stat(cached: &Entry, stat: &Stat) -> bool {
    cached.stat.size == stat.size
        && cached.stat.mtime_ns == stat.mtime_ns
        && cached.stat.ctime_ns == stat.ctime_ns
        && cached.stat.inode == stat.inode
        && cached.stat.mode == stat.mode
}

fn untracked(kind: EntryKind, stat: &Stat, max: u64) -> Option<Untracked> {
    match kind {
        EntryKind::Other => Some(Untracked::Special),
        EntryKind::File if stat.size > max => Some(Untracked::TooLarge),
        EntryKind::File | EntryKind::Symlink | EntryKind::Dir => None,
    }
}

impl Taken {
    fn put(&mut self, path: WorkPath, entry: Entry) {
        match self.staging {
            true => self.staged.push((path, entry)),
            false => {
                self.manifest.entries.insert(path, entry);
            }
        }
    }

    /// The contents read since the last call, to be stored.
    pub(crate) fn take_fresh(&mut self) -> Vec<Fresh> {
        self.fresh_bytes = 0;
        std::mem::take(&mut self.fresh)
    }

    /// How many paths the manifest holds.
    pub(crate) fn len(&self) -> usize {
        self.manifest.entries.len()
    }

    /// Add one walked entry, reading it unless `cache` vouches for it.
    pub(crate) fn add(
        &mut self,
        ws: &mut dyn Workspace,
        entry: ScanEntry,
        cache: Option<&Manifest>,
        max: u64,
    ) -> Result<(), Error> {
        let ScanEntry { path, kind, stat } = entry;
        if let Some(why) = untracked(kind, &stat, max) {
            let state = State::Untracked(why);
            self.put(path, Entry { state, stat });
            return Ok(());
        }
        if kind == EntryKind::Dir {
            // A directory holds no bytes: its version is its mode, whatever its stat data says.
            let node = Node::Dir;
            self.keep_fresh(&path, &node);
            let version = version_of(node.hash(), &node.encode(), stat.mode.map(|m| m & 0o7777));
            self.put(
                path,
                Entry {
                    state: State::Tracked(version),
                    stat,
                },
            );
            return Ok(());
        }
        let cached = cache.and_then(|c| Some((c.entries.get(&path)?, c.started_ns)));
        // Untouched by its stat data; unless its last read was racy, that is enough.
        if let Some((hit, started)) = cached
            && matches!(hit.state, State::Tracked(_))
            && same_stat(hit, &stat)
        {
            if hit.stat.mtime_ns < started - RACY_NS {
                self.skipped += 1;
                self.put(path, hit.clone());
                return Ok(());
            }
            self.racy += 1;
        }
        self.read(ws, path, stat, kind)
    }

    /// Hold `node`'s byte form to be stored, unless this snapshot already holds it.
    fn keep_fresh(&mut self, path: &WorkPath, node: &Node) -> ContentHash {
        let hash = node.hash();
        if self.seen.insert(hash.clone()) {
            let bytes = node.encode();
            self.fresh_bytes += bytes.len();
            self.fresh.push(Fresh {
                path: path.clone(),
                hash: hash.clone(),
                bytes,
            });
        }
        hash
    }

    fn read(
        &mut self,
        ws: &mut dyn Workspace,
        path: WorkPath,
        stat: Stat,
        kind: EntryKind,
    ) -> Result<(), Error> {
        let node = ws.node(&path).map_err(|e| Error::Read {
            path: path.clone(),
            source: e,
        })?;
        // Gone between the walk and the read: it is simply not there now.
        let Some(node) = node else { return Ok(()) };
        // A host that lists links but cannot tell one apart when reading (the default `node`:
        // a JS host) would have the link's target read as a file and restored as one: a link
        // stays untracked there, as before links were versions.
        if kind == EntryKind::Symlink && !matches!(node, Node::Symlink(_)) {
            let state = State::Untracked(Untracked::Symlink);
            self.put(path, Entry { state, stat });
            return Ok(());
        }
        self.reread += 1;
        let hash = self.keep_fresh(&path, &node);
        let version = version_of(hash, &node.encode(), stat.mode.map(|m| m & 0o7777));
        let state = State::Tracked(version);
        self.put(path, Entry { state, stat });
        Ok(())
    }
}

/// Build the manifest of `listing` (already validated entries) and of the tracked paths the
/// walk no longer lists but that still exist (ignored since, yet tracked).
pub(crate) fn take(
    ws: &mut dyn Workspace,
    (entries, started_ns): (Vec<ScanEntry>, i64),
    cache: Option<&Manifest>,
    max: u64,
    progress: &mut dyn FnMut(Progress),
    spill: &mut dyn FnMut(&mut Taken) -> Result<(), Error>,
) -> Result<Taken, Error> {
    let mut taken = Taken {
        staging: true,
        ..Taken::default()
    };
    taken.manifest.started_ns = started_ns;
    let total = entries.len() as u64;
    for (i, entry) in entries.into_iter().enumerate() {
        taken.add(ws, entry, cache, max)?;
        if taken.fresh_bytes >= FLUSH_BYTES {
            spill(&mut taken)?;
        }
        if i % 256 == 255 {
            progress(Progress {
                done: i as u64 + 1,
                total,
                reread: taken.reread,
            });
        }
    }
    // Built from sorted input at once, not entry by entry.
    let staged = std::mem::take(&mut taken.staged);
    taken.manifest.entries = staged.into_iter().collect();
    taken.staging = false;
    Ok(taken)
}
