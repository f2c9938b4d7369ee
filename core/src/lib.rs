//! rewind-core: the pure engine.
#![forbid(unsafe_code)]

pub mod batch;
pub mod both;
pub mod branch;
pub mod conversation;
pub mod ctx;
pub mod edit;
pub mod engine;
pub mod error;
pub mod files;
pub mod hash;
pub mod id;
pub mod load;
pub mod model;
pub mod patch;
pub mod path;
pub mod ports;
pub mod record;
pub mod recover;
pub mod resume;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod undo;

pub use engine::Engine;
pub use error::{ErrorKind, HostError, HostErrorKind};
