//! `rename`: set a session's title, plan then apply. Only the title changes: no message, turn,
//! checkpoint, operation or branch does, and nothing is written when the title is already that.
//!
//! The title is trimmed; an empty one, one longer than [`MAX_TITLE_CHARS`] or one holding a
//! control character (a newline, a tab, an escape: it would break every listing it is printed
//! in) is `invalid_input`. The commit requires the store version the plan read, so a rename
//! never writes back a stale copy of a session another process changed meanwhile (a rewind
//! moving its branch); it re-plans and retries a few times, then reports `conflict`.

use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::{ErrorKind, HostError, HostErrorKind};
use crate::id::SessionId;
use crate::load::{self, encode};
use crate::model::Session;
use serde::{Deserialize, Serialize};

/// The longest title, in characters (the same bound `createSession` has).
pub const MAX_TITLE_CHARS: usize = 500;

/// How many times a rename re-plans when another writer committed first.
const ATTEMPTS: usize = 5;

/// Options of [`rename`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The new title (trimmed; 1 to 500 characters, no control characters).
    pub title: String,
}

/// What [`rename`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The session.
    pub session_id: SessionId,
    /// Its title now.
    pub title: String,
    /// Its title before.
    pub previous_title: String,
    /// False when the title was already this one (nothing was written).
    pub changed: bool,
}

/// Failures of rename. Nothing is written in any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session could not be read (or does not exist: `not_found`).
    #[error(transparent)]
    Load(#[from] load::Error),
    /// The title is empty, too long or holds a control character.
    #[error("{0}")]
    InvalidInput(String),
    /// Other writers kept committing; the rename re-planned and still lost the race.
    #[error("the store kept changing while the rename ran; nothing was written, run it again")]
    Busy,
    /// The store failed.
    #[error("committing the rename failed: {0}")]
    Store(HostError),
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        match self {
            Self::Load(e) => e.kind(),
            Self::InvalidInput(_) => ErrorKind::InvalidInput,
            Self::Busy => ErrorKind::Conflict,
            Self::Store(e) => e.error_kind(),
        }
    }
}

/// The title as it will be stored, or why it cannot be.
pub fn checked_title(title: &str) -> Result<String, Error> {
    let t = title.trim();
    if t.is_empty() {
        return Err(Error::InvalidInput(
            "the title is empty: give the session a title of 1 to 500 characters".into(),
        ));
    }
    let n = t.chars().count();
    if n > MAX_TITLE_CHARS {
        return Err(Error::InvalidInput(format!(
            "the title is {n} characters long; at most {MAX_TITLE_CHARS} are allowed"
        )));
    }
    if let Some(c) = t.chars().find(|c| c.is_control()) {
        return Err(Error::InvalidInput(format!(
            "the title holds the control character {c:?}: titles are one line of text"
        )));
    }
    Ok(t.to_owned())
}

/// A rename worked out: the session as it will be stored, and the store version read.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The session with its new title.
    pub renamed: Session,
    /// Its title before.
    pub previous_title: String,
    version: u64,
}

/// Plan a rename. Reads only.
pub fn plan(p: &Ports<'_>, session: &SessionId, opts: &Options) -> Result<Plan, Error> {
    let title = checked_title(&opts.title)?;
    let version = p.store.version().map_err(Error::Store)?;
    let mut renamed = load::session(p.store, session)?;
    let previous_title = std::mem::replace(&mut renamed.title, title);
    Ok(Plan {
        renamed,
        previous_title,
        version,
    })
}

/// Rename a session: plan, then commit the one session row, unless the title is unchanged.
pub fn rename(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<Outcome, Error> {
    for _ in 0..ATTEMPTS {
        let plan = plan(p, session, &opts)?;
        let outcome = Outcome {
            session_id: session.clone(),
            title: plan.renamed.title.clone(),
            previous_title: plan.previous_title.clone(),
            changed: plan.renamed.title != plan.previous_title,
        };
        if !outcome.changed {
            return Ok(outcome);
        }
        let mut batch = Batch::new();
        batch.require(Precondition::Version(plan.version));
        batch.push(Write::UpdateSession {
            session: session.clone(),
            generation: plan.renamed.generation,
            body: encode(&plan.renamed),
        });
        match p.store.commit(batch) {
            Ok(()) => return Ok(outcome),
            Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {}
            Err(e) => return Err(Error::Store(e)),
        }
    }
    Err(Error::Busy)
}
