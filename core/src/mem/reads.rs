//! Reads, each answered from its index: keyed reads are one lookup, range reads walk only the
//! rows in the range.

use super::{MemStore, SessionRows};
use crate::error::HostError;
use crate::hash::ContentHash;
use crate::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use crate::ports::{BlobInfo, Row, SeqRange, Store};
use std::ops::Range;

fn row(id: &str, seq: u64, body: &str) -> Row {
    Row {
        id: id.to_owned(),
        seq,
        body: body.to_owned(),
    }
}

/// `range` as a `BTreeMap` range (never empty-inverted: `BTreeMap::range` panics on that).
fn bounds(range: SeqRange) -> Range<u64> {
    range.from..range.to.max(range.from)
}

impl MemStore {
    fn with_rows<T: Default>(&self, session: &SessionId, f: impl FnOnce(&SessionRows) -> T) -> T {
        self.sessions.get(session).map_or_else(T::default, f)
    }
}

impl SessionRows {
    fn message_rows(&self, range: SeqRange) -> impl DoubleEndedIterator<Item = Row> + '_ {
        self.messages
            .range(bounds(range))
            .map(|(seq, (id, body))| row(id, *seq, body))
    }

    fn checkpoint_rows(&self, range: SeqRange) -> Vec<Row> {
        self.checkpoints
            .range(bounds(range))
            .map(|(seq, c)| row(&c.id, *seq, &c.body))
            .collect()
    }

    fn turn_rows(&self, range: SeqRange) -> Vec<Row> {
        let start = (range.from, String::new());
        self.turn_seqs
            .range(start..)
            .take_while(|(seq, _)| *seq < range.to)
            .filter_map(|(seq, id)| self.turns.get(id).map(|(_, body)| row(id, *seq, body)))
            .collect()
    }
}

impl Store for MemStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        Ok(self
            .sessions
            .get(id)
            .map(|r| row(id.as_str(), r.order, &r.body)))
    }

    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        let mut rows: Vec<Row> = self
            .sessions
            .iter()
            .map(|(id, r)| row(id.as_str(), r.order, &r.body))
            .collect();
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    }

    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.messages_in(session, SeqRange::ALL)
    }

    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            r.turns
                .get(turn.as_str())
                .map(|(seq, body)| row(turn.as_str(), *seq, body))
        }))
    }

    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.turns_in(session, SeqRange::ALL)
    }

    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        self.checkpoints_in(session, SeqRange::ALL)
    }

    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            r.operations
                .iter()
                .map(|(order, id, body)| row(id, *order, body))
                .collect()
        }))
    }

    fn journals(&self) -> Result<Vec<Row>, HostError> {
        let mut rows: Vec<Row> = self
            .journals
            .iter()
            .map(|(id, (order, _, body))| row(id.as_str(), *order, body))
            .collect();
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    }

    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        Ok(self.blobs.get(hash).cloned())
    }

    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        Ok(self.with_rows(session, SessionRows::last_seq))
    }

    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        Ok(self
            .blobs
            .iter()
            .map(|(hash, bytes)| BlobInfo {
                hash: hash.clone(),
                size: bytes.len() as u64,
                stored: bytes.len() as u64,
                base: None,
            })
            .collect())
    }

    fn version(&self) -> Result<u64, HostError> {
        Ok(self.version)
    }

    fn workspace_snapshot(&self, session: &SessionId) -> Result<Option<Row>, HostError> {
        Ok(self
            .sessions
            .get(session)
            .and_then(|s| s.workspace_snapshot.as_deref())
            .map(|body| row(session.as_str(), 0, body)))
    }

    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError> {
        Ok(self
            .commands
            .get(&(parent.clone(), command.clone()))
            .map(|body| row(command.as_str(), 0, body)))
    }

    fn message(&self, session: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            let seq = r.message_ids.get(id.as_str())?;
            r.messages.get(seq).map(|(id, body)| row(id, *seq, body))
        }))
    }

    fn messages_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| r.message_rows(range).collect()))
    }

    fn last_messages_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        limit: usize,
    ) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            let mut rows: Vec<Row> = r.message_rows(range).rev().take(limit).collect();
            rows.reverse();
            rows
        }))
    }

    fn message_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        // A whole-session count is the map's length; a narrower one walks only its range.
        Ok(self.with_rows(session, |r| match range == SeqRange::ALL {
            true => r.messages.len() as u64,
            false => r.messages.range(bounds(range)).count() as u64,
        }))
    }

    fn boundaries(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            r.boundaries
                .iter()
                .filter_map(|seq| r.messages.get(seq).map(|(id, body)| row(id, *seq, body)))
                .collect()
        }))
    }

    fn turns_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| r.turn_rows(range)))
    }

    fn checkpoint(&self, session: &SessionId, id: &CheckpointId) -> Result<Option<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            let seq = r.checkpoint_ids.get(id.as_str())?;
            r.checkpoints.get(seq).map(|c| row(&c.id, *seq, &c.body))
        }))
    }

    fn checkpoints_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| r.checkpoint_rows(range)))
    }

    fn turn_checkpoints(&self, session: &SessionId, turn: &TurnId) -> Result<Vec<Row>, HostError> {
        Ok(self.with_rows(session, |r| {
            let start = (turn.to_string(), 0);
            r.turn_checkpoints
                .range(start..)
                .take_while(|(t, _)| t == turn.as_str())
                .filter_map(|(_, seq)| r.checkpoints.get(seq).map(|c| row(&c.id, *seq, &c.body)))
                .collect()
        }))
    }

    fn session_bytes(&self, session: &SessionId) -> Result<u64, HostError> {
        Ok(self.with_rows(session, |r| r.bytes))
    }

    fn has_blob(&self, hash: &ContentHash) -> Result<bool, HostError> {
        Ok(self.blobs.contains_key(hash))
    }
}
