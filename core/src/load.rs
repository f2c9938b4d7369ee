//! Typed reads over the `Store` port. Rows that fail to decode become [`Diagnostic`]s: they are
//! reported, never silently dropped, and never abort a read of the rest.

use crate::error::{ErrorKind, HostError};
use crate::hash::ContentHash;
use crate::id::{SessionId, TurnId};
use crate::model::{Checkpoint, Journal, Message, Operation, Session, Turn};
use crate::ports::{Row, SeqRange, Store};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A stored row the engine could not decode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Record kind: `message`, `checkpoint`, `turn`, `operation`, `journal`, `blob`.
    pub kind: String,
    /// The row's id.
    pub id: String,
    /// The row's seq, where it has one.
    pub seq: u64,
    /// Why it could not be used.
    pub reason: String,
}

/// Failures of a typed read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No such record.
    #[error("{what} {id} was not found")]
    NotFound {
        /// Record kind.
        what: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The record exists but does not decode.
    #[error("{what} {id} is corrupt: {reason}")]
    Corrupt {
        /// Record kind.
        what: &'static str,
        /// Its id.
        id: String,
        /// Decoder message.
        reason: String,
    },
    /// The store failed.
    #[error("reading the store failed: {0}")]
    Host(#[from] HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::NotFound { .. } => ErrorKind::NotFound,
            Self::Corrupt { .. } => ErrorKind::Corrupt,
            Self::Host(e) => e.error_kind(),
        }
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

/// Records that decoded, plus diagnostics for those that did not.
#[derive(Clone, Debug)]
pub struct Decoded<T> {
    /// In store order.
    pub items: Vec<T>,
    /// One per undecodable row.
    pub diagnostics: Vec<Diagnostic>,
}

pub(crate) fn decode_rows<T: DeserializeOwned>(what: &str, rows: Vec<Row>) -> Decoded<T> {
    let mut items = Vec::with_capacity(rows.len());
    let mut diagnostics = Vec::new();
    for row in rows {
        match serde_json::from_str(&row.body) {
            Ok(item) => items.push(item),
            Err(e) => diagnostics.push(Diagnostic {
                kind: what.to_owned(),
                id: row.id,
                seq: row.seq,
                reason: e.to_string(),
            }),
        }
    }
    Decoded { items, diagnostics }
}

pub(crate) fn decode_one<T: DeserializeOwned>(what: &'static str, row: Row) -> Result<T, Error> {
    serde_json::from_str(&row.body).map_err(|e| Error::Corrupt {
        what,
        id: row.id,
        reason: e.to_string(),
    })
}

/// Encode a record for a `Write`. Model types always serialise.
pub(crate) fn encode<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("model types serialise to JSON without failure")
}

/// One session, which must exist.
pub fn session(store: &dyn Store, id: &SessionId) -> Result<Session, Error> {
    let row = store.session(id)?.ok_or_else(|| Error::NotFound {
        what: "session",
        id: id.to_string(),
    })?;
    decode_one("session", row)
}

/// Every session that decodes, plus diagnostics.
pub fn sessions(store: &dyn Store) -> Result<Decoded<Session>, Error> {
    Ok(decode_rows("session", store.sessions()?))
}

/// A session's transcript.
pub fn messages(store: &dyn Store, id: &SessionId) -> Result<Decoded<Message>, Error> {
    Ok(decode_rows("message", store.messages(id)?))
}

/// One turn, which must exist.
pub fn turn(store: &dyn Store, session: &SessionId, id: &TurnId) -> Result<Turn, Error> {
    let row = store.turn(session, id)?.ok_or_else(|| Error::NotFound {
        what: "turn",
        id: id.to_string(),
    })?;
    decode_one("turn", row)
}

/// A session's turns.
pub fn turns(store: &dyn Store, id: &SessionId) -> Result<Decoded<Turn>, Error> {
    Ok(decode_rows("turn", store.turns(id)?))
}

/// A session's checkpoints.
pub fn checkpoints(store: &dyn Store, id: &SessionId) -> Result<Decoded<Checkpoint>, Error> {
    Ok(decode_rows("checkpoint", store.checkpoints(id)?))
}

