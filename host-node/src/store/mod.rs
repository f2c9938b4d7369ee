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
