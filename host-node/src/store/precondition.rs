//! A batch's preconditions judged the same way, in the same words, by every store: the store
//! answers the few reads ([`Facts`]) from inside its write transaction, after it made sure no
//! other committer can change them before it commits.

use rewind_core::batch::Precondition;
use rewind_core::id::{CommandId, JournalId, SessionId};
use rewind_core::{HostError, HostErrorKind};

/// The reads a precondition needs, answered inside the write transaction.
pub(crate) trait Facts {
    /// The session's generation; `None` when it does not exist.
    fn generation(&self, session: &SessionId) -> Result<Option<u64>, HostError>;
    /// The session's highest seq (0 when none); `None` when it does not exist.
    fn last_seq(&self, session: &SessionId) -> Result<Option<u64>, HostError>;
    /// Whether a fact is recorded for the command.
    fn command_used(&self, parent: &SessionId, command: &CommandId) -> Result<bool, HostError>;
    /// Whether the journal is pending.
    fn journal_present(&self, journal: &JournalId) -> Result<bool, HostError>;
    /// How many batches were committed before this one.
    fn version(&self) -> Result<u64, HostError>;
}

fn failed(message: String) -> HostError {
    HostError::new(HostErrorKind::PreconditionFailed, message)
}

/// `Ok` when `p` holds; a `precondition_failed` error saying why when it does not.
pub(crate) fn check(facts: &impl Facts, p: &Precondition) -> Result<(), HostError> {
    match p {
        Precondition::SessionAbsent(id) => match facts.generation(id)? {
            Some(_) => Err(failed(format!("session {id} already exists"))),
            None => Ok(()),
        },
        Precondition::Generation(id, want) => match facts.generation(id)? {
            Some(have) if have == *want => Ok(()),
            Some(have) => Err(failed(format!(
                "session {id} is at generation {have}, not {want}"
            ))),
            None => Err(failed(format!("session {id} does not exist"))),
        },
        Precondition::LastSeq(id, want) => match facts.last_seq(id)? {
            Some(have) if have == *want => Ok(()),
            Some(have) => Err(failed(format!("session {id} is at seq {have}, not {want}"))),
            None => Err(failed(format!("session {id} does not exist"))),
        },
        Precondition::CommandUnused(parent, command) => {
            match facts.command_used(parent, command)? {
                false => Ok(()),
                true => Err(failed(format!(
                    "command {command} already ran in session {parent}"
                ))),
            }
        }
        Precondition::Version(want) => match facts.version()? {
            have if have == *want => Ok(()),
            have => Err(failed(format!(
                "the store moved on: {have} batches committed, not {want}"
            ))),
        },
        Precondition::JournalPresent(id) => match facts.journal_present(id)? {
            true => Ok(()),
            false => Err(failed(format!("journal {id} is no longer pending"))),
        },
    }
}
