//! Which part of the parent a fork copies, and the fork point in the parent's sequence.

use super::{Error, ForkPoint};
use crate::branch;
use crate::load::SessionLog;
use crate::model::Message;
use crate::model::{MessageStatus, Role, TurnStatus};
use std::collections::BTreeSet;

/// The history to copy and the seq it ends at.
pub(crate) struct Selection<'a> {
    pub(crate) history: Vec<&'a Message>,
    pub(crate) point: u64,
    /// Checkpoints may be inherited (not for turn-boundary forks and side chats: conversation only).
    pub(crate) with_checkpoints: bool,
}

pub(crate) fn select<'a>(log: &'a SessionLog, at: &ForkPoint) -> Result<Selection<'a>, Error> {
    let active = branch::select(&log.session, &log.messages);
    let through = |point: u64| {
        active
            .iter()
            .copied()
            .filter(|m| m.seq <= point)
            .collect::<Vec<_>>()
    };
    match at {
        ForkPoint::Message(id) => {
            let m = active
                .iter()
                .find(|m| &m.id == id)
                .ok_or_else(|| Error::NotOnBranch(format!("message {id}")))?;
            // The whole turn: its messages and its tool's checkpoints, which may come after the
            // turn's last message when no reply was recorded yet.
            let point = match &m.turn_id {
                Some(t) => {
                    let messages = active
                        .iter()
                        .filter(|x| x.turn_id.as_ref() == Some(t))
                        .map(|x| x.seq);
                    let checkpoints = log
                        .checkpoints
                        .iter()
                        .filter(|c| &c.turn_id == t)
                        .map(|c| c.seq);
                    messages.chain(checkpoints).max().unwrap_or(m.seq)
                }
                None => m.seq,
            };
            Ok(Selection {
                history: through(point),
                point,
                with_checkpoints: true,
            })
        }
        ForkPoint::Checkpoint(id) => {
            let c = log
                .checkpoints
                .iter()
                .find(|c| &c.id == id)
                .ok_or_else(|| crate::load::Error::NotFound {
                    what: "checkpoint",
                    id: id.to_string(),
                })?;
            if !active.iter().any(|m| m.id == c.prompt_id) {
                return Err(Error::NotOnBranch(format!("checkpoint {id}")));
            }
            Ok(Selection {
                history: through(c.seq),
                point: c.seq,
                with_checkpoints: true,
            })
        }
        ForkPoint::Turn(id) => {
            let turn = log.turn(id).ok_or_else(|| crate::load::Error::NotFound {
                what: "turn",
                id: id.to_string(),
            })?;
            let b = turn
                .boundary
                .as_ref()
                .filter(|_| turn.status == TurnStatus::Completed)
                .ok_or_else(|| Error::NotStable(id.clone()))?;
            if b.ordered_message_ids.last() != Some(&b.boundary_message_id) {
                return Err(Error::InvalidBoundary(id.clone()));
            }
            let unique: BTreeSet<_> = b.ordered_message_ids.iter().collect();
            if unique.len() != b.ordered_message_ids.len() {
                return Err(Error::DuplicateBoundaryIds(id.clone()));
            }
            let start = active
                .iter()
                .position(|m| m.id == b.ordered_message_ids[0])
                .ok_or_else(|| Error::NotActiveSegment(id.clone()))?;
            let contiguous = b
                .ordered_message_ids
                .iter()
                .enumerate()
                .all(|(i, want)| active.get(start + i).is_some_and(|m| &m.id == want));
            if !contiguous {
                return Err(Error::NotContiguous(id.clone()));
            }
            let end = start + b.ordered_message_ids.len() - 1;
            let last = active[end];
            if last.role != Role::Assistant || last.status != MessageStatus::Complete {
                return Err(Error::BoundaryNotCompleted(id.clone()));
            }
            Ok(Selection {
                history: active[..=end].to_vec(),
                point: last.seq,
                with_checkpoints: false,
            })
        }
    }
}

/// A side chat's history: the active branch, cut after the real user prompt of a turn that is
/// still running (its in-flight output is left out).
pub(crate) fn side_chat_history(log: &SessionLog) -> Vec<&Message> {
    let active = branch::select(&log.session, &log.messages);
    let running = log
        .turns
        .iter()
        .filter(|t| t.status == TurnStatus::Running && log.session.branch.contains(t.prompt_seq))
        .max_by_key(|t| t.prompt_seq);
    match running {
        Some(t) => active
            .into_iter()
            .filter(|m| m.seq <= t.prompt_seq)
            .collect(),
        None => active,
    }
}
