//! # rewind-core
//!
//! The pure engine behind rewind: it records what an AI coding agent does in a session and
//! rewinds the conversation, the workspace files, or both, with every conflict shown before
//! anything is written and every write journaled so it can be undone or recovered.
//!
//! ## What this crate does not do
//!
//! No I/O, no clock, no randomness, no environment. Records come from a [`ports::Store`], files
//! from a [`ports::Workspace`], time from a [`ports::Clock`] and fresh ids from a
//! [`ports::IdSource`]; hosts implement those small sync traits (SQLite and real files natively,
//! JavaScript callbacks in wasm, `mem::MemStore` and `testkit` in memory). `core/clippy.toml`
//! enforces this.
//!
//! ## Which crate instead
//!
//! To record into SQLite or PostgreSQL and rewind real files from Rust, use `rewind-host`
//! (`host-node/`: `rewind_host::open`), which wraps this engine in the native ports, the apply
//! lock and crash recovery. From a terminal or an agent's hooks, the `rewind` binary
//! (`rewind-cli`, `cli/`); from another language, `rewind serve`. From JavaScript, `rewind-wasm`
//! (browsers, Node in memory) or `rewind-node` (Node on the CLI's store). The guides:
//! `README.md` and `docs/` (`docs/rust.md` for this crate).
//!
//! ## The loop
//!
//! ```text
//!   request ─► load (Store reads, tolerant decoding) ─► plan (pure; reads the Workspace)
//!                                                         │  conflicts are data in the plan
//!                                                         ▼
//!   outcome ◄─ commit {operation, clear journal} ◄─ write files (re-check each hash first)
//!                                                         ▲
//!                                          commit {journal: every path's current bytes}
//! ```
//!
//! ## End to end
//!
//! ```
//! use rewind_core::Engine;
//! use rewind_core::files::{ApplyOptions, TargetOptions};
//! use rewind_core::model::{CheckpointKind, Policy};
//! use rewind_core::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
//! use rewind_core::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
//! use rewind_core::undo;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut engine = Engine::new(MemStore::new(), MemWorkspace::new(), TickClock::default(), SeqIds::default());
//! engine.workspace_mut().put("src/lib.rs", "fn foo() {}\n");
//!
//! let session = engine.create_session(SessionOptions::default())?.id;
//! let turn = engine.record_prompt(&session, PromptOptions { text: "rename foo".into(), payload: None })?;
//! // The agent's tool rewrote the file; record exactly what it replaced.
//! engine.workspace_mut().put("src/lib.rs", "fn bar() {}\n");
//! engine.record_edit(&session, EditOptions {
//!     turn_id: turn.turn_id.clone(),
//!     tool_name: "Edit".into(),
//!     tool_call_id: None,
//!     tool_message_id: None,
//!     kind: CheckpointKind::Edit,
//!     changes: vec![EditChange {
//!         path: "src/lib.rs".into(),
//!         before: Some(b"fn foo() {}\n".to_vec()),
//!         after: Some(b"fn bar() {}\n".to_vec()),
//!         patch: None,
//!         before_mode: None,
//!         after_mode: None,
//!     }],
//! })?;
//!
//! // Preview, then apply: back to before the prompt.
//! let since = TargetOptions { since: Some(turn.message_id.clone()), ..TargetOptions::default() };
//! let preview = engine.preview_file_rewind(&session, since.clone())?;
//! assert!(preview.can_apply);
//! let done = engine.apply_file_rewind(&session, ApplyOptions { target: since, policy: Policy::Block })?;
//! assert_eq!(engine.workspace().get("src/lib.rs"), Some(&b"fn foo() {}\n"[..]));
//!
//! // And the rewind itself can be undone.
//! let operation_id = done.operation_id.expect("applied");
//! engine.undo(&session, undo::Options { operation_id: Some(operation_id), policy: Policy::Block })?;
//! assert_eq!(engine.workspace().get("src/lib.rs"), Some(&b"fn bar() {}\n"[..]));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod agent_resume;
pub mod batch;
pub mod both;
pub mod branch;
pub mod conversation;
pub mod ctx;
mod cursor;
pub mod engine;
pub mod error;
pub mod files;
pub mod fork;
pub mod gc;
pub mod hash;
pub mod id;
pub mod load;
#[cfg(feature = "mem")]
pub mod mem;
pub mod model;
pub mod node;
pub mod patch;
pub mod path;
pub mod ports;
pub mod record;
pub mod recover;
pub mod refs;
pub mod remove;
pub mod rename;
pub mod replay;
pub mod resume;
pub mod revise;
pub mod rewind;
pub mod shell;
pub mod stats;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod undo;
pub mod v4a;
pub mod window;

pub use engine::Engine;
pub use error::{Coded, ErrorKind, HostError, HostErrorKind};
