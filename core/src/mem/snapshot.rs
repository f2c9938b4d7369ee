//! The snapshot: a [`MemStore`]'s whole state as one compact byte string, so a host whose
//! storage is asynchronous (a browser) reloads a long session without replaying every batch.
//!
//! Layout (integers little-endian): the magic `RWNDSNAP`, a `u32` format version, the tables,
//! then a 64-bit checksum of everything before it. Strings and byte strings are a `u32` length
//! and the bytes. Tables: the store's counters; each session with its messages (and their
//! boundary flag), turns, checkpoints (and their byte counts, format 3 their turn), operations and (format 2) its
//! latest workspace snapshot row; journals; command facts; blobs. Indexes are not stored: [`decode`] rebuilds them.
//!
//! Binary rather than JSON because a reload is dominated by decoding: there is nothing to
//! escape or parse, message bodies are copied as they are, and blobs are not base64. The
//! checksum (not a cryptographic hash: it guards against damage, not an adversary) is checked
//! before anything is built, so a damaged snapshot loads nothing.

use super::{CheckpointRow, MemStore, SessionRows};
use crate::error::ErrorKind;
use crate::hash::ContentHash;
use crate::id::{CommandId, JournalId, SessionId};

const MAGIC: &[u8; 8] = b"RWNDSNAP";
/// The format [`encode`] writes; [`decode`] reads it, format 2 (no checkpoint turns) and
/// format 1 (no workspace snapshots either).
pub const VERSION: u32 = 3;

/// A snapshot that cannot be loaded. Nothing was built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a snapshot at all.
    #[error("not a rewind snapshot (it does not start with the snapshot magic)")]
    NotASnapshot,
    /// A snapshot of a format this build does not read.
    #[error("snapshot format {0} is not supported (this build reads format {VERSION})")]
    UnknownVersion(u32),
    /// Damaged: cut off, checksum mismatch, or a field that does not decode.
    #[error("corrupt snapshot: {0}")]
    Corrupt(String),
}

impl Error {
    /// The stable code: `invalid_input` for what is not a snapshot this build reads,
    /// `corrupt` for a damaged one.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::NotASnapshot | Self::UnknownVersion(_) => ErrorKind::InvalidInput,
            Self::Corrupt(_) => ErrorKind::Corrupt,
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// A checksum over 8-byte words: fast in wasm, and any flipped bit or reordered word changes it.
fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = 0xCBF2_9CE4_8422_2325 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("chunks of 8"));
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(K).rotate_left(29);
    }
    h ^ (h >> 32)
}

struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        let n = u32::try_from(n).expect("a snapshot field or table is under 4 GiB");
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
}

/// The store's whole state (rows and counters; not its faults or its batch log).
pub fn encode(store: &MemStore) -> Vec<u8> {
    let mut o = Out(Vec::with_capacity(estimate(store)));
    o.0.extend_from_slice(MAGIC);
    o.0.extend_from_slice(&VERSION.to_le_bytes());
    o.u64(store.order);
    o.u64(store.version);
    o.len(store.sessions.len());
    for (id, s) in &store.sessions {
        o.str(id.as_str());
        o.u64(s.order);
        o.u64(s.generation);
        o.str(&s.body);
        o.len(s.messages.len());
        for (seq, (id, body)) in &s.messages {
            o.u64(*seq);
            o.str(id);
            o.str(body);
            o.u8(u8::from(s.boundaries.contains(seq)));
        }
        o.len(s.turns.len());
        for (id, (seq, body)) in &s.turns {
            o.str(id);
            o.u64(*seq);
            o.str(body);
        }
        o.len(s.checkpoints.len());
        for (seq, c) in &s.checkpoints {
            o.u64(*seq);
            o.str(&c.id);
            o.str(&c.body);
            o.u64(c.bytes);
            o.str(c.turn.as_deref().unwrap_or(""));
        }
        o.len(s.operations.len());
        for (order, id, body) in &s.operations {
            o.u64(*order);
            o.str(id);
            o.str(body);
        }
        match &s.workspace_snapshot {
            Some(body) => {
                o.u8(1);
                o.str(body);
            }
            None => o.u8(0),
        }
    }
    o.len(store.journals.len());
    for (id, (order, session, body)) in &store.journals {
        o.str(id.as_str());
        o.u64(*order);
        o.str(session.as_str());
        o.str(body);
    }
    o.len(store.commands.len());
    for ((parent, command), body) in &store.commands {
        o.str(parent.as_str());
        o.str(command.as_str());
        o.str(body);
    }
    o.len(store.blobs.len());
    for (hash, bytes) in &store.blobs {
        o.str(hash.as_str());
        o.bytes(bytes);
    }
    let sum = checksum(&o.0);
    o.u64(sum);
    o.0
}

