//! Small batches the contract tests (and adapters' own tests) build stores from: a session id
//! from a short name, the batch that creates it, and a message write.

use crate::batch::{Batch, Precondition, Write};
use crate::id::{MessageId, SessionId};

/// The session id `ses_{n}`.
pub fn sid(n: &str) -> SessionId {
    SessionId::parse(&format!("ses_{n}")).expect("valid")
}

/// A batch that creates session `n` (body `{"n":"…"}`), refused if it exists.
pub fn create(n: &str) -> Batch {
    let mut b = Batch::new();
    b.require(Precondition::SessionAbsent(sid(n)));
    b.push(Write::CreateSession {
        session: sid(n),
        body: format!("{{\"n\":\"{n}\"}}"),
    });
    b
}

/// Message `msg_{n}{seq}` of session `n` at `seq` (body `{"seq":…}`).
pub fn msg(n: &str, seq: u64) -> Write {
    Write::AppendMessage {
        session: sid(n),
        seq,
        message: MessageId::parse(&format!("msg_{n}{seq}")).expect("valid"),
        body: format!("{{\"seq\":{seq}}}"),
        boundary: false,
    }
}
