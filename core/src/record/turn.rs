use super::{Error, live_turn};
use crate::batch::{Batch, Write};
use crate::ctx::Ports;
use crate::id::{SessionId, TurnId};
use crate::load::{self, encode};
use crate::model::{MessageStatus, Role, StableBoundary, TurnStatus};
use crate::ports::SeqRange;
use serde::{Deserialize, Serialize};

/// Options of [`complete_turn`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteTurnOptions {
    /// The running turn.
    pub turn_id: TurnId,
    /// The turn failed instead of completing.
    #[serde(default)]
    pub failed: bool,
    /// Model rounds the turn took (default 1).
    #[serde(default)]
    pub round_count: Option<u32>,
}

/// What [`complete_turn`] recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteTurnOutcome {
    /// The turn.
    pub turn_id: TurnId,
    /// Completed or failed.
    pub status: TurnStatus,
    /// The stable boundary, when the turn's final assistant message completed (`None` when it
    /// errored: such a turn has no stable point to fork at).
    pub boundary: Option<StableBoundary>,
}

/// End a turn. The stable boundary (the turn's messages through its final assistant message,
/// when that reply completed rather than errored) is written in the same commit, before anyone
/// can be told the turn is complete.
pub fn complete_turn(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: CompleteTurnOptions,
) -> Result<CompleteTurnOutcome, Error> {
    let s = load::session(p.store, session)?;
    let mut turn = live_turn(p, &s, &opts.turn_id)?;
    if turn.status != TurnStatus::Running {
        return Err(Error::TurnEnded(turn.id));
    }
    // The turn's messages all follow its prompt: read from there, not the whole transcript.
    let tail = crate::window::messages_in(p.store, session, SeqRange::from(turn.prompt_seq))?;
    let ordered: Vec<_> = tail
        .items
        .iter()
        .filter(|m| m.turn_id.as_ref() == Some(&turn.id) && s.branch.contains(m.seq))
        .collect();
    // The boundary is the turn's final assistant message, and only when it completed: a turn
    // whose final reply errored has no stable point, so a fork never lands on a failed answer.
    let boundary_message = ordered
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .filter(|m| m.status == MessageStatus::Complete);
    turn.boundary = boundary_message.map(|b| StableBoundary {
        ordered_message_ids: ordered
            .iter()
            .take_while(|m| m.seq <= b.seq)
            .map(|m| m.id.clone())
            .collect(),
        boundary_message_id: b.id.clone(),
        round_count: opts.round_count.unwrap_or(1),
    });
    turn.status = if opts.failed {
        TurnStatus::Failed
    } else {
        TurnStatus::Completed
    };
    turn.ended_at = Some(p.now());
    let mut batch = Batch::new();
    batch.push(Write::PutTurn {
        session: session.clone(),
        turn: turn.id.clone(),
        seq: turn.prompt_seq,
        body: encode(&turn),
    });
    p.store.commit(batch).map_err(Error::Commit)?;
    Ok(CompleteTurnOutcome {
        turn_id: turn.id,
        status: turn.status,
        boundary: turn.boundary,
    })
}
