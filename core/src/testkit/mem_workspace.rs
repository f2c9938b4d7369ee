//! An in-memory workspace: a map from path to bytes, with POSIX-like permission bits (a new
//! file gets `0o644`; replacing a file keeps its mode) and stat data for shell capture: a
//! logical clock moves ten seconds on every change, and a new or replaced file gets a new inode.
//! Directories are explicit, as on a disk: a write makes the missing ones above the file
//! (`0o755`), they stay when their files go, and a walk lists them, so a scenario sees the same
//! directories on every host.

use super::faults::{Fault, FaultOp, Faults};
use crate::error::HostError;
use crate::node::Node;
use crate::path::WorkPath;
use crate::ports::{EntryKind, Listing, Scan, ScanEntry, Stat, Workspace};
use std::collections::BTreeMap;

/// Files in memory, with fault injection.
#[derive(Clone, Debug, Default)]
pub struct MemWorkspace {
    files: BTreeMap<WorkPath, Vec<u8>>,
    /// Every directory (the root aside).
    dirs: std::collections::BTreeSet<WorkPath>,
    /// Files' and directories' permission bits.
    modes: BTreeMap<WorkPath, u32>,
    /// (mtime, ctime, inode) per file.
    stats: BTreeMap<WorkPath, (i64, i64, u64)>,
    clock: i64,
    /// How far the clock moves per change (`TICK_NS` unless a test asks otherwise).
    tick: Option<i64>,
    inodes: u64,
    faults: Faults,
    /// Path prefixes the walk skips (a host's ignore rules); `stat` still answers for them.
    ignored: Vec<String>,
}

/// How far the logical clock moves on every change: far past any racy window.
const TICK_NS: i64 = 10_000_000_000;

/// The mode a new file gets.
const DEFAULT_MODE: u32 = 0o644;

/// The mode a new directory gets.
const DIR_MODE: u32 = 0o755;

/// The directories above `path`, outermost first.
fn ancestors(path: &WorkPath) -> Vec<WorkPath> {
    let segments: Vec<&str> = path.segments().collect();
    (1..segments.len())
        .filter_map(|depth| WorkPath::parse(&segments[..depth].join("/")).ok())
        .collect()
}

impl MemWorkspace {
    /// An empty workspace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Put a file directly (a user edit: no fault counting).
    pub fn put(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.store(&path, bytes.into());
    }

    fn store(&mut self, path: &WorkPath, bytes: Vec<u8>) {
        self.make_parents(path);
        self.modes.entry(path.clone()).or_insert(DEFAULT_MODE);
        self.files.insert(path.clone(), bytes);
        self.stamp(path);
    }

    /// Make the missing directories above `path`.
    fn make_parents(&mut self, path: &WorkPath) {
        for dir in ancestors(path) {
            if self.dirs.insert(dir.clone()) {
                self.modes.insert(dir.clone(), DIR_MODE);
                self.stamp(&dir);
            }
        }
    }

    /// A new stat for `path`: the clock moves, a new inode.
    fn stamp(&mut self, path: &WorkPath) {
        self.clock += self.tick.unwrap_or(TICK_NS);
        self.inodes += 1;
        self.stats
            .insert(path.clone(), (self.clock, self.clock, self.inodes));
    }

