//! Recover: settle every journal a crash left behind. When every journaled path already holds
//! its target the apply is finished (its operation recorded); otherwise every path is put back
//! to what the journal says was there. A path someone changed since is left alone and reported.
//! Running it twice changes nothing the second time.

use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::hash::ContentHash;
use crate::id::{JournalId, OperationId, SessionId};
use crate::load::{self, BlobError, Diagnostic, encode};
use crate::model::{Journal, OpFile, Operation, OperationKind};
use serde::Serialize;

/// How a journal was settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Settled {
    /// Every write had happened: the operation was recorded.
    Finished,
    /// The writes were undone: the workspace is as before the apply.
    RolledBack,
}

/// One settled journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recovered {
    /// The journal.
    pub journal_id: JournalId,
    /// Its session.
    pub session_id: SessionId,
    /// Finished or rolled back.
    pub action: Settled,
    /// The recovery operation recorded in the log.
    pub operation_id: OperationId,
    /// Paths put back.
    pub restored_paths: Vec<String>,
    /// Paths changed by someone else since the crash, left as they are.
    pub left_paths: Vec<String>,
}

/// What [`recover`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// One entry per settled journal.
    pub recovered: Vec<Recovered>,
    /// Journal rows that did not decode (left in place).
    pub diagnostics: Vec<Diagnostic>,
}

/// Failures of `recover`; the journal stays and a later run tries again.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// Reading or writing a file failed.
    #[error("recovering journal {journal} failed: {source}")]
    Workspace {
        /// The journal.
        journal: JournalId,
        /// The failure.
        source: HostError,
    },
    /// The bytes a rollback needs are gone.
    #[error("journal {journal} cannot be rolled back: {source}")]
    Blob {
        /// The journal.
        journal: JournalId,
        /// The failure.
        source: BlobError,
    },
    /// The store failed.
    #[error("committing the recovery failed: {0}")]
    Store(HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::Workspace { source, .. } | Self::Store(source) => source.error_kind(),
            Self::Blob { .. } => ErrorKind::Unrecoverable,
        }
    }
}

fn settle(p: &mut Ports<'_>, j: &Journal) -> Result<Recovered, Error> {
    let ws_err = |source| Error::Workspace {
        journal: j.id.clone(),
        source,
    };
    let mut states = Vec::with_capacity(j.entries.len());
    for e in &j.entries {
        let now = p
            .workspace
            .read(&e.path)
            .map_err(ws_err)?
            .as_deref()
            .map(ContentHash::of);
        states.push(now);
    }
    let all_written = j
        .entries
        .iter()
        .zip(&states)
        .all(|(e, now)| now == &e.target);
    // A `both` can only be finished if nobody moved the conversation since; otherwise its files
    // go back too, so files and conversation never disagree.
    let generation = match &j.session_update {
        Some(s) => {
            Some(load::session(p.store, &s.id)?.generation).filter(|g| g + 1 == s.generation)
        }
        None => None,
    };
    let finished = all_written && (j.session_update.is_none() || generation.is_some());
    let mut restored = Vec::new();
    let mut left = Vec::new();
    if !finished {
        for (e, now) in j.entries.iter().zip(&states).rev() {
            if now == &e.prior {
                continue;
            }
            if now != &e.target {
                left.push(e.path.to_string());
                continue;
            }
            let prior = match &e.prior {
                Some(h) => Some(load::blob(p.store, h).map_err(|source| Error::Blob {
                    journal: j.id.clone(),
                    source,
                })?),
                None => None,
            };
            match prior {
                Some(bytes) => p.workspace.write(&e.path, &bytes),
                None => p.workspace.remove(&e.path),
            }
            .map_err(ws_err)?;
            restored.push(e.path.to_string());
        }
    }
    let mut batch = Batch::new();
    batch.require(Precondition::JournalPresent(j.id.clone()));
    batch.push(Write::RemoveJournal {
        journal: j.id.clone(),
    });
    if finished {
        if let (Some(s), Some(g)) = (&j.session_update, generation) {
            batch.require(Precondition::Generation(s.id.clone(), g));
            batch.push(Write::UpdateSession {
                session: s.id.clone(),
                generation: s.generation,
                body: encode(s),
            });
        }
        batch.push(Write::PutOperation {
            session: j.session_id.clone(),
            operation: j.operation.id.clone(),
            body: encode(&j.operation),
        });
    }
    let files: Vec<OpFile> = j
        .entries
        .iter()
        .filter(|e| restored.contains(&e.path.to_string()))
        .map(|e| OpFile {
            path: e.path.clone(),
            action: if e.prior.is_some() {
                crate::model::FileAction::Restore
            } else {
                crate::model::FileAction::Delete
            },
            before: e.target.clone(),
            after: e.prior.clone(),
            undid: Vec::new(),
            merged: false,
            forced: false,
        })
        .collect();
    let action = if finished {
        Settled::Finished
    } else {
        Settled::RolledBack
    };
    let note = match action {
        Settled::Finished => format!(
            "finished the interrupted {} operation {}",
            j.operation.kind.as_str(),
            j.operation.id
        ),
        Settled::RolledBack => format!(
            "rolled back the interrupted {} operation {}: {} path(s) restored, {} left as found",
            j.operation.kind.as_str(),
            j.operation.id,
            restored.len(),
            left.len()
        ),
    };
    let recovery = Operation {
        id: p.mint(),
        session_id: j.session_id.clone(),
        kind: OperationKind::Recovery,
        created_at: p.now(),
        target: Some(crate::model::OpTarget::Operation {
            operation_id: j.operation.id.clone(),
        }),
        policy: None,
        files,
        undoes: None,
        journal_id: Some(j.id.clone()),
        branch_target: None,
        generation: None,
        dropped_through: None,
        note: Some(note),
    };
    batch.push(Write::PutOperation {
        session: j.session_id.clone(),
        operation: recovery.id.clone(),
        body: encode(&recovery),
    });
    let operation_id = if finished {
        j.operation.id.clone()
    } else {
        recovery.id
    };
    match p.store.commit(batch) {
        Ok(()) => {}
        Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {} // settled by someone else meanwhile
        Err(e) => return Err(Error::Store(e)),
    }
    Ok(Recovered {
        journal_id: j.id.clone(),
        session_id: j.session_id.clone(),
        action,
        operation_id,
        restored_paths: restored,
        left_paths: left,
    })
}

/// Settle every pending journal (of one session, or all when `session` is `None`).
pub fn recover(p: &mut Ports<'_>, session: Option<&SessionId>) -> Result<Outcome, Error> {
    let journals = load::journals(p.store)?;
    let mut out = Outcome {
        diagnostics: journals.diagnostics,
        ..Outcome::default()
    };
    for j in journals
        .items
        .iter()
        .filter(|j| session.is_none_or(|s| s == &j.session_id))
    {
        out.recovered.push(settle(p, j)?);
    }
    Ok(out)
}
