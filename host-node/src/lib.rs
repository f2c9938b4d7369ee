//! rewind-host: the native host. [`SqliteStore`] keeps records in SQLite (and, with the
//! default `postgres` feature, `PgStore` in PostgreSQL), [`DiskWorkspace`] reads and writes
//! real files inside a root directory, and [`open`] puts them together with a real clock and
//! random ids, settling any journal a crash left behind. [`native`] holds what every front end
//! shares: where the store is (`native::locate`), the rights each verb needs (`native::Verb`)
//! and the one way to open for a call (`native::Opener`); [`rpc`] is the JSON dispatcher of
//! the JS API's methods.
//!
//! It has no front end: no argument parsing, no terminal, no server, and it prints nothing.
//! The `rewind` command (CLI, agent hook, JSON-RPC server) is `rewind-cli`; the Node addon is
//! `rewind-node`; the engine itself, pure and host-agnostic, is `rewind-core`.

// A library prints nothing: what it has to say goes back to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod config;
pub mod current;
pub mod disk;
pub mod native;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod rpc;
pub mod sqlite;
pub mod store;

pub use disk::DiskWorkspace;
pub use native::AnyStore;
pub use native::{
    Access, NativeEngine, NativeWorkspace, OpenError, OpenOptions, Opened, RandomIds, SystemClock,
    Trust, default_db_path, open, open_with, trust_store,
};
#[cfg(feature = "postgres")]
pub use postgres::PgStore;
pub use sqlite::{Durability, SqliteStore};