/// Roughly the encoded size, so encoding allocates once.
fn estimate(store: &MemStore) -> usize {
    let rows: usize = store
        .sessions
        .values()
        .map(|s| {
            let m: usize = s
                .messages
                .values()
                .map(|(i, b)| i.len() + b.len() + 17)
                .sum();
            let c: usize = s
                .checkpoints
                .values()
                .map(|c| c.id.len() + c.body.len() + 24)
                .sum();
            m + c + s.turns.len() * 64
        })
        .sum();
    let blobs: usize = store.blobs.values().map(|b| b.len() + 76).sum();
    rows + blobs + 64
}

struct In<'a> {
    rest: &'a [u8],
}

fn cut(what: &str) -> Error {
    Error::Corrupt(format!("cut off in {what}"))
}

impl<'a> In<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Error> {
        if self.rest.len() < n {
            return Err(cut(what));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }
    fn u8(&mut self, what: &str) -> Result<u8, Error> {
        Ok(self.take(1, what)?[0])
    }
    fn u64(&mut self, what: &str) -> Result<u64, Error> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
    fn len(&mut self, what: &str) -> Result<usize, Error> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    }
    fn bytes(&mut self, what: &str) -> Result<&'a [u8], Error> {
        let n = self.len(what)?;
        self.take(n, what)
    }
    fn string(&mut self, what: &str) -> Result<String, Error> {
        let b = self.bytes(what)?;
        std::str::from_utf8(b)
            .map(str::to_owned)
            .map_err(|_| Error::Corrupt(format!("{what} is not UTF-8")))
    }
    fn id<T>(&mut self, what: &str, parse: impl FnOnce(&str) -> Option<T>) -> Result<T, Error> {
        let s = self.string(what)?;
        parse(&s).ok_or_else(|| Error::Corrupt(format!("{what} {s:?} is not a valid id")))
    }
    /// A table's row count, refused when the rest could not possibly hold that many rows (so a
    /// damaged count cannot make us reserve gigabytes).
    fn count(&mut self, what: &str, min_row: usize) -> Result<usize, Error> {
        let n = self.len(what)?;
        match n.checked_mul(min_row) {
            Some(need) if need <= self.rest.len() => Ok(n),
            _ => Err(cut(what)),
        }
    }
}

/// Check and read a snapshot into a fresh store. Any failure builds nothing.
pub fn decode(bytes: &[u8]) -> Result<MemStore, Error> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(Error::NotASnapshot);
    }
    let mut head = In {
        rest: &bytes[MAGIC.len()..],
    };
    let version = u32::from_le_bytes(head.take(4, "the version")?.try_into().expect("4 bytes"));
    if !(1..=VERSION).contains(&version) {
        return Err(Error::UnknownVersion(version));
    }
    let Some(body_len) = bytes.len().checked_sub(8).filter(|n| *n >= MAGIC.len() + 4) else {
        return Err(cut("the checksum"));
    };
    let (body, sum) = bytes.split_at(body_len);
    if checksum(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(Error::Corrupt(
            "checksum mismatch (damaged or cut off)".into(),
        ));
    }
    let mut r = In {
        rest: &body[MAGIC.len() + 4..],
    };
    let store = read_tables(&mut r, version)?;
    if !r.rest.is_empty() {
        return Err(Error::Corrupt(format!(
            "{} unexpected bytes after the tables",
            r.rest.len()
        )));
    }
    Ok(store)
}

