//! # rewind-host
//!
//! The native library: the [`rewind_core`] engine over real storage. [`SqliteStore`] keeps
//! records in SQLite and [`PgStore`] in PostgreSQL (feature `postgres`, on by default),
//! [`DiskWorkspace`] reads and writes real files inside a root directory, and [`open`] /
//! [`open_with`] put them together with a real clock and random ids: with exactly the
//! [`Access`] a caller needs, the apply lock, store trust, and any journal a crash left behind
//! settled first. [`native`] holds what every front end shares: where the store is
//! (`native::locate`), the rights each verb needs (`native::Verb`) and the one way to open for a
//! call (`native::Opener`). [`rpc`] is the JSON dispatcher of the JS API's methods, which
//! `rewind serve` and the Node addon run.
//!
//! ## What this crate does not do
//!
//! It decides nothing about sessions, rewinds or conflicts (the core does), and it has no front
//! end: it parses no command line, prints nothing, and serves nothing. Reading a store never
//! writes a file; nothing outside the workspace root is ever written through
//! [`DiskWorkspace`], nor `.rewind/` or a store's own files inside it.
//!
//! ## Which crate instead
//!
//! The `rewind` CLI, an agent's hooks (`rewind hook`) and the JSON-RPC server (`rewind serve`)
//! are `rewind-cli` (`cli/`). In JavaScript: `rewind-node` (this library as a Node addon) or
//! `rewind-wasm` (the core in browsers). The pure engine and its ports alone, for a host of your
//! own: `rewind-core`. Examples: `docs/rust.md`.

// A library prints nothing: what it has to say goes back to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent_copy;
pub mod config;
pub mod current;
pub mod disk;
pub mod native;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod rpc;
pub mod sqlite;
pub mod store;
#[cfg(unix)]
pub mod watch;

pub use disk::DiskWorkspace;
pub use native::AnyStore;
pub use native::{
    Access, NativeEngine, NativeWorkspace, OpenError, OpenOptions, Opened, RandomIds, SystemClock,
    Trust, default_db_path, open, open_with, trust_store,
};
#[cfg(feature = "postgres")]
pub use postgres::PgStore;
pub use sqlite::{Durability, SqliteStore};