/// The checkpoints recorded into one turn, by seq (one index range in every shipped store).
pub fn turn_checkpoints(
    store: &dyn Store,
    session: &SessionId,
    turn: &TurnId,
) -> Result<Decoded<Checkpoint>, Error> {
    Ok(decode_rows(
        "checkpoint",
        store.turn_checkpoints(session, turn)?,
    ))
}

/// One message by id, on any branch (`None`: absent). A keyed read, whatever the session's length.
pub fn message(
    store: &dyn Store,
    session: &SessionId,
    id: &crate::id::MessageId,
) -> Result<Option<Message>, Error> {
    store
        .message(session, id)?
        .map(|row| decode_one("message", row))
        .transpose()
}

/// A session's operation log.
pub fn operations(store: &dyn Store, id: &SessionId) -> Result<Decoded<Operation>, Error> {
    Ok(decode_rows("operation", store.operations(id)?))
}

/// Every pending journal.
pub fn journals(store: &dyn Store) -> Result<Decoded<Journal>, Error> {
    Ok(decode_rows("journal", store.journals()?))
}

/// Why a blob cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The store has no blob with this hash (e.g. dropped by retention).
    #[error("blob {0} is missing from the store")]
    Missing(ContentHash),
    /// The stored bytes do not hash to their key.
    #[error("blob {0} is corrupt: its bytes do not match its hash")]
    Mismatch(ContentHash),
    /// The store failed.
    #[error("reading blob failed: {0}")]
    Host(#[from] HostError),
}

/// A blob's bytes, verified against its hash: corrupt content is never handed out.
pub fn blob(store: &dyn Store, hash: &ContentHash) -> Result<Vec<u8>, BlobError> {
    let bytes = store
        .blob(hash)?
        .ok_or_else(|| BlobError::Missing(hash.clone()))?;
    if &ContentHash::of(&bytes) != hash {
        return Err(BlobError::Mismatch(hash.clone()));
    }
    Ok(bytes)
}

/// Everything recorded for one session, decoded once and shared by the derived-state functions.
#[derive(Clone, Debug)]
pub struct SessionLog {
    /// The session row.
    pub session: Session,
    /// The whole transcript, every branch, by seq.
    pub messages: Vec<Message>,
    /// Every turn.
    pub turns: Vec<Turn>,
    /// Every checkpoint, by seq.
    pub checkpoints: Vec<Checkpoint>,
    /// The operation log, in commit order.
    pub operations: Vec<Operation>,
    /// Rows that did not decode.
    pub diagnostics: Vec<Diagnostic>,
}

impl SessionLog {
    /// Load and decode a session's whole log.
    pub fn load(store: &dyn Store, id: &SessionId) -> Result<Self, Error> {
        Self::tail(store, id, 0)
    }

    /// The log from `from` on: the messages, turns and checkpoints whose seq is at least `from`,
    /// and the whole operation log (it grows with rewinds, not with messages, and says which
    /// changes are already undone). A verb that looks up only records at or after `from` sees
    /// exactly what [`SessionLog::load`] would have shown it.
    pub fn tail(store: &dyn Store, id: &SessionId, from: u64) -> Result<Self, Error> {
        let session = session(store, id)?;
        let range = SeqRange::from(from);
        let messages = decode_rows::<Message>("message", store.messages_in(id, range)?);
        let turns = decode_rows("turn", store.turns_in(id, range)?);
        let checkpoints = decode_rows("checkpoint", store.checkpoints_in(id, range)?);
        let operations = operations(store, id)?;
        let mut diagnostics = messages.diagnostics;
        diagnostics.extend(turns.diagnostics);
        diagnostics.extend(checkpoints.diagnostics);
        diagnostics.extend(operations.diagnostics);
        Ok(Self {
            session,
            messages: messages.items,
            turns: turns.items,
            checkpoints: checkpoints.items,
            operations: operations.items,
            diagnostics,
        })
    }

    /// A message by id, on any branch.
    pub fn message(&self, id: &crate::id::MessageId) -> Option<&Message> {
        self.messages.iter().find(|m| &m.id == id)
    }

    /// A turn by id.
    pub fn turn(&self, id: &TurnId) -> Option<&Turn> {
        self.turns.iter().find(|t| &t.id == id)
    }
}