    /// Make a directory directly (a person's `mkdir -p`), parents too; an existing one stays.
    pub fn mkdir(&mut self, path: &str) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.make_parents(&path);
        if !self.files.contains_key(&path) && self.dirs.insert(path.clone()) {
            self.modes.insert(path.clone(), DIR_MODE);
            self.stamp(&path);
        }
    }

    /// Remove a directory and everything under it directly (a person's `rm -r`).
    pub fn remove_tree(&mut self, path: &str) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        let under = |p: &WorkPath| p == &path || p.starts_with(&path);
        self.files.retain(|p, _| !under(p));
        self.dirs.retain(|p| !under(p));
        self.modes.retain(|p, _| !under(p));
        self.stats.retain(|p, _| !under(p));
    }

    /// Whether `path` is a directory.
    pub fn is_dir(&self, path: &str) -> bool {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.dirs.contains(&path)
    }

    /// The names `path` holds directly (files and directories).
    fn children(&self, path: &WorkPath) -> Vec<String> {
        let prefix = format!("{path}/");
        let names = self.files.keys().chain(self.dirs.iter());
        let mut out: Vec<String> = names
            .filter_map(|p| p.as_str().strip_prefix(&prefix))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_owned)
            .collect();
        out.sort();
        out
    }

    /// Move the logical clock this far per change instead of ten seconds: with a tick shorter
    /// than the racy window, files look modified right before a snapshot.
    #[must_use]
    pub fn with_tick(mut self, ns: i64) -> Self {
        self.tick = Some(ns);
        self
    }

    /// Make the walk skip `prefix` and every path under it, as a host's ignore rule would;
    /// `Scan::stat` still reports such paths.
    pub fn ignore(&mut self, prefix: &str) {
        self.ignored.push(prefix.to_owned());
    }

    fn is_ignored(&self, path: &WorkPath) -> bool {
        let path = path.as_str();
        self.ignored.iter().any(|p| {
            path.strip_prefix(p.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/') || p.ends_with('/'))
        })
    }

    /// Replace a file's bytes keeping every stat field: a write within the same timestamp
    /// tick as the last one, which only a re-read can see.
    pub fn overwrite_keeping_stat(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.files.insert(path, bytes.into());
    }

    fn touch_ctime(&mut self, path: &WorkPath) {
        self.clock += self.tick.unwrap_or(TICK_NS);
        if let Some(s) = self.stats.get_mut(path) {
            s.1 = self.clock;
        }
    }

    /// Change a file's mode directly (a person's `chmod`); ignored for a missing file.
    pub fn chmod(&mut self, path: &str, mode: u32) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        if self.files.contains_key(&path) || self.dirs.contains(&path) {
            self.touch_ctime(&path);
            self.modes.insert(path, mode);
        }
    }

    /// A file's mode, read directly.
    pub fn mode_of(&self, path: &str) -> Option<u32> {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.modes.get(&path).copied()
    }

    /// Delete a file directly (a user edit).
    pub fn delete(&mut self, path: &str) {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.files.remove(&path);
        self.modes.remove(&path);
        self.stats.remove(&path);
    }

    /// A file's bytes, read directly.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        let path = WorkPath::parse(path).expect("test paths are valid");
        self.files.get(&path).map(Vec::as_slice)
    }

    /// Every file, for whole-workspace comparisons.
    pub fn files(&self) -> &BTreeMap<WorkPath, Vec<u8>> {
        &self.files
    }

    /// Arm a fault.
    pub fn arm(&mut self, fault: Fault) {
        self.faults.arm(fault);
    }

    /// Disarm all faults.
    pub fn clear_faults(&mut self) {
        self.faults.clear();
    }

    /// The fault counters.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    fn check(&mut self, op: FaultOp, path: &WorkPath) -> Result<(), HostError> {
        if self.faults.hit(op) {
            let verb = format!("{op:?}").to_lowercase();
            return Err(HostError::io(format!(
                "injected fault: {verb} of {path} failed"
            )));
        }
        Ok(())
    }
}

impl Workspace for MemWorkspace {
    fn read(&mut self, path: &WorkPath) -> Result<Option<Vec<u8>>, HostError> {
        self.check(FaultOp::Read, path)?;
        Ok(self.files.get(path).cloned())
    }

    fn write(&mut self, path: &WorkPath, bytes: &[u8]) -> Result<(), HostError> {
        self.check(FaultOp::Write, path)?;
        if self.dirs.contains(path) {
            return Err(HostError::io(format!("{path} is a directory")));
        }
        if let Some(file) = ancestors(path)
            .into_iter()
            .find(|d| self.files.contains_key(d))
        {
            return Err(HostError::io(format!("{file} is not a directory")));
        }
        self.store(path, bytes.to_vec());
        Ok(())
    }

