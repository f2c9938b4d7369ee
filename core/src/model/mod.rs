//! The recorded domain model. Everything here is appended, never rewritten in place, except a
//! session's branch cursor and a turn's status, which move forward under preconditions.

mod checkpoint;
mod glance;
mod journal;
mod message;
mod operation;
mod session;
mod snapshot;
mod turn;

pub use checkpoint::{Capture, Checkpoint, CheckpointKind, FileChange, FileVersion, NodeKind};
pub(crate) use glance::Message as MessageGlance;
pub use journal::{Journal, JournalEntry};
pub use message::{Compaction, ForkOrigin, Message, MessageKind, MessageStatus, Part, Role};
pub use operation::{CursorBefore, FileAction, OpFile, OpTarget, Operation, OperationKind, Policy};
pub use session::{AgentSession, Branch, SeqRange, Session, SessionKind};
pub use snapshot::WorkspaceSnapshot;
pub use turn::{StableBoundary, Turn, TurnStatus};

/// Milliseconds since the Unix epoch, as handed out by the host's `Clock`.
pub type Millis = i64;
