//! Why a typed id names nothing. Each error names the thing that is wrong (a session, a
//! message, turn `#9`), with the stable codes every verb uses: `invalid_input` for what could
//! never name anything (bad form, ambiguous, too short to change things with), `not_found` for
//! what names nothing in this store.

use crate::error::{Coded, ErrorKind};
use crate::load;
use crate::ports::IdTable;

/// Failures of [`super::resolve`] and its kin.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Not of the form of an id of the kind.
    #[error(
        "{typed:?} is not {a} {what} id: {what} ids are `{p}` followed by lowercase hex digits \
         (0-9, a-f), and any unique start of those digits names one too (`{p}3f2a` or `3f2a`)",
        a = article(super::what(*table)),
        what = super::what(*table),
        p = super::type_prefix(*table)
    )]
    Malformed {
        /// The kind expected.
        table: IdTable,
        /// What was typed (at most 80 characters of it).
        typed: String,
    },
    /// Starts with `#` or `@` but is not a position.
    #[error("`{typed}` is not a turn: write #N (from #1), @ (the latest) or @-N")]
    BadPosition {
        /// What was typed.
        typed: String,
    },
    /// A position past the active branch's turns.
    #[error("the session has no turn `{typed}` on its active branch: {}", has(*turns))]
    NoSuchTurn {
        /// What was typed.
        typed: String,
        /// How many turns the active branch has.
        turns: u64,
    },
    /// A prefix too short for a call that changes things.
    #[error(
        "`{typed}` is too short to name a {} for a call that changes things: type at least \
         {} characters of the id; nothing was changed",
        super::what(*table),
        super::MIN_PREFIX_TO_CHANGE
    )]
    TooShort {
        /// The kind.
        table: IdTable,
        /// What was typed.
        typed: String,
    },
    /// No id of the kind starts with it.
    #[error("no {} id starts with `{typed}`", super::what(*table))]
    NoMatch {
        /// The kind.
        table: IdTable,
        /// What was typed.
        typed: String,
    },
    /// A whole session id that names no session.
    #[error("session {id} was not found")]
    NoSession {
        /// The id.
        id: String,
    },
    /// Neither a turn nor a message id starts with it.
    #[error("no turn or message id starts with `{typed}` (or name a turn as #N, @ or @-N)")]
    NoTurnOrMessage {
        /// What was typed.
        typed: String,
    },
    /// Several ids start with it.
    #[error(
        "`{typed}` is ambiguous: it starts {what} ids {}{}; type more of the id",
        candidates.join(", "),
        if *more { ", …" } else { "" }
    )]
    Ambiguous {
        /// The kinds (`message`, `turn and message`).
        what: &'static str,
        /// What was typed.
        typed: String,
        /// The first [`super::SHOWN`] of them.
        candidates: Vec<String>,
        /// Whether there are more.
        more: bool,
    },
    /// The session (or the turn a position names) could not be read.
    #[error(transparent)]
    Load(#[from] load::Error),
}

impl From<crate::error::HostError> for Error {
    fn from(e: crate::error::HostError) -> Self {
        Self::Load(load::Error::Host(e))
    }
}

impl Error {
    pub(super) fn ambiguous(what: &'static str, typed: &str, mut ids: Vec<String>) -> Self {
        let more = ids.len() > super::SHOWN;
        ids.truncate(super::SHOWN);
        Self::Ambiguous {
            what,
            typed: typed.trim().to_owned(),
            candidates: ids,
            more,
        }
    }
}

impl Coded for Error {
    fn code(&self) -> ErrorKind {
        match self {
            Self::Malformed { .. }
            | Self::BadPosition { .. }
            | Self::TooShort { .. }
            | Self::Ambiguous { .. } => ErrorKind::InvalidInput,
            Self::NoSuchTurn { .. }
            | Self::NoMatch { .. }
            | Self::NoSession { .. }
            | Self::NoTurnOrMessage { .. } => ErrorKind::NotFound,
            Self::Load(e) => e.kind(),
        }
    }
}

fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// What the active branch has, for [`Error::NoSuchTurn`].
fn has(turns: u64) -> String {
    match turns {
        0 => "it has no turns yet".to_owned(),
        1 => "it has 1 turn, #1 (also @)".to_owned(),
        n => format!("it has {n} turns, #1 to #{n} (@ is #{n})"),
    }
}
