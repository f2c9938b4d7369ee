//! An in-memory store: all-or-nothing commits with preconditions, like a SQLite transaction.

use super::faults::{Fault, FaultOp, Faults};
use crate::batch::{Batch, Precondition, Write};
use crate::error::{HostError, HostErrorKind};
use crate::hash::ContentHash;
use crate::id::{CommandId, JournalId, SessionId, TurnId};
use crate::ports::{BlobInfo, Row, Store, StoreWrite};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default)]
struct SessionRows {
    order: u64,
    generation: u64,
    body: String,
    messages: BTreeMap<u64, (String, String)>,
    turns: BTreeMap<String, (u64, String)>,
    checkpoints: BTreeMap<u64, (String, String)>,
    operations: Vec<(u64, String, String)>,
}

/// Records in memory, with fault injection and corruption helpers for tests.
#[derive(Clone, Debug, Default)]
pub struct MemStore {
    sessions: BTreeMap<SessionId, SessionRows>,
    journals: BTreeMap<JournalId, (u64, SessionId, String)>,
    blobs: BTreeMap<ContentHash, Vec<u8>>,
    commands: BTreeMap<(SessionId, CommandId), String>,
    order: u64,
    faults: Faults,
    committed: Vec<Batch>,
}

impl MemStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Arm a commit fault.
    pub fn arm(&mut self, fault: Fault) {
        self.faults.arm(fault);
    }

    /// Disarm all faults.
    pub fn clear_faults(&mut self) {
        self.faults.clear();
    }

    /// Every batch committed so far, in order (what a browser host would persist).
    pub fn committed(&self) -> &[Batch] {
        &self.committed
    }

    /// Replace a stored message body (to simulate a corrupt row).
    pub fn corrupt_message(&mut self, session: &SessionId, seq: u64, body: &str) {
        let rows = self.sessions.get_mut(session).expect("session exists");
        rows.messages.get_mut(&seq).expect("message exists").1 = body.to_owned();
    }

    /// Replace a stored checkpoint body (to simulate a corrupt row).
    pub fn corrupt_checkpoint(&mut self, session: &SessionId, seq: u64, body: &str) {
        let rows = self.sessions.get_mut(session).expect("session exists");
        rows.checkpoints.get_mut(&seq).expect("checkpoint exists").1 = body.to_owned();
    }

    /// Overwrite a blob's bytes without changing its key (bit rot).
    pub fn corrupt_blob(&mut self, hash: &ContentHash, bytes: &[u8]) {
        self.blobs.insert(hash.clone(), bytes.to_vec());
    }

    /// Drop a blob (as if retention removed it).
    pub fn drop_blob(&mut self, hash: &ContentHash) {
        self.blobs.remove(hash);
    }

    /// Number of stored blobs.
    pub fn blob_count(&self) -> usize {
        self.blobs.len()
    }

    fn last_seq_of(rows: &SessionRows) -> u64 {
        let m = rows.messages.keys().next_back().copied().unwrap_or(0);
        let c = rows.checkpoints.keys().next_back().copied().unwrap_or(0);
        m.max(c)
    }

    fn check(&self, p: &Precondition) -> Result<(), String> {
        match p {
            Precondition::SessionAbsent(id) => match self.sessions.contains_key(id) {
                true => Err(format!("session {id} already exists")),
                false => Ok(()),
            },
            Precondition::Generation(id, want) => match self.sessions.get(id) {
                Some(rows) if rows.generation == *want => Ok(()),
                Some(rows) => Err(format!(
                    "session {id} is at generation {}, not {want}",
                    rows.generation
                )),
                None => Err(format!("session {id} does not exist")),
            },
            Precondition::LastSeq(id, want) => match self.sessions.get(id) {
                Some(rows) if Self::last_seq_of(rows) == *want => Ok(()),
                Some(rows) => Err(format!(
                    "session {id} is at seq {}, not {want}",
                    Self::last_seq_of(rows)
                )),
                None => Err(format!("session {id} does not exist")),
            },
            Precondition::JournalPresent(id) => match self.journals.contains_key(id) {
                true => Ok(()),
                false => Err(format!("journal {id} is no longer pending")),
            },
            Precondition::Version(want) => match self.committed.len() as u64 == *want {
                true => Ok(()),
                false => Err(format!(
                    "the store moved on: {} batches committed, not {want}",
                    self.committed.len()
                )),
            },
            Precondition::CommandUnused(parent, command) => {
                match self
                    .commands
                    .contains_key(&(parent.clone(), command.clone()))
                {
                    true => Err(format!("command {command} already ran in session {parent}")),
                    false => Ok(()),
                }
            }
        }
    }

    /// Reject writes that would collide, before anything is applied, so a commit is atomic.
    fn validate(&self, writes: &[Write]) -> Result<(), String> {
        let mut created = BTreeSet::new();
        let mut seqs = BTreeSet::new();
        let mut ids = BTreeSet::new();
        for w in writes {
            if let Write::CreateSession { session, .. } = w {
                if self.sessions.contains_key(session) || !created.insert(session.clone()) {
                    return Err(format!("session {session} already exists"));
                }
                continue;
            }
            if let Some(owner) = w.session()
                && !self.sessions.contains_key(owner)
                && !created.contains(owner)
            {
                return Err(format!("session {owner} does not exist"));
            }
            let positioned = match w {
                Write::AppendMessage {
                    session,
                    seq,
                    message,
                    ..
                } => Some((session, seq, message.to_string())),
                Write::PutCheckpoint {
                    session,
                    seq,
                    checkpoint,
                    ..
                } => Some((session, seq, checkpoint.to_string())),
                _ => None,
            };
            if let Some((session, seq, id)) = positioned {
                {
                    let rows = self.sessions.get(session);
                    let taken = rows.is_some_and(|r| {
                        r.messages.contains_key(seq) || r.checkpoints.contains_key(seq)
                    });
                    if taken || !seqs.insert((session.clone(), *seq)) {
                        return Err(format!("seq {seq} of session {session} is taken"));
                    }
                    let dup = rows.is_some_and(|r| {
                        r.messages
                            .values()
                            .chain(r.checkpoints.values())
                            .any(|(known, _)| known == &id)
                    });
                    if dup || !ids.insert(id.clone()) {
                        return Err(format!("{id} already exists"));
                    }
                }
            }
            if let Write::PutCommandFact {
                parent, command, ..
            } = w
                && self
                    .commands
                    .contains_key(&(parent.clone(), command.clone()))
            {
                return Err(format!("command {command} already ran in session {parent}"));
            }
            if let Write::PutBlob { hash, bytes, .. } = w
                && &ContentHash::of(bytes) != hash
            {
                return Err(format!("blob bytes do not hash to {hash}"));
            }
        }
        Ok(())
    }

    fn apply(&mut self, write: Write) {
        self.order += 1;
        let order = self.order;
        match write {
            Write::CreateSession { session, body } => {
                self.sessions.insert(
                    session,
                    SessionRows {
                        order,
                        body,
                        ..SessionRows::default()
                    },
                );
            }
            Write::UpdateSession {
                session,
                generation,
                body,
            } => {
                let rows = self.sessions.get_mut(&session).expect("validated");
                rows.generation = generation;
                rows.body = body;
            }
            Write::AppendMessage {
                session,
                seq,
                message,
                body,
                ..
            } => {
                let rows = self.sessions.get_mut(&session).expect("validated");
                rows.messages.insert(seq, (message.to_string(), body));
            }
            Write::PutTurn {
                session,
                turn,
                seq,
                body,
            } => {
                let rows = self.sessions.get_mut(&session).expect("validated");
                rows.turns.insert(turn.to_string(), (seq, body));
            }
            Write::PutCheckpoint {
                session,
                seq,
                checkpoint,
                body,
                ..
            } => {
                let rows = self.sessions.get_mut(&session).expect("validated");
                rows.checkpoints.insert(seq, (checkpoint.to_string(), body));
            }
            Write::PutBlob { hash, bytes, .. } => {
                self.blobs.entry(hash).or_insert(bytes);
            }
            Write::PutOperation {
                session,
                operation,
                body,
            } => {
                let rows = self.sessions.get_mut(&session).expect("validated");
                rows.operations.push((order, operation.to_string(), body));
            }
            Write::PutJournal {
                journal,
                session,
                body,
            } => {
                self.journals.insert(journal, (order, session, body));
            }
            Write::RemoveJournal { journal } => {
                self.journals.remove(&journal);
            }
            Write::PutCommandFact {
                parent,
                command,
                body,
            } => {
                self.commands.insert((parent, command), body);
            }
            Write::DeleteBlob { hash } => {
                self.blobs.remove(&hash);
            }
            Write::DeleteCheckpoint {
                session,
                checkpoint,
            } => {
                if let Some(rows) = self.sessions.get_mut(&session) {
                    rows.checkpoints
                        .retain(|_, (id, _)| id != checkpoint.as_str());
                }
            }
            Write::DeleteSession { session } => {
                self.sessions.remove(&session);
                self.commands.retain(|(parent, _), _| parent != &session);
                self.journals.retain(|_, (_, owner, _)| owner != &session);
            }
        }
    }
}