fn read_tables(r: &mut In<'_>, version: u32) -> Result<MemStore, Error> {
    let mut store = MemStore {
        order: r.u64("the store order")?,
        version: r.u64("the store version")?,
        ..MemStore::default()
    };
    for _ in 0..r.count("sessions", 28)? {
        let id = r.id("a session id", |s| SessionId::parse(s).ok())?;
        let rows = read_session(r, version)?;
        store.sessions.insert(id, rows);
    }
    for _ in 0..r.count("journals", 24)? {
        let id = r.id("a journal id", |s| JournalId::parse(s).ok())?;
        let order = r.u64("a journal")?;
        let session = r.id("a journal's session", |s| SessionId::parse(s).ok())?;
        let body = r.string("a journal")?;
        store.journals.insert(id, (order, session, body));
    }
    for _ in 0..r.count("command facts", 12)? {
        let parent = r.id("a command's session", |s| SessionId::parse(s).ok())?;
        let command = r.id("a command id", |s| CommandId::parse(s).ok())?;
        let body = r.string("a command fact")?;
        store.commands.insert((parent, command), body);
    }
    for _ in 0..r.count("blobs", 8)? {
        let hash = r.id("a blob hash", ContentHash::parse)?;
        let bytes = r.bytes("a blob")?.to_vec();
        store.blobs.insert(hash, bytes);
    }
    Ok(store)
}

fn read_session(r: &mut In<'_>, version: u32) -> Result<SessionRows, Error> {
    let mut s = SessionRows {
        order: r.u64("a session")?,
        generation: r.u64("a session")?,
        body: r.string("a session")?,
        ..SessionRows::default()
    };
    for _ in 0..r.count("messages", 17)? {
        let seq = r.u64("a message")?;
        let id = r.string("a message id")?;
        let body = r.string("a message")?;
        let boundary = r.u8("a message")? != 0;
        s.insert_message(seq, id, body, boundary);
    }
    for _ in 0..r.count("turns", 16)? {
        let id = r.string("a turn id")?;
        let seq = r.u64("a turn")?;
        let body = r.string("a turn")?;
        s.insert_turn(id, seq, body);
    }
    for _ in 0..r.count("checkpoints", 24)? {
        let seq = r.u64("a checkpoint")?;
        let id = r.string("a checkpoint id")?;
        let body = r.string("a checkpoint")?;
        let bytes = r.u64("a checkpoint")?;
        // Format 3 carries the turn; an older snapshot's is read from the body.
        let turn = match version >= 3 {
            true => Some(r.string("a checkpoint's turn")?).filter(|t| !t.is_empty()),
            false => crate::ports::probe_turn(&body),
        };
        let row = CheckpointRow {
            id,
            body,
            bytes,
            turn,
        };
        s.insert_checkpoint(seq, row);
    }
    for _ in 0..r.count("operations", 16)? {
        let order = r.u64("an operation")?;
        let id = r.string("an operation id")?;
        let body = r.string("an operation")?;
        s.operations.push((order, id, body));
    }
    if version >= 2 && r.u8("a session")? != 0 {
        s.workspace_snapshot = Some(r.string("a workspace snapshot")?);
    }
    Ok(s)
}

impl MemStore {
    /// The store as a snapshot ([`encode`]).
    pub fn snapshot(&self) -> Vec<u8> {
        encode(self)
    }

    /// A store from a snapshot ([`decode`]); it keeps no batch log.
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self, Error> {
        decode(bytes)
    }
}
