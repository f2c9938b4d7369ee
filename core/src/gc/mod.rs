//! Garbage collection, plan then apply. Retention decides which sessions and checkpoints go;
//! reachability then decides which blobs go: a blob is deleted only when no remaining
//! checkpoint, pending journal or undo-window operation references it. Nothing a pending
//! journal or a live fork or side chat needs is ever dropped. A blob stored as a delta keeps
//! its base (transitively) alive, and a base is deleted only after every blob stored against it.

mod bases;
mod plan;
mod retain;

pub use plan::plan;
pub use retain::MIN_IDLE_MS;

use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::hash::ContentHash;
use crate::id::{CheckpointId, SessionId};
use crate::load::{self, encode};
use crate::model::{Millis, Operation, OperationKind};
use serde::{Deserialize, Serialize};

/// Blob deletes per batch: small enough that an interrupted gc loses little work.
const BLOBS_PER_BATCH: usize = 500;

/// Retention settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// Keep the newest N checkpoints of each session, and the undo data of its newest N
    /// file-writing operations (default 100).
    #[serde(default = "default_keep")]
    pub keep: usize,
    /// Drop whole sessions whose last activity is older than this many days (default: never).
    /// Zero is refused; a session with a running turn is never dropped.
    #[serde(default)]
    pub older_than_days: Option<u64>,
    /// The same in milliseconds, for ages under a day; under one hour counts as one hour.
    #[serde(default)]
    pub older_than_ms: Option<u64>,
}

fn default_keep() -> usize {
    100
}

impl Default for Options {
    fn default() -> Self {
        Self {
            keep: default_keep(),
            older_than_days: None,
            older_than_ms: None,
        }
    }
}

/// Counts and bytes of one kind of record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    /// How many.
    pub count: usize,
    /// Bytes they take in the store (blobs only; 0 for rows).
    pub bytes: u64,
}

/// What a gc would delete.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Whole sessions past the age limit.
    pub sessions: Vec<SessionId>,
    /// Checkpoints past the per-session limit.
    pub checkpoints: Vec<Dropped>,
    /// Blobs nothing references any more.
    pub blobs: Vec<ContentHash>,
    /// Totals per kind.
    pub totals: Totals,
    /// Sessions kept although old, and why.
    pub protected: Vec<Protected>,
    /// The idle age sessions were measured against (after the one-hour floor), if any.
    pub older_than_ms: Option<Millis>,
    /// Rows that do not decode; while there are any, no blob is deleted (they might need it).
    pub undecodable_rows: usize,
    /// Sessions whose checkpoints retention drops, with their seq high-water mark raised so a
    /// dropped seq is never handed out again.
    #[serde(skip)]
    pub(crate) marks: Vec<crate::model::Session>,
    /// The store version the plan was made at.
    #[serde(skip)]
    pub(crate) version: u64,
}

/// A checkpoint retention drops.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Dropped {
    /// Its session.
    pub session_id: SessionId,
    /// The checkpoint.
    pub checkpoint_id: CheckpointId,
    /// Its seq.
    pub seq: u64,
    /// Its changes are still in the workspace (not undone): rewinds to before it lose a step.
    #[serde(skip)]
    pub(crate) in_effect: bool,
}

/// Totals of a plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Sessions.
    pub sessions: Tally,
    /// Checkpoints.
    pub checkpoints: Tally,
    /// Blobs.
    pub blobs: Tally,
}

/// An old session gc keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Protected {
    /// The session.
    pub session_id: SessionId,
    /// `pending_journal`, `running_turn` or `live_child`.
    pub reason: &'static str,
}

impl Plan {
    /// Whether there is nothing to delete.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.checkpoints.is_empty() && self.blobs.is_empty()
    }
}

/// What [`gc`] did.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The plan that was carried out (or would be, for a dry run).
    pub plan: Plan,
    /// Whether it was carried out.
    pub applied: bool,
    /// Batches committed.
    pub batches: usize,
}

/// Failures of gc. An interrupted gc leaves the store consistent; run it again.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The options are malformed (e.g. an age of zero).
    #[error("{0}")]
    InvalidInput(String),
    /// Other writers kept committing; gc re-planned and still lost the race.
    #[error("the store kept changing while gc ran; nothing unsafe was deleted, run it again")]
    Busy,
    /// The store failed.
    #[error("committing a gc batch failed: {0}")]
    Store(HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::InvalidInput(_) => ErrorKind::InvalidInput,
            Self::Busy => ErrorKind::Conflict,
            Self::Store(e) => e.error_kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// The batches of a plan, rows before blobs, so every prefix leaves the store consistent.
fn batches(p: &mut Ports<'_>, plan: &Plan, now: Millis) -> Vec<Batch> {
    let mut out = Vec::new();
    let mut by_session: std::collections::BTreeMap<&SessionId, Vec<&Dropped>> = Default::default();
    for d in &plan.checkpoints {
        by_session.entry(&d.session_id).or_default().push(d);
    }
    for (session, dropped) in by_session {
        let mut b = Batch::new();
        for d in &dropped {
            b.push(Write::DeleteCheckpoint {
                session: session.clone(),
                checkpoint: d.checkpoint_id.clone(),
            });
        }
        let op = Operation {
            id: p.mint(),
            session_id: session.clone(),
            kind: OperationKind::Gc,
            created_at: now,
            target: None,
            policy: None,
            files: Vec::new(),
            undoes: None,
            journal_id: None,
            branch_target: None,
            generation: None,
            dropped_through: dropped.iter().filter(|d| d.in_effect).map(|d| d.seq).max(),
            cursor_before: None,
            note: Some(format!(
                "retention dropped {} old checkpoint(s)",
                dropped.len()
            )),
        };
        b.push(Write::PutOperation {
            session: session.clone(),
            operation: op.id.clone(),
            body: encode(&op),
        });
        if let Some(s) = plan.marks.iter().find(|s| &s.id == session) {
            b.push(Write::UpdateSession {
                session: session.clone(),
                generation: s.generation,
                body: encode(s),
            });
        }
        out.push(b);
    }
    if !plan.sessions.is_empty() {
        let mut b = Batch::new();
        for s in &plan.sessions {
            b.push(Write::DeleteSession { session: s.clone() });
        }
        out.push(b);
    }
    for chunk in plan.blobs.chunks(BLOBS_PER_BATCH) {
        let mut b = Batch::new();
        for h in chunk {
            b.push(Write::DeleteBlob { hash: h.clone() });
        }
        out.push(b);
    }
    out
}

/// Plan, and unless `dry_run`, apply. Every batch requires that nobody committed since gc
/// planned; if someone did, gc plans again from the new state.
pub fn gc(p: &mut Ports<'_>, opts: Options, dry_run: bool) -> Result<Outcome, Error> {
    for _ in 0..5 {
        let plan = plan(p, opts)?;
        if dry_run || plan.is_empty() {
            return Ok(Outcome {
                plan,
                applied: false,
                batches: 0,
            });
        }
        let now = p.now();
        let mut version = plan.version;
        let mut done = 0;
        let mut raced = false;
        for mut batch in batches(p, &plan, now) {
            batch.require(Precondition::Version(version));
            match p.store.commit(batch) {
                Ok(()) => {
                    version += 1;
                    done += 1;
                }
                Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {
                    raced = true;
                    break;
                }
                Err(e) => return Err(Error::Store(e)),
            }
        }
        if !raced {
            return Ok(Outcome {
                plan,
                applied: true,
                batches: done,
            });
        }
    }
    Err(Error::Busy)
}
