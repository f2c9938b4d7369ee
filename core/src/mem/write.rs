//! Commits: every precondition and collision is checked against the indexes before anything is
//! applied, so a commit is all-or-nothing and costs O(writes · log n).

use super::{CheckpointRow, MemStore, SessionRows};
use crate::batch::{Batch, Precondition, Write};
use crate::error::{HostError, HostErrorKind};
use crate::hash::ContentHash;
use crate::ports::StoreWrite;
use std::collections::BTreeSet;

impl MemStore {
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
                Some(rows) if rows.last_seq() == *want => Ok(()),
                Some(rows) => Err(format!(
                    "session {id} is at seq {}, not {want}",
                    rows.last_seq()
                )),
                None => Err(format!("session {id} does not exist")),
            },
            Precondition::JournalPresent(id) => match self.journals.contains_key(id) {
                true => Ok(()),
                false => Err(format!("journal {id} is no longer pending")),
            },
            Precondition::Version(want) => match self.version == *want {
                true => Ok(()),
                false => Err(format!(
                    "the store moved on: {} batches committed, not {want}",
                    self.version
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
        let mut hashed = BTreeSet::new();
        for w in writes {
            if let Write::CreateSession { session, .. } = w {
                if self.sessions.contains_key(session) || !created.insert(session) {
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
                } => Some((session, *seq, message.as_str())),
                Write::PutCheckpoint {
                    session,
                    seq,
                    checkpoint,
                    ..
                } => Some((session, *seq, checkpoint.as_str())),
                _ => None,
            };
            if let Some((session, seq, id)) = positioned {
                let rows = self.sessions.get(session);
                let taken = rows.is_some_and(|r| {
                    r.messages.contains_key(&seq) || r.checkpoints.contains_key(&seq)
                });
                if taken || !seqs.insert((session, seq)) {
                    return Err(format!("seq {seq} of session {session} is taken"));
                }
                if rows.is_some_and(|r| r.has_id(id)) || !ids.insert(id) {
                    return Err(format!("{id} already exists"));
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
            // A blob the store holds is a no-op: its bytes are not even hashed.
            if let Write::PutBlob { hash, bytes, .. } = w
                && !self.trust_blob_hashes
                && !self.blobs.contains_key(hash)
                && hashed.insert(hash)
                && &ContentHash::of(bytes) != hash
            {
                return Err(format!("blob bytes do not hash to {hash}"));
            }
        }
        Ok(())
    }

    fn rows(&mut self, session: &crate::id::SessionId) -> &mut SessionRows {
        self.sessions.get_mut(session).expect("validated")
    }

    fn append_message(
        &mut self,
        session: &crate::id::SessionId,
        seq: u64,
        message: String,
        body: String,
        boundary: bool,
    ) {
        // Logs persisted before writes carried the flag still name their summaries in the
        // body; the substring test keeps the JSON probe off every other message.
        let boundary =
            boundary || (body.contains("\"compaction\"") && crate::ports::probe_boundary(&body));
        self.rows(session)
            .insert_message(seq, message, body, boundary);
    }

    /// A session goes with everything it owns: its rows, its command facts, its journals.
    fn delete_session(&mut self, session: &crate::id::SessionId) {
        self.sessions.remove(session);
        self.commands.retain(|(parent, _), _| parent != session);
        self.journals.retain(|_, (_, owner, _)| owner != session);
    }

    fn apply(&mut self, write: Write) {
        self.order += 1;
        let order = self.order;
        match write {
            Write::CreateSession { session, body } => {
                let rows = SessionRows {
                    order,
                    body,
                    ..SessionRows::default()
                };
                self.sessions.insert(session, rows);
            }
            Write::UpdateSession {
                session,
                generation,
                body,
            } => {
                let rows = self.rows(&session);
                rows.generation = generation;
                rows.body = body;
            }
            Write::AppendMessage {
                session,
                seq,
                message,
                body,
                boundary,
            } => self.append_message(&session, seq, message.to_string(), body, boundary),
            Write::PutTurn {
                session,
                turn,
                seq,
                body,
            } => self.rows(&session).insert_turn(turn.to_string(), seq, body),
            Write::PutCheckpoint {
                session,
                seq,
                checkpoint,
                body,
                bytes,
                turn,
            } => {
                // Logs persisted before writes carried the turn name it in the body.
                let turn = turn
                    .map(|t| t.to_string())
                    .or_else(|| crate::ports::probe_turn(&body));
                let row = CheckpointRow {
                    id: checkpoint.to_string(),
                    body,
                    bytes,
                    turn,
                };
                self.rows(&session).insert_checkpoint(seq, row);
            }
            Write::PutBlob { hash, bytes, .. } => {
                self.blobs.entry(hash).or_insert(bytes);
            }
            Write::PutOperation {
                session,
                operation,
                body,
            } => self
                .rows(&session)
                .operations
                .push((order, operation.to_string(), body)),
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
                    rows.remove_checkpoint(checkpoint.as_str());
                }
            }
            Write::PutWorkspaceSnapshot { session, body } => {
                self.rows(&session).workspace_snapshot = Some(body);
            }
            Write::DeleteSession { session } => self.delete_session(&session),
        }
    }
}

impl StoreWrite for MemStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        #[cfg(feature = "testkit")]
        let lost = {
            use crate::testkit::FaultOp;
            let doubt = self.faults.hit(FaultOp::CommitInDoubt);
            let lost = self.faults.hit(FaultOp::CommitLostReply);
            if self.faults.hit(FaultOp::Commit) {
                return Err(HostError::io("injected fault: commit failed"));
            }
            if doubt {
                return Err(crate::testkit::in_doubt(false));
            }
            lost
        };
        for p in &batch.preconditions {
            self.check(p)
                .map_err(|m| HostError::new(HostErrorKind::PreconditionFailed, m))?;
        }
        self.validate(&batch.writes)
            .map_err(|m| HostError::new(HostErrorKind::PreconditionFailed, m))?;
        self.version += 1;
        let writes = match &mut self.log {
            Some(log) => {
                log.push(batch.clone());
                batch.writes
            }
            None => batch.writes,
        };
        for w in writes {
            self.apply(w);
        }
        #[cfg(feature = "testkit")]
        if lost {
            return Err(crate::testkit::in_doubt(true));
        }
        Ok(())
    }
}
