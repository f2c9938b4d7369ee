//! What the stores share, below both of them: the blob row rules (`blobs`), the apply lock's
//! rules (`lock`), the preconditions a batch is checked against, refusals, and the tables whose
//! ids can be typed by prefix ([`IdTable`]). The store the native engine runs on, either of
//! them, is [`crate::native::AnyStore`].

pub(crate) mod blobs;
mod ids;
pub(crate) mod lock;
pub(crate) mod precondition;
pub(crate) mod refusal;

pub use ids::IdTable;
pub(crate) use ids::PrefixScan;

/// The turn column of a `PutCheckpoint`: what the write carries, or for a batch persisted
/// before writes carried it, the body's `turnId`.
pub(crate) fn turn_of<'a>(
    turn: Option<&'a rewind_core::id::TurnId>,
    body: &str,
) -> Option<std::borrow::Cow<'a, str>> {
    match turn {
        Some(t) => Some(std::borrow::Cow::Borrowed(t.as_str())),
        None => rewind_core::ports::probe_turn(body).map(std::borrow::Cow::Owned),
    }
}
