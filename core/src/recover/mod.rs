//! Recover: settle every journal a crash left behind. When every journaled path already holds
//! its target the apply is finished (its operation recorded); otherwise every path is put back
//! to what the journal says was there. A path someone changed since is left alone and reported.
//! Running it twice changes nothing the second time.
//!
//! Only journals whose writer is gone are settled: the store is asked first
//! ([`StoreWrite::begin_settling`](crate::ports::StoreWrite::begin_settling)), and a journal that
//! is no longer pending by the time it is settled is skipped. A journal that cannot be settled
//! (a path became a directory, a blob is gone) is reported as stuck; the rest are still settled,
//! and [`abandon`] is the way out for the stuck one.

use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::id::{JournalId, OperationId, SessionId};
use crate::load::{self, Diagnostic, encode};
use crate::model::Journal;
use serde::Serialize;

mod settle;
use settle::{Settle, recovery_operation, settle};

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

/// A journal that could not be settled; it stays pending. Settling it again later may work (the
/// path was fixed); otherwise [`abandon`] clears it and keeps its record in the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stuck {
    /// The journal.
    pub journal_id: JournalId,
    /// Its session.
    pub session_id: SessionId,
    /// The path that stopped it, when one did.
    pub path: Option<String>,
    /// Why, in words.
    pub reason: String,
}

/// What [`recover`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// One entry per settled journal.
    pub recovered: Vec<Recovered>,
    /// Journals that could not be settled, with the reason; they stay pending.
    pub stuck: Vec<Stuck>,
    /// Journals left alone because the process that owns them may still be running.
    pub live: Vec<JournalId>,
    /// Journal rows that did not decode (left in place).
    pub diagnostics: Vec<Diagnostic>,
}

/// What [`abandon`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Abandoned {
    /// The journal, no longer pending.
    pub journal_id: JournalId,
    /// Its session.
    pub session_id: SessionId,
    /// The recovery operation that keeps the journal's record.
    pub operation_id: OperationId,
    /// The journal's paths, left exactly as they are on disk.
    pub paths: Vec<String>,
}

/// Failures of `recover`; the journal stays and a later run tries again.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The store failed.
    #[error("committing the recovery failed: {0}")]
    Store(HostError),
    /// Someone settled the journal while this recovery was writing files; what it wrote is
    /// described in the message and the journal's record is gone.
    #[error("journal {journal} was settled by another process while this one restored {paths:?}")]
    Raced {
        /// The journal.
        journal: JournalId,
        /// Paths this recovery had already written.
        paths: Vec<String>,
    },
    /// No pending journal has this id.
    #[error("no pending journal {0}")]
    NotFound(JournalId),
    /// Another process may own the journal right now.
    #[error("journal {0} may belong to a rewind that is still running; try again when it ends")]
    Busy(JournalId),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::Store(source) => source.error_kind(),
            Self::Raced { .. } => ErrorKind::Conflict,
            Self::NotFound(_) => ErrorKind::NotFound,
            Self::Busy(_) => ErrorKind::Unavailable,
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// Whether the journal is still pending (another process may have settled it meanwhile).
fn pending(p: &Ports<'_>, id: &JournalId) -> Result<bool, Error> {
    let rows = p.store.journals().map_err(Error::Store)?;
    Ok(rows.iter().any(|r| r.id == id.as_str()))
}

/// Settle every pending journal (of one session, or all when `session` is `None`) whose owner is
/// gone. A journal that cannot be settled is reported as stuck and the others still are.
pub fn recover(p: &mut Ports<'_>, session: Option<&SessionId>) -> Result<Outcome, Error> {
    let journals = load::journals(p.store)?;
    let mut out = Outcome {
        diagnostics: journals.diagnostics,
        ..Outcome::default()
    };
    let mine: Vec<&Journal> = journals
        .items
        .iter()
        .filter(|j| session.is_none_or(|s| s == &j.session_id))
        .collect();
    if mine.is_empty() {
        return Ok(out);
    }
    if !p.store.begin_settling().map_err(Error::Store)? {
        out.live = mine.iter().map(|j| j.id.clone()).collect();
        return Ok(out);
    }
    let result = settle_all(p, &mine, &mut out);
    p.store.end_settling();
    result.map(|()| out)
}

fn settle_all(p: &mut Ports<'_>, journals: &[&Journal], out: &mut Outcome) -> Result<(), Error> {
    for j in journals {
        // Listed before the lock was ours: its owner may have finished in between.
        if !pending(p, &j.id)? {
            continue;
        }
        match settle(p, j)? {
            Settle::Done(r) => out.recovered.push(r),
            Settle::Stuck(s) => out.stuck.push(s),
        }
    }
    Ok(())
}

/// Give up on a journal that cannot be settled: it stops being pending, its paths are left
/// exactly as they are, and a recovery operation keeps the journal's whole record in its note
/// for later inspection.
pub fn abandon(p: &mut Ports<'_>, id: &JournalId) -> Result<Abandoned, Error> {
    let journals = load::journals(p.store)?;
    let Some(j) = journals.items.into_iter().find(|j| &j.id == id) else {
        return Err(Error::NotFound(id.clone()));
    };
    if !p.store.begin_settling().map_err(Error::Store)? {
        return Err(Error::Busy(id.clone()));
    }
    let result = commit_abandon(p, &j);
    p.store.end_settling();
    result
}

fn commit_abandon(p: &mut Ports<'_>, j: &Journal) -> Result<Abandoned, Error> {
    let paths: Vec<String> = j.entries.iter().map(|e| e.path.to_string()).collect();
    let note = format!(
        "abandoned the interrupted {} operation {} by request; its paths were left as they are; \
         the journal was: {}",
        j.operation.kind.as_str(),
        j.operation.id,
        encode(j)
    );
    let op = recovery_operation(p, j, Vec::new(), note);
    let mut batch = Batch::new();
    batch.require(Precondition::JournalPresent(j.id.clone()));
    batch.push(Write::RemoveJournal {
        journal: j.id.clone(),
    });
    batch.push(Write::PutOperation {
        session: j.session_id.clone(),
        operation: op.id.clone(),
        body: encode(&op),
    });
    match p.store.commit(batch) {
        Ok(()) => Ok(Abandoned {
            journal_id: j.id.clone(),
            session_id: j.session_id.clone(),
            operation_id: op.id,
            paths,
        }),
        Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {
            Err(Error::NotFound(j.id.clone()))
        }
        Err(e) => Err(Error::Store(e)),
    }
}