impl Store for MemStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        Ok(self.sessions.get(id).map(|r| Row {
            id: id.to_string(),
            seq: r.order,
            body: r.body.clone(),
        }))
    }

    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        let mut rows: Vec<Row> = self
            .sessions
            .iter()
            .map(|(id, r)| Row {
                id: id.to_string(),
                seq: r.order,
                body: r.body.clone(),
            })
            .collect();
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    }

    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        Ok(self.sessions.get(session).map_or_else(Vec::new, |r| {
            r.messages
                .iter()
                .map(|(seq, (id, body))| Row {
                    id: id.clone(),
                    seq: *seq,
                    body: body.clone(),
                })
                .collect()
        }))
    }

    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        Ok(self.sessions.get(session).and_then(|r| {
            r.turns.get(turn.as_str()).map(|(seq, body)| Row {
                id: turn.to_string(),
                seq: *seq,
                body: body.clone(),
            })
        }))
    }

    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let mut rows: Vec<Row> = self.sessions.get(session).map_or_else(Vec::new, |r| {
            r.turns
                .iter()
                .map(|(id, (seq, body))| Row {
                    id: id.clone(),
                    seq: *seq,
                    body: body.clone(),
                })
                .collect()
        });
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    }

    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        Ok(self.sessions.get(session).map_or_else(Vec::new, |r| {
            r.checkpoints
                .iter()
                .map(|(seq, (id, body))| Row {
                    id: id.clone(),
                    seq: *seq,
                    body: body.clone(),
                })
                .collect()
        }))
    }

    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        Ok(self.sessions.get(session).map_or_else(Vec::new, |r| {
            r.operations
                .iter()
                .map(|(order, id, body)| Row {
                    id: id.clone(),
                    seq: *order,
                    body: body.clone(),
                })
                .collect()
        }))
    }

    fn journals(&self) -> Result<Vec<Row>, HostError> {
        let mut rows: Vec<Row> = self
            .journals
            .iter()
            .map(|(id, (order, _, body))| Row {
                id: id.to_string(),
                seq: *order,
                body: body.clone(),
            })
            .collect();
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    }

    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        Ok(self.blobs.get(hash).cloned())
    }

    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        Ok(self.sessions.get(session).map_or(0, Self::last_seq_of))
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
        Ok(self.committed.len() as u64)
    }

    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError> {
        Ok(self
            .commands
            .get(&(parent.clone(), command.clone()))
            .map(|body| Row {
                id: command.to_string(),
                seq: 0,
                body: body.clone(),
            }))
    }
}

impl StoreWrite for MemStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        if self.faults.hit(FaultOp::Commit) {
            return Err(HostError::io("injected fault: commit failed"));
        }
        for p in &batch.preconditions {
            self.check(p)
                .map_err(|m| HostError::new(HostErrorKind::PreconditionFailed, m))?;
        }
        self.validate(&batch.writes)
            .map_err(|m| HostError::new(HostErrorKind::PreconditionFailed, m))?;
        self.committed.push(batch.clone());
        for w in batch.writes {
            self.apply(w);
        }
        Ok(())
    }
}
