//! A move of the conversation cursor committed with a file apply: a rewind to before a prompt
//! (`both`), or putting the cursor back where an earlier operation found it (the undo of a
//! `both` or of a conversation rewind, and their redo). Either way the generation goes up by
//! one and is the compare-and-swap precondition of the commit.

use crate::conversation::ConversationPlan;
use crate::id::MessageId;
use crate::model::{CursorBefore, Session};

/// The cursor move of an apply.
#[derive(Clone, Debug)]
pub(crate) enum CursorMove {
    /// To before a prompt.
    Rewind(ConversationPlan),
    /// Back to where an operation found it.
    Restore {
        /// The session as planned (its generation is the precondition).
        base: Session,
        /// Where the cursor goes back to.
        to: CursorBefore,
    },
}

impl CursorMove {
    /// The session the move was planned on.
    pub(crate) fn base(&self) -> &Session {
        match self {
            Self::Rewind(plan) => &plan.base,
            Self::Restore { base, .. } => base,
        }
    }

    /// The prompt the branch now ends before, for a rewind.
    pub(crate) fn target(&self) -> Option<&MessageId> {
        match self {
            Self::Rewind(plan) => Some(&plan.target),
            Self::Restore { .. } => None,
        }
    }

    /// The session row after the move, given the session's last seq at commit time.
    pub(crate) fn moved(&self, stored_last: u64) -> Session {
        match self {
            Self::Rewind(plan) => plan.moved(stored_last),
            Self::Restore { base, to } => {
                let last_seq = base.last_seq(stored_last);
                Session {
                    branch: to.restored(last_seq),
                    seq_high_water: last_seq,
                    generation: base.generation + 1,
                    rewound_to: to.rewound_to.clone(),
                    ..base.clone()
                }
            }
        }
    }
}
