//! rewind-host: the native host. [`SqliteStore`] keeps records in SQLite, [`DiskWorkspace`]
//! reads and writes real files inside a root directory, and [`open`] puts them together with a
//! real clock and random ids, settling any journal a crash left behind.

// Every byte of output goes through `cli::output`, which handles a closed pipe and a full disk.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agents;
pub mod cli;
pub mod config;
pub mod current;
pub mod disk;
pub mod hook;
pub mod native;
pub mod postgres;
pub mod rpc;
pub mod serve;
pub mod sqlite;
pub mod store;

pub use disk::DiskWorkspace;
pub use native::{
    Access, NativeEngine, NativeWorkspace, OpenError, OpenOptions, Opened, RandomIds, SystemClock,
    Trust, default_db_path, open, open_with, trust_store,
};
pub use postgres::PgStore;
pub use sqlite::{Durability, SqliteStore};
pub use store::AnyStore;
