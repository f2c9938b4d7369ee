//! `both`: rewind the conversation and the workspace files as one unit. The files are written
//! first under the journal; the new branch is committed in the same transaction that records
//! the operation. Either both happen or neither.

use crate::batch::Batch;
use crate::branch::{Evaluation, Scope};
use crate::conversation::{self, stop_turns};
use crate::ctx::Ports;
use crate::cursor::CursorMove;
use crate::error::ErrorKind;
use crate::files::{self, ApplyOutcome, Finish, Target, gather, log_for, outcome, plan};
use crate::id::{MessageId, SessionId};
use crate::load;
use crate::model::{OpTarget, OperationKind, Policy};
use crate::path::WorkPath;
use crate::window;
use serde::{Deserialize, Serialize};

/// Options of [`rewind`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The prompt to rewind to (must be a prompt: no assistant mapping in this scope).
    pub to: MessageId,
    /// How to treat unsafe files (default `block`).
    #[serde(default)]
    pub policy: Policy,
    /// Only these paths (empty = every path).
    #[serde(default)]
    pub paths: Vec<String>,
}

/// What [`rewind`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Whether the conversation was rewound (true exactly when the files were applied).
    pub rewound: bool,
    /// The file part; `applied` is false when nothing changed.
    #[serde(flatten)]
    pub files: ApplyOutcome,
    /// The prompt rewound to.
    pub target_message_id: MessageId,
    /// The new generation, when rewound.
    pub generation: Option<u64>,
    /// How the target was evaluated ([`crate::branch::evaluate_rewind_target`]).
    pub evaluation: Evaluation,
    /// How to resume the agent's own conversation at the same point, for a session an agent's
    /// hooks recorded ([`crate::agent_resume`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_resume: Option<Box<crate::agent_resume::AgentResume>>,
}

/// Failures of `both`. Nothing is changed in any of them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The conversation part refused or failed.
    #[error(transparent)]
    Conversation(#[from] conversation::Error),
    /// The file part failed.
    #[error(transparent)]
    Files(#[from] files::Error),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Conversation(e) => e.kind(),
            Self::Files(e) => e.kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// Rewind conversation and files to before a prompt, as one unit.
pub fn rewind(p: &mut Ports<'_>, session: &SessionId, opts: Options) -> Result<Outcome, Error> {
    let base = load::session(p.store, session).map_err(files::Error::from)?;
    let conv = conversation::plan(p.store, &base, &opts.to, Scope::Both, true)?;
    let filter = opts
        .paths
        .iter()
        .map(|p| WorkPath::parse(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(files::Error::from)?;
    let target = Target::Since(conv.target.clone());
    let log = log_for(p.store, session, &target)?;
    let gathered = gather(&log, &target, &filter, false)?;
    let plan = plan(p.store, p.workspace, session.clone(), gathered)?;
    let preview = plan.preview();
    let blocked = opts.policy != Policy::Skip && !preview.unsafe_files.is_empty() && {
        let resolvable = |u: &files::UnsafeFile| match opts.policy {
            Policy::Merge => u.mergeable,
            Policy::Force => u.forceable,
            _ => false,
        };
        !preview.unsafe_files.iter().all(resolvable)
    };
    let evaluation = conv.evaluation.clone();
    if !blocked {
        stop_turns(p, &conv).map_err(conversation::Error::StopFailed)?;
    }
    let finish = Finish {
        kind: OperationKind::Both,
        target: Some(OpTarget::Since {
            message_id: conv.target.clone(),
        }),
        policy: opts.policy,
        undoes: None,
        branch_move: Some(CursorMove::Rewind(conv.clone())),
        notice: None,
        extra: Batch::new(),
        note: None,
        operation_id: None,
    };
    let ex = files::execute(p, &plan, finish)?;
    let rewound = ex.applied;
    let files = outcome(ex, preview);
    let salt = files.operation_id.as_ref().map_or("", |op| op.as_str());
    let agent_resume = rewound
        .then(|| window::message(p.store, &conv.base.id, &conv.target).ok())
        .flatten()
        .and_then(|m| crate::agent_resume::before(&conv.base, &m, None, salt));
    Ok(Outcome {
        rewound,
        generation: rewound.then_some(conv.base.generation + 1),
        target_message_id: conv.target,
        files,
        evaluation,
        agent_resume,
    })
}
