//! The manifest's byte form: the magic `RWNDMAN1`, a form byte (0 full list, 1 delta + base
//! hash + depth), the walk's start time, then the entries sorted by path, each a path, a tag
//! (0 removed, 1 file + hash + size + mode, 2 too large, 3 symlink not stored (manifests
//! written before links were tracked), 4 special, 5 directory + mode, 6 symlink + hash of its
//! tagged target + target length) and its stat data. Tags 5 and 6 were added with directories:
//! older manifests hold none and still load unchanged. Integers are LEB128 varints, times little-endian `i64`, optional values a presence
//! byte first, hashes their 32 raw bytes. Binary because a snapshot of a big tree decodes the
//! previous manifest every time: there is nothing to parse but lengths.

use super::manifest::{Entry, MAGIC, Malformed, State, Stored, Untracked};
use crate::hash::ContentHash;
use crate::model::{FileVersion, NodeKind};
use crate::node::dir_hash;
use crate::path::WorkPath;
use crate::ports::Stat;

impl Stored {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.entries.len() * 96);
        out.extend_from_slice(MAGIC);
        match &self.base {
            None => out.push(0),
            Some((hash, depth)) => {
                out.push(1);
                put_hash(&mut out, hash);
                put_var(&mut out, u64::from(*depth));
            }
        }
        out.extend_from_slice(&self.started_ns.to_le_bytes());
        put_var(&mut out, self.entries.len() as u64);
        for (path, entry) in &self.entries {
            put_var(&mut out, path.as_str().len() as u64);
            out.extend_from_slice(path.as_str().as_bytes());
            let Some(e) = entry else {
                out.push(0);
                continue;
            };
            match &e.state {
                State::Tracked(v) if v.kind == NodeKind::Directory => {
                    out.push(5);
                    put_opt(&mut out, v.mode.map(u64::from));
                }
                State::Tracked(v) if v.kind == NodeKind::Symlink => {
                    out.push(6);
                    put_hash(&mut out, &v.hash);
                    put_var(&mut out, v.size);
                }
                State::Tracked(v) => {
                    out.push(1);
                    put_hash(&mut out, &v.hash);
                    put_var(&mut out, v.size);
                    put_opt(&mut out, v.mode.map(u64::from));
                }
                State::Untracked(Untracked::TooLarge) => out.push(2),
                State::Untracked(Untracked::Symlink) => out.push(3),
                State::Untracked(Untracked::Special) => out.push(4),
            }
            let s = &e.stat;
            put_var(&mut out, s.size);
            out.extend_from_slice(&s.mtime_ns.to_le_bytes());
            put_opt(&mut out, s.ctime_ns.map(|t| t as u64));
            put_opt(&mut out, s.inode);
            put_opt(&mut out, s.mode.map(u64::from));
        }
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, Malformed> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(Malformed("not a manifest"));
        }
        let base = match r.byte()? {
            0 => None,
            1 => Some((
                r.hash()?,
                u32::try_from(r.var()?).map_err(|_| Malformed("depth"))?,
            )),
            _ => return Err(Malformed("unknown form")),
        };
        let started_ns = r.i64()?;
        let count = r.var()?;
        let mut entries = Vec::with_capacity(count.min(1 << 20) as usize);
        for _ in 0..count {
            let len = r.var()? as usize;
            let raw = std::str::from_utf8(r.take(len)?).map_err(|_| Malformed("path"))?;
            let path = WorkPath::parse(raw).map_err(|_| Malformed("path"))?;
            let state = match r.byte()? {
                0 => {
                    entries.push((path, None));
                    continue;
                }
                1 => State::Tracked(FileVersion {
                    hash: r.hash()?,
                    size: r.var()?,
                    mode: r.opt()?.map(|m| m as u32),
                    kind: NodeKind::File,
                }),
                5 => State::Tracked(FileVersion {
                    hash: dir_hash(),
                    size: 0,
                    mode: r.opt()?.map(|m| m as u32),
                    kind: NodeKind::Directory,
                }),
                6 => State::Tracked(FileVersion {
                    hash: r.hash()?,
                    size: r.var()?,
                    mode: None,
                    kind: NodeKind::Symlink,
                }),
                2 => State::Untracked(Untracked::TooLarge),
                3 => State::Untracked(Untracked::Symlink),
                4 => State::Untracked(Untracked::Special),
                _ => return Err(Malformed("unknown entry")),
            };
            let stat = Stat {
                size: r.var()?,
                mtime_ns: r.i64()?,
                ctime_ns: r.opt()?.map(|t| t as i64),
                inode: r.opt()?,
                mode: r.opt()?.map(|m| m as u32),
            };
            entries.push((path, Some(Entry { state, stat })));
        }
        if r.at != bytes.len() {
            return Err(Malformed("trailing bytes"));
        }
        Ok(Self {
            base,
            started_ns,
            entries,
        })
    }
}

fn put_var(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A presence byte, then the value.
fn put_opt(out: &mut Vec<u8>, n: Option<u64>) {
    match n {
        None => out.push(0),
        Some(n) => {
            out.push(1);
            put_var(out, n);
        }
    }
}

fn put_hash(out: &mut Vec<u8>, hash: &ContentHash) {
    let hex = hash.as_str().as_bytes();
    for pair in hex.chunks(2) {
        out.push(nibble(pair[0]) << 4 | nibble(pair[1]));
    }
}

fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        _ => c - b'a' + 10,
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or(Malformed("truncated"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn byte(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }
    fn i64(&mut self) -> Result<i64, Malformed> {
        let raw: [u8; 8] = self
            .take(8)?
            .try_into()
            .map_err(|_| Malformed("truncated"))?;
        Ok(i64::from_le_bytes(raw))
    }
    fn var(&mut self) -> Result<u64, Malformed> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(Malformed("varint"))
    }
    fn opt(&mut self) -> Result<Option<u64>, Malformed> {
        match self.byte()? {
            0 => Ok(None),
            1 => Ok(Some(self.var()?)),
            _ => Err(Malformed("presence byte")),
        }
    }
    fn hash(&mut self) -> Result<ContentHash, Malformed> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let raw = self.take(32)?;
        let mut hex = String::with_capacity(64);
        for b in raw {
            hex.push(HEX[usize::from(b >> 4)] as char);
            hex.push(HEX[usize::from(b & 15)] as char);
        }
        ContentHash::parse(&hex).ok_or(Malformed("hash"))
    }
}