    fn remove(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check(FaultOp::Remove, path)?;
        self.files.remove(path);
        self.modes.remove(path);
        self.stats.remove(path);
        Ok(())
    }

    // Modes ride along with reads and writes: they never count as a faultable call.
    fn mode(&mut self, path: &WorkPath) -> Result<Option<u32>, HostError> {
        Ok(self.modes.get(path).copied())
    }

    fn set_mode(&mut self, path: &WorkPath, mode: u32) -> Result<(), HostError> {
        if self.files.contains_key(path) || self.dirs.contains(path) {
            self.touch_ctime(path);
            self.modes.insert(path.clone(), mode);
        }
        Ok(())
    }

    fn node(&mut self, path: &WorkPath) -> Result<Option<Node>, HostError> {
        self.check(FaultOp::Read, path)?;
        if self.dirs.contains(path) {
            return Ok(Some(Node::Dir));
        }
        Ok(self.files.get(path).cloned().map(Node::File))
    }

    fn make_dir(&mut self, path: &WorkPath, mode: Option<u32>) -> Result<(), HostError> {
        self.check(FaultOp::Write, path)?;
        let mut chain = ancestors(path);
        chain.push(path.clone());
        if let Some(file) = chain.iter().find(|d| self.files.contains_key(*d)) {
            return Err(HostError::io(format!("{file} is a file, not a directory")));
        }
        self.mkdir(path.as_str());
        if let Some(mode) = mode {
            self.modes.insert(path.clone(), mode & 0o7777);
        }
        Ok(())
    }

    fn remove_dir(&mut self, path: &WorkPath) -> Result<(), HostError> {
        self.check(FaultOp::Remove, path)?;
        if !self.dirs.contains(path) {
            return Ok(());
        }
        let held = self.children(path);
        if !held.is_empty() {
            return Err(HostError::io(format!(
                "{path} is not empty: it holds {}",
                held.join(", ")
            )));
        }
        self.dirs.remove(path);
        self.modes.remove(path);
        self.stats.remove(path);
        Ok(())
    }

    fn dir_entries(&mut self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        Ok(self.children(path))
    }

    fn scanner(&mut self) -> Option<&mut dyn Scan> {
        Some(self)
    }
}

impl MemWorkspace {
    fn entry(&self, path: &WorkPath) -> Option<ScanEntry> {
        let (kind, size) = match self.files.get(path) {
            Some(bytes) => (EntryKind::File, bytes.len() as u64),
            None if self.dirs.contains(path) => (EntryKind::Dir, 0),
            None => return None,
        };
        let (mtime, ctime, inode) = self.stats.get(path).copied().unwrap_or_default();
        Some(ScanEntry {
            path: path.clone(),
            kind,
            stat: Stat {
                size,
                mtime_ns: mtime,
                ctime_ns: Some(ctime),
                inode: Some(inode),
                mode: self.modes.get(path).copied(),
            },
        })
    }
}

impl Scan for MemWorkspace {
    fn list(&mut self) -> Result<Listing, HostError> {
        let mut paths: Vec<&WorkPath> = self.files.keys().chain(self.dirs.iter()).collect();
        paths.sort();
        let entries = paths
            .into_iter()
            .filter(|p| !self.is_ignored(p))
            .filter_map(|p| self.entry(p))
            .collect();
        self.clock += self.tick.unwrap_or(TICK_NS);
        Ok(Listing {
            entries,
            started_ns: self.clock,
            unlisted: Vec::new(),
        })
    }

    fn stat(&mut self, path: &WorkPath) -> Result<Option<ScanEntry>, HostError> {
        Ok(self.entry(path))
    }
}
