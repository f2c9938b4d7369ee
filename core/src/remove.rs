//! `remove`: delete a session and every row it owns (messages, turns, checkpoints, operations,
//! its workspace snapshot, the command facts recorded under it), plan then apply, in one batch.
//!
//! It never loses another session silently:
//!
//! * A session with forks or side chats (children, and theirs) is refused (`conflict`, naming
//!   them) unless `withForks` is set; then the whole subtree goes in the same batch. Removing
//!   the parent alone would leave children whose provenance names a session that is gone, and
//!   handing them to the grandparent would rewrite their history: both lie, so neither is done.
//! * A session (or one of the forks going with it) with a running turn on its active branch, or
//!   with a pending apply journal, is refused (`conflict`): something is working in it, or an
//!   interrupted apply still needs its journal to put files back (`rewind recover`).
//! * Nothing outside the removed sessions changes: removing a fork leaves its parent exactly as
//!   it was (its transcript, checkpoints, its own log entry of the fork and the fork's command
//!   fact: replaying that fork's command id answers with the removed child, since the command
//!   ran once and is not run again). Blobs are never
//!   deleted here: content only the removed sessions referenced becomes garbage for `gc`, and
//!   content another session shares stays referenced, so `gc` keeps it.
//!
//! The commit requires the store version the plan read (a fork, a turn or a journal appearing
//! meanwhile makes it re-plan); after a few lost races it reports `conflict`. `dryRun` only
//! plans. The workspace files are not touched.

use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::id::{JournalId, SessionId, TurnId};
use crate::load;
use crate::model::{Session, SessionKind, TurnStatus};
use crate::ports::SeqRange;
use serde::{Deserialize, Serialize};

/// How many times a removal re-plans when another writer committed first.
const ATTEMPTS: usize = 5;

/// Options of [`remove`].
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// Remove the session's forks and side chats (and theirs) with it; without it a session
    /// that has any is refused.
    #[serde(default)]
    pub with_forks: bool,
    /// Only plan: say what would be removed, write nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// One session a removal deletes, with how much of it goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    /// The session.
    pub session_id: SessionId,
    /// The session it was forked from.
    pub parent_id: Option<SessionId>,
    /// Interactive, fork or side chat.
    pub kind: SessionKind,
    /// Its title.
    pub title: String,
    /// Messages stored (every branch).
    pub messages: u64,
    /// Turns stored.
    pub turns: usize,
    /// Checkpoints stored.
    pub checkpoints: usize,
    /// Operation-log entries.
    pub operations: usize,
}

/// What [`remove`] did (or, for a dry run, would do).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The session asked for.
    pub session_id: SessionId,
    /// Every session removed: the one asked for first, then its forks, parents before children.
    pub removed: Vec<Removed>,
    /// Whether it was carried out (false for a dry run).
    pub applied: bool,
}

/// A child that keeps a session from being removed alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fork {
    /// The child.
    pub session_id: SessionId,
    /// Fork or side chat.
    pub kind: SessionKind,
}

fn listed(forks: &[Fork]) -> String {
    let each: Vec<String> = forks
        .iter()
        .map(|f| format!("{} ({})", f.session_id, f.kind.as_str()))
        .collect();
    each.join(", ")
}

/// Failures of remove. Nothing is written in any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read (or the session does not exist: `not_found`).
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The session has forks or side chats and `withForks` was not given.
    #[error(
        "session {session} has {n} fork(s) or side chat(s): {list}; remove them first, or \
         remove them with it (`--with-forks`, `withForks: true`)",
        n = .forks.len(),
        list = listed(.forks)
    )]
    HasForks {
        /// The session asked for.
        session: SessionId,
        /// Its children and theirs.
        forks: Vec<Fork>,
    },
    /// A turn is still running in a session that would go.
    #[error(
        "session {session} has a running turn ({turn}): end it first (`rewind turn-end`), or \
         wait for the agent to finish"
    )]
    RunningTurn {
        /// The session.
        session: SessionId,
        /// The running turn.
        turn: TurnId,
    },
    /// An apply in a session that would go was interrupted and its journal is still pending.
    #[error(
        "session {session} has a pending apply journal ({journal}): settle it first with \
         `rewind recover`"
    )]
    PendingJournal {
        /// The session.
        session: SessionId,
        /// The journal.
        journal: JournalId,
    },
    /// Session rows that do not decode: one of them could be a fork of this session.
    #[error(
        "{0} session row(s) in the store do not decode, and any of them could be a fork of this \
         session; nothing was removed"
    )]
    Undecodable(usize),
    /// Other writers kept committing; the removal re-planned and still lost the race.
    #[error("the store kept changing while the removal ran; nothing was removed, run it again")]
    Busy,
    /// The store failed.
    #[error("committing the removal failed: {0}")]
    Store(HostError),
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::HasForks { .. }
            | Self::RunningTurn { .. }
            | Self::PendingJournal { .. }
            | Self::Busy => ErrorKind::Conflict,
            Self::Undecodable(_) => ErrorKind::Corrupt,
            Self::Store(e) => e.error_kind(),
        }
    }
}

