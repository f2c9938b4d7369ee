//! Retention rules: which checkpoints of a session matter most, and how old is old enough.

use super::{Error, Options};
use crate::files::undone_changes;
use crate::load::SessionLog;
use crate::model::{Checkpoint, Millis, TurnStatus};

/// The smallest idle age `older_than` can mean: anything shorter is treated as this, so a
/// session in use is never dropped by a typo or a saved setting (Qwen Code has the same floor).
pub const MIN_IDLE_MS: Millis = 60 * 60 * 1000;

const DAY_MS: Millis = 24 * 60 * 60 * 1000;

/// The idle age beyond which a session may go, or `None` (keep sessions whatever their age).
/// Zero is refused: it would drop every session, the one in use included.
pub(crate) fn idle_limit(opts: &Options) -> Result<Option<Millis>, Error> {
    let ms = match (opts.older_than_days, opts.older_than_ms) {
        (Some(_), Some(_)) => {
            return Err(Error::InvalidInput(
                "give olderThanDays or olderThanMs, not both".into(),
            ));
        }
        (None, None) => return Ok(None),
        (Some(days), None) => Millis::try_from(days)
            .unwrap_or(Millis::MAX / DAY_MS)
            .saturating_mul(DAY_MS),
        (None, Some(ms)) => Millis::try_from(ms).unwrap_or(Millis::MAX),
    };
    if ms == 0 {
        return Err(Error::InvalidInput(
            "older-than 0 would drop every session, including the one in use; give at least \
             one hour (shorter ages count as one hour), or leave it unset to keep sessions"
                .into(),
        ));
    }
    Ok(Some(ms.max(MIN_IDLE_MS)))
}

/// A turn on the active branch is still running: the session is in use whatever its age.
pub(crate) fn has_running_turn(log: &SessionLog) -> bool {
    log.turns
        .iter()
        .any(|t| t.status == TurnStatus::Running && log.session.branch.contains(t.prompt_seq))
}

/// How much a checkpoint matters to the person, most first: on the active branch and in
/// effect (0), only reached by an abandoned branch (1), every change already undone (2).
fn rank(
    log: &SessionLog,
    undone: &std::collections::BTreeSet<(crate::id::CheckpointId, crate::path::WorkPath)>,
    c: &Checkpoint,
) -> u8 {
    let all_undone = c
        .changes
        .iter()
        .all(|ch| undone.contains(&(c.id.clone(), ch.path.clone())));
    if all_undone {
        2
    } else if log.session.branch.contains(c.seq) {
        0
    } else {
        1
    }
}

/// Split a session's checkpoints into the `keep` that matter most (newest first within a
/// rank) and the rest; each dropped one says whether its changes are still in effect.
pub(crate) fn split(log: &SessionLog, keep: usize) -> (Vec<&Checkpoint>, Vec<(&Checkpoint, bool)>) {
    let undone = undone_changes(&log.operations);
    let mut ranked: Vec<(u8, &Checkpoint)> = log
        .checkpoints
        .iter()
        .map(|c| (rank(log, &undone, c), c))
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.seq.cmp(&a.1.seq)));
    let dropped = ranked.split_off(keep.min(ranked.len()));
    let mut dropped: Vec<(&Checkpoint, bool)> =
        dropped.into_iter().map(|(r, c)| (c, r < 2)).collect();
    dropped.sort_by_key(|(c, _)| c.seq);
    (ranked.into_iter().map(|(_, c)| c).collect(), dropped)
}
