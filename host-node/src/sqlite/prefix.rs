//! Ids by prefix, for people typing short ids (`rewind undo 3f2a`). Each lookup is one range
//! scan of the id's unique index, so its cost does not grow with the session.

use super::{SqliteStore, error};
use rewind_core::HostError;
use rewind_core::id::SessionId;

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
    /// The table, whether its ids belong to a session, and the upper bound of the ids starting
    /// with `prefix` (ASCII): what every store's prefix lookup scans.
    pub(crate) fn prefix_scan(self, prefix: &str) -> (&'static str, bool, String) {
        let hi = upper_bound(prefix).unwrap_or_else(|| "\u{7f}".repeat(prefix.len() + 1));
        let (name, per_session) = self.table();
        (name, per_session, hi)
    }

    /// The table, and whether its ids belong to a session.
    fn table(self) -> (&'static str, bool) {
        match self {
            Self::Sessions => ("sessions", false),
            Self::Journals => ("journals", false),
            Self::Messages => ("messages", true),
            Self::Turns => ("turns", true),
            Self::Checkpoints => ("checkpoints", true),
            Self::Operations => ("operations", true),
        }
    }
}

/// The smallest string greater than every string starting with `prefix` (ASCII ids), or `None`
/// when there is none (a prefix of only `\x7f`s).
fn upper_bound(prefix: &str) -> Option<String> {
    let mut bytes = prefix.as_bytes().to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0x7f {
            bytes.push(last + 1);
            return String::from_utf8(bytes).ok();
        }
    }
    None
}

impl SqliteStore {
    /// Up to `limit` ids of `table` starting with `prefix`, sorted; within `session` for the
    /// tables that belong to one (every table but sessions and journals; operations also
    /// store-wide without one).
    pub fn ids_with_prefix(
        &self,
        table: IdTable,
        session: Option<&SessionId>,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, HostError> {
        let fail = |e| error::host("cannot look up ids by prefix", e);
        if !prefix.is_ascii() {
            return Ok(Vec::new());
        }
        let (name, per_session, hi) = table.prefix_scan(prefix);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // `id >= lo AND id < hi` rather than LIKE or GLOB: ids are ASCII and case matters, and a
        // range is what SQLite turns into a seek of the (session_id, id) or id index.
        let scope = match session {
            Some(s) if per_session => Some(s.as_str()),
            _ => None,
        };
        let sql = if scope.is_some() {
            format!(
                "SELECT id FROM {name} WHERE session_id = ?4 AND id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3"
            )
        } else {
            format!("SELECT id FROM {name} WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3")
        };
        let mut stmt = self.conn.prepare_cached(&sql).map_err(fail)?;
        let params: Vec<&dyn rusqlite::ToSql> = match &scope {
            Some(s) => vec![&prefix, &hi, &limit, s],
            None => vec![&prefix, &hi, &limit],
        };
        stmt.query_map(params.as_slice(), |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(fail)
    }
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
