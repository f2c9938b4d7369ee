//! The tables whose ids people type by prefix (`rewind undo 3f2a`) are the core's
//! ([`IdTable`], looked up through `Store::ids_with_prefix`); here, the range every SQL store's
//! prefix lookup scans: one seek of the id's unique index, whatever the store.

pub use rewind_core::ports::IdTable;
use rewind_core::ports::upper_bound;

/// The SQL side of an [`IdTable`].
pub(crate) trait PrefixScan {
    /// The table, whether its ids belong to a session, and the upper bound of the ids starting
    /// with `prefix` (ASCII): what every store's prefix lookup scans.
    fn prefix_scan(self, prefix: &str) -> (&'static str, bool, String);
}

impl PrefixScan for IdTable {
    fn prefix_scan(self, prefix: &str) -> (&'static str, bool, String) {
        let hi = upper_bound(prefix).unwrap_or_else(|| "\u{7f}".repeat(prefix.len() + 1));
        let name = match self {
            Self::Sessions => "sessions",
            Self::Journals => "journals",
            Self::Messages => "messages",
            Self::Turns => "turns",
            Self::Checkpoints => "checkpoints",
            Self::Operations => "operations",
        };
        (name, self.per_session(), hi)
    }
}
