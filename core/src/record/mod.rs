//! Recording verbs: sessions, prompts (which start turns), replies, notices, compaction
//! summaries, file edits, failed captures and turn completion. Each call is durable when it
//! returns: it is one committed batch.

mod file_change;
mod message;
mod session;
mod turn;

pub use file_change::{
    EditChange, EditOptions, EditOutcome, FailedCaptureOptions, FileEdit, RecordedFile,
};
pub use message::{
    CompactionOptions, MessageOutcome, NoticeOptions, PromptOptions, PromptOutcome, ReplyOptions,
};
pub use session::{SessionOptions, create_session};
pub use turn::{CompleteTurnOptions, CompleteTurnOutcome};

pub use file_change::{edit, failed_capture, kind_for};
pub use message::{compaction, notice, prompt, reply};
pub use turn::complete_turn;

pub(crate) use file_change::text_of;
pub(crate) use message::{new_message, push_message};

use crate::batch::{Batch, Precondition};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::id::{SessionId, TurnId};
use crate::load;
use crate::model::{Session, Turn};

/// Failures of the recording verbs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The input is malformed.
    #[error("{0}")]
    InvalidInput(String),
    /// A path is not a workspace path.
    #[error(transparent)]
    InvalidPath(#[from] crate::path::PathError),
    /// The turn is not on the active branch any more (a rewind removed it).
    #[error("turn {turn} is not on the active branch of session {session}: a rewind removed it")]
    TurnRemoved {
        /// The session.
        session: SessionId,
        /// The removed turn.
        turn: TurnId,
    },
    /// The turn already ended.
    #[error("turn {0} has already ended")]
    TurnEnded(TurnId),
    /// Other writers kept appending; the append was retried and still lost the race.
    #[error("session {0} kept changing while recording; try again")]
    Busy(SessionId),
    /// The store failed to commit.
    #[error("committing the record failed: {0}")]
    Commit(HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::InvalidInput(_) => ErrorKind::InvalidInput,
            Self::InvalidPath(_) => ErrorKind::InvalidPath,
            Self::TurnRemoved { .. } | Self::TurnEnded(_) | Self::Busy(_) => ErrorKind::Conflict,
            Self::Commit(e) => e.error_kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// How often an append is re-planned when another writer took the next seq first. Every lost
/// round means another writer's append landed, so the store as a whole always progresses; but one
/// writer descheduled between its read and its commit can lose many rounds in a row while others
/// keep winning (four clients of two `serve` processes on one PostgreSQL database, with pooled
/// connections, on a loaded machine lost 8). A retry costs one read and one refused commit.
const APPEND_ATTEMPTS: usize = 32;

/// Append to a session's sequence: `build(first_free_seq)` makes the batch, committed with a
/// `LastSeq` precondition so two writers can never share a seq; re-planned when it loses a race.
/// The first free seq lies above the session's high-water mark, not just the rows still stored.
pub(crate) fn append<T>(
    p: &mut Ports<'_>,
    session: &SessionId,
    mut build: impl FnMut(&mut Ports<'_>, u64) -> Result<(Batch, T), Error>,
) -> Result<T, Error> {
    for _ in 0..APPEND_ATTEMPTS {
        // Never below the session's high-water mark: a seq gc freed is not handed out again.
        let s = load::session(p.store, session)?;
        let last = p.store.last_seq(session).map_err(load::Error::Host)?;
        let (mut batch, out) = build(p, s.last_seq(last) + 1)?;
        batch.require(Precondition::LastSeq(session.clone(), last));
        match p.store.commit(batch) {
            Ok(()) => return Ok(out),
            Err(e) if e.kind() == HostErrorKind::PreconditionFailed => continue,
            Err(e) => return Err(Error::Commit(e)),
        }
    }
    Err(Error::Busy(session.clone()))
}

/// A turn that can still receive records: it exists and its prompt is on the active branch.
pub(crate) fn live_turn(p: &Ports<'_>, session: &Session, turn: &TurnId) -> Result<Turn, Error> {
    let turn = load::turn(p.store, &session.id, turn)?;
    if !session.branch.contains(turn.prompt_seq) {
        return Err(Error::TurnRemoved {
            session: session.id.clone(),
            turn: turn.id,
        });
    }
    Ok(turn)
}