/// A removal worked out.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The sessions that go, the one asked for first.
    pub removed: Vec<Removed>,
    version: u64,
}

/// `root` and its descendants, parents before children.
fn subtree<'a>(all: &'a [Session], root: &'a Session) -> Vec<&'a Session> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let id = &out[i].id;
        out.extend(all.iter().filter(|s| s.parent_id.as_ref() == Some(id)));
        i += 1;
    }
    out
}

/// Refuse when something is working in `s`: a running turn on its branch.
fn check_idle(p: &Ports<'_>, s: &Session) -> Result<(), Error> {
    let turns = load::turns(p.store, &s.id)?;
    if let Some(t) = turns
        .items
        .iter()
        .find(|t| t.status == TurnStatus::Running && s.branch.contains(t.prompt_seq))
    {
        return Err(Error::RunningTurn {
            session: s.id.clone(),
            turn: t.id.clone(),
        });
    }
    Ok(())
}

fn removed(p: &Ports<'_>, s: &Session) -> Result<Removed, Error> {
    let store = &*p.store;
    let host = Error::Store;
    Ok(Removed {
        session_id: s.id.clone(),
        parent_id: s.parent_id.clone(),
        kind: s.kind,
        title: s.title.clone(),
        messages: store.message_count_in(&s.id, SeqRange::ALL).map_err(host)?,
        turns: store.turns(&s.id).map_err(host)?.len(),
        checkpoints: store.checkpoints(&s.id).map_err(host)?.len(),
        operations: store.operations(&s.id).map_err(host)?.len(),
    })
}

/// Plan a removal. Reads only.
pub fn plan(p: &Ports<'_>, session: &SessionId, opts: Options) -> Result<Plan, Error> {
    // Read the version first: anything committed after it invalidates this plan.
    let version = p.store.version().map_err(Error::Store)?;
    let root = load::session(p.store, session)?;
    let all = load::sessions(p.store)?;
    if !all.diagnostics.is_empty() {
        return Err(Error::Undecodable(all.diagnostics.len()));
    }
    let going = subtree(&all.items, &root);
    if going.len() > 1 && !opts.with_forks {
        return Err(Error::HasForks {
            session: session.clone(),
            forks: going[1..]
                .iter()
                .map(|s| Fork {
                    session_id: s.id.clone(),
                    kind: s.kind,
                })
                .collect(),
        });
    }
    let journals = load::journals(p.store)?;
    for s in &going {
        if let Some(j) = journals.items.iter().find(|j| j.session_id == s.id) {
            return Err(Error::PendingJournal {
                session: s.id.clone(),
                journal: j.id.clone(),
            });
        }
        check_idle(p, s)?;
    }
    let removed = going
        .iter()
        .map(|s| removed(p, s))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Plan { removed, version })
}

/// Remove a session (and, with `withForks`, its forks): plan, then unless `dryRun` commit every
/// deletion in one batch.
pub fn remove(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<Outcome, Error> {
    for _ in 0..ATTEMPTS {
        let plan = plan(p, session, opts)?;
        let mut outcome = Outcome {
            session_id: session.clone(),
            removed: plan.removed,
            applied: false,
        };
        if opts.dry_run {
            return Ok(outcome);
        }
        let mut batch = Batch::new();
        batch.require(Precondition::Version(plan.version));
        for r in &outcome.removed {
            batch.push(Write::DeleteSession {
                session: r.session_id.clone(),
            });
        }
        match p.store.commit(batch) {
            Ok(()) => {
                outcome.applied = true;
                return Ok(outcome);
            }
            Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {}
            Err(e) => return Err(Error::Store(e)),
        }
    }
    Err(Error::Busy)
}
