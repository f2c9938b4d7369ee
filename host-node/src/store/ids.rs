//! The tables whose ids people type by prefix (`rewind undo 3f2a`), and the range every store's
//! prefix lookup scans: one seek of the id's unique index, whatever the store.

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
