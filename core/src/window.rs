//! Reads whose cost follows the turn, not the session: one message by id (and, in `load`, the
//! tail of a log from a seq on), the newest active messages, counts and the last compaction on the branch. The
//! everyday verbs (record, turn end, file rewinds of recent turns, conversation rewinds, undo,
//! edit/retry) use only these, so a 50,000-message session costs them what a short one does.

use crate::error::HostError;
use crate::id::{MessageId, SessionId};
use crate::load::{Decoded, Error, decode_rows as decode};
use crate::model::{Branch, Message, Session};
use crate::ports::{Row, SeqRange, Store};

/// How many rows a backward scan of the branch reads first; each further read doubles it.
const FIRST_SCAN: usize = 16;

/// One message, on any branch, which must exist and decode.
pub fn message(store: &dyn Store, session: &SessionId, id: &MessageId) -> Result<Message, Error> {
    let row = store.message(session, id)?.ok_or_else(|| Error::NotFound {
        what: "message",
        id: id.to_string(),
    })?;
    serde_json::from_str(&row.body).map_err(|e| Error::Corrupt {
        what: "message",
        id: row.id,
        reason: e.to_string(),
    })
}

/// The messages in a seq range that decode, plus diagnostics.
pub fn messages_in(
    store: &dyn Store,
    session: &SessionId,
    range: SeqRange,
) -> Result<Decoded<Message>, Error> {
    Ok(decode("message", store.messages_in(session, range)?))
}

/// The branch's ranges below `below`, newest first, as store ranges.
fn spans_below(branch: &Branch, below: u64) -> Vec<SeqRange> {
    let mut spans: Vec<SeqRange> = branch
        .ranges
        .iter()
        .map(|r| SeqRange::new(r.start, r.end.unwrap_or(u64::MAX).min(below)))
        .filter(|r| !r.is_empty())
        .collect();
    spans.reverse();
    spans
}

/// The newest message on the session's active branch with a seq below `below` for which `pick`
/// holds. Reads backwards in growing windows, so finding a recent one reads a few rows whatever
/// the session's length. Rows that do not decode are passed over, as the branch selection does.
pub fn latest_active(
    store: &dyn Store,
    session: &Session,
    below: u64,
    pick: impl Fn(&Message) -> bool,
) -> Result<Option<Message>, HostError> {
    for mut span in spans_below(&session.branch, below) {
        let mut limit = FIRST_SCAN;
        while !span.is_empty() {
            let rows = store.last_messages_in(&session.id, span, limit)?;
            let Some(oldest) = rows.first().map(|r| r.seq) else {
                break;
            };
            let exhausted = rows.len() < limit;
            let found = decode::<Message>("message", rows)
                .items
                .into_iter()
                .rev()
                .find(|m| pick(m));
            if found.is_some() {
                return Ok(found);
            }
            if exhausted {
                break;
            }
            span.to = oldest;
            limit = limit.saturating_mul(2);
        }
    }
    Ok(None)
}

/// How many messages of the active branch lie before `seq` (one count per branch range).
pub fn active_count_before(
    store: &dyn Store,
    session: &Session,
    seq: u64,
) -> Result<u64, HostError> {
    spans_below(&session.branch, seq)
        .into_iter()
        .map(|span| store.message_count_in(&session.id, span))
        .sum()
}

/// The last compaction summary on the active branch, if any.
pub fn last_boundary(store: &dyn Store, session: &Session) -> Result<Option<Message>, HostError> {
    let rows = store.boundaries(&session.id)?;
    let on_branch: Vec<Row> = rows
        .into_iter()
        .filter(|r| session.branch.contains(r.seq))
        .collect();
    Ok(decode::<Message>("message", on_branch)
        .items
        .into_iter()
        .rev()
        .find(|m| m.compaction.is_some()))
}
