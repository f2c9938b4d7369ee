//! `rewind`: one entry point over the three scopes — `conversation` (move the branch cursor),
//! `workspace` (a file rewind since the prompt) and `both` (the two as one unit). Every host
//! offers this verb, so the choice of verb per scope lives here, once.

use crate::both;
use crate::branch::Scope;
use crate::conversation;
use crate::ctx::Ports;
use crate::error::ErrorKind;
use crate::files::{self, ApplyOptions, ApplyOutcome, TargetOptions};
use crate::id::{MessageId, SessionId};
use crate::model::Policy;
use serde::{Deserialize, Serialize};

/// Options of [`rewind`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// What to rewind.
    pub scope: Scope,
    /// The prompt to go back to (an assistant id maps to its prompt in `conversation` scope only).
    pub to: MessageId,
    /// How unsafe files are treated (`workspace` and `both`; default `block`).
    #[serde(default)]
    pub policy: Policy,
    /// Only these paths (`workspace` and `both`; empty = every path).
    #[serde(default)]
    pub paths: Vec<String>,
}

/// What [`rewind`] did: the outcome of the verb the scope picked, serialised as that verb's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    /// Scope `conversation`.
    Conversation(conversation::Outcome),
    /// Scope `workspace`.
    Workspace(ApplyOutcome),
    /// Scope `both`.
    Both(both::Outcome),
}

/// Failures of [`rewind`]: those of the verb the scope picked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Scope `conversation`.
    #[error(transparent)]
    Conversation(#[from] conversation::Error),
    /// Scope `workspace`.
    #[error(transparent)]
    Files(#[from] files::Error),
    /// Scope `both`.
    #[error(transparent)]
    Both(#[from] both::Error),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Conversation(e) => e.kind(),
            Self::Files(e) => e.kind(),
            Self::Both(e) => e.kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// Rewind in the given scope to before a prompt.
pub fn rewind(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<Outcome, Error> {
    Ok(match opts.scope {
        Scope::Conversation => Outcome::Conversation(conversation::rewind(
            p,
            session,
            conversation::Options { to: opts.to },
        )?),
        Scope::Workspace => {
            let target = TargetOptions {
                since: Some(opts.to),
                paths: opts.paths,
                ..TargetOptions::default()
            };
            Outcome::Workspace(files::apply(
                p,
                session,
                ApplyOptions {
                    target,
                    policy: opts.policy,
                },
            )?)
        }
        Scope::Both => {
            let o = both::Options {
                to: opts.to,
                policy: opts.policy,
                paths: opts.paths,
            };
            Outcome::Both(both::rewind(p, session, o)?)
        }
    })
}
