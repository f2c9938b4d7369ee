//! What the stores share: the blob row rules (`blobs`), the apply lock's rules (`lock`), and
//! [`AnyStore`], the store the native engine runs on (SQLite, the embedded default, or
//! PostgreSQL).

mod any;
pub(crate) mod blobs;
pub(crate) mod lock;
pub(crate) mod precondition;
pub(crate) mod refusal;

pub use any::AnyStore;
