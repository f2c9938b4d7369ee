//! The tables whose ids people type by prefix (`rewind undo 3f2a`, `since: '3f2a'`), and the
//! default prefix lookup a store without an index of its own answers with.

use super::{Row, Store};
use crate::error::HostError;
use crate::id::SessionId;

/// The tables whose ids can be typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdTable {
    /// `ses_…`, store-wide.
    Sessions,
    /// `msg_…`, within a session.
    Messages,
    /// `trn_…`, within a session.
    Turns,
    /// `ckp_…`, within a session.
    Checkpoints,
    /// `op_…`, within a session.
    Operations,
    /// `jnl_…`, store-wide.
    Journals,
}

impl IdTable {
    /// Whether its ids belong to a session.
    pub fn per_session(self) -> bool {
        !matches!(self, Self::Sessions | Self::Journals)
    }
}

/// The smallest string greater than every string starting with `prefix` (ASCII ids), or `None`
/// when there is none (a prefix of only `\x7f`s): the upper end of a prefix's range scan.
pub fn upper_bound(prefix: &str) -> Option<String> {
    let mut bytes = prefix.as_bytes().to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0x7f {
            bytes.push(last + 1);
            return String::from_utf8(bytes).ok();
        }
    }
    None
}

/// [`Store::ids_with_prefix`] from the whole reads: correct for any store, linear in the rows.
pub(super) fn by_whole_reads<S: Store + ?Sized>(
    store: &S,
    table: IdTable,
    session: Option<&SessionId>,
    prefix: &str,
    limit: usize,
) -> Result<Vec<String>, HostError> {
    let of = |s: &SessionId| -> Result<Vec<Row>, HostError> {
        match table {
            IdTable::Messages => store.messages(s),
            IdTable::Turns => store.turns(s),
            IdTable::Checkpoints => store.checkpoints(s),
            _ => store.operations(s),
        }
    };
    let rows = match (table, session) {
        (IdTable::Sessions, _) => store.sessions()?,
        (IdTable::Journals, _) => store.journals()?,
        (_, Some(s)) => of(s)?,
        (_, None) => {
            let mut all = Vec::new();
            for s in store.sessions()? {
                if let Ok(id) = SessionId::parse(&s.id) {
                    all.extend(of(&id)?);
                }
            }
            all
        }
    };
    let mut ids: Vec<String> = rows
        .into_iter()
        .map(|r| r.id)
        .filter(|id| id.starts_with(prefix))
        .collect();
    ids.sort();
    ids.dedup();
    ids.truncate(limit);
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::upper_bound;

    #[test]
    fn the_upper_bound_is_just_past_every_extension() {
        assert_eq!(upper_bound("ses_ab").as_deref(), Some("ses_ac"));
        assert_eq!(upper_bound("a\u{7f}").as_deref(), Some("b"));
        assert_eq!(upper_bound("\u{7f}"), None);
    }
}
