//! The store ports over a JS store object. The range reads use the host's optional callbacks
//! (`messagesIn`, `message`, …) when it has them and fall back to the port's defaults (built on
//! the whole-session reads) when it does not. Seq ranges cross as `from, to` numbers with
//! `to = null` for open-ended: `u64::MAX` is not a JS number.
//!
//! `workspaceSnapshot(sessionId)` is optional too, but has no fallback: no other read holds the
//! row. Without it the store keeps no snapshots, so `snapshotWorkspace` refuses to start (a
//! store that dropped them would make every snapshot a first one), and every other verb reads
//! "no snapshot".

use super::{StoreHost, Thrown};
use crate::convert;
use js_sys::{Function, Uint8Array};
use rewind_core::batch::Batch;
use rewind_core::error::{HostError, HostErrorKind};
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use rewind_core::ports::{BlobInfo, Row, SeqRange, Store, StoreWrite, WholeReads};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// A row as a JS store returns it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowIn {
    id: String,
    seq: u64,
    body: String,
}

impl From<RowIn> for Row {
    fn from(r: RowIn) -> Self {
        Self {
            id: r.id,
            seq: r.seq,
            body: r.body,
        }
    }
}

/// A blob entry as a JS store returns it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BlobIn {
    hash: String,
    size: u64,
    stored: u64,
}

/// The optional range callbacks of a store host, looked up once when the engine is made.
#[derive(Debug, Default)]
struct RangeCallbacks {
    message: Option<Function>,
    messages_in: Option<Function>,
    last_messages_in: Option<Function>,
    message_count_in: Option<Function>,
    boundaries: Option<Function>,
    turns_in: Option<Function>,
    checkpoint: Option<Function>,
    checkpoints_in: Option<Function>,
    session_bytes: Option<Function>,
    has_blob: Option<Function>,
}

impl RangeCallbacks {
    fn of(host: &JsValue) -> Self {
        let f = |name: &str| {
            js_sys::Reflect::get(host, &JsValue::from_str(name))
                .ok()
                .filter(JsValue::is_function)
                .map(JsCast::unchecked_into::<Function>)
        };
        Self {
            message: f("message"),
            messages_in: f("messagesIn"),
            last_messages_in: f("lastMessagesIn"),
            message_count_in: f("messageCountIn"),
            boundaries: f("boundaries"),
            turns_in: f("turnsIn"),
            checkpoint: f("checkpoint"),
            checkpoints_in: f("checkpointsIn"),
            session_bytes: f("sessionBytes"),
            has_blob: f("hasBlob"),
        }
    }
}

/// `from, to` as JS arguments; an open end is `null`.
fn range_args(session: &SessionId, range: SeqRange) -> [JsValue; 3] {
    let to = match range.to {
        u64::MAX => JsValue::NULL,
        #[allow(clippy::cast_precision_loss)]
        to => JsValue::from_f64(to as f64),
    };
    #[allow(clippy::cast_precision_loss)]
    let from = JsValue::from_f64(range.from as f64);
    [JsValue::from_str(session.as_str()), from, to]
}

/// The store ports over a JS object.
#[derive(Debug)]
pub(crate) struct JsStore {
    host: StoreHost,
    thrown: Thrown,
    ranges: RangeCallbacks,
    /// The optional `workspaceSnapshot(sessionId)`, looked up once.
    workspace_snapshot: Option<Function>,
}

impl JsStore {
    pub(crate) fn new(host: StoreHost, thrown: Thrown) -> Self {
        let ranges = RangeCallbacks::of(&host);
        let workspace_snapshot = js_sys::Reflect::get(&host, &"workspaceSnapshot".into())
            .ok()
            .filter(JsValue::is_function)
            .map(JsCast::unchecked_into);
        Self {
            host,
            thrown,
            ranges,
            workspace_snapshot,
        }
    }

    /// Whether the host keeps workspace snapshots (has `workspaceSnapshot`).
    pub(crate) fn keeps_workspace_snapshots(&self) -> bool {
        self.workspace_snapshot.is_some()
    }

    /// Call an optional callback with `args`.
    fn call_opt(&self, f: &Function, args: &[JsValue]) -> Result<JsValue, HostError> {
        let args: js_sys::Array = args.iter().collect();
        f.apply(&self.host, &args)
            .map_err(|e| self.thrown.host_error(e))
    }

    fn call(
        &self,
        f: impl FnOnce(&StoreHost) -> Result<JsValue, JsValue>,
    ) -> Result<JsValue, HostError> {
        f(&self.host).map_err(|e| self.thrown.host_error(e))
    }

    fn decode<T: serde::de::DeserializeOwned>(
        what: &str,
        expected: &str,
        v: &JsValue,
    ) -> Result<T, HostError> {
        serde_wasm_bindgen::from_value(v.clone()).map_err(|e| {
            HostError::io(format!(
                "{what} returned {expected} of the wrong shape: {e}"
            ))
        })
    }

    fn row(&self, what: &str, v: &JsValue) -> Result<Option<Row>, HostError> {
        let row: Option<RowIn> = Self::decode(what, "a row ({ id, seq, body }) or null", v)?;
        Ok(row.map(Row::from))
    }

    fn rows(&self, what: &str, v: &JsValue) -> Result<Vec<Row>, HostError> {
        let rows: Vec<RowIn> = Self::decode(what, "an array of rows ({ id, seq, body })", v)?;
        Ok(rows.into_iter().map(Row::from).collect())
    }
}

impl Store for JsStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        let v = self.call(|h| h.session(id.as_str()))?;
        self.row("store.session", &v)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        let v = self.call(StoreHost::sessions)?;
        self.rows("store.sessions", &v)
    }
    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.messages(session.as_str()))?;
        self.rows("store.messages", &v)
    }
    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        let v = self.call(|h| h.turn(session.as_str(), turn.as_str()))?;
        self.row("store.turn", &v)
    }
    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.turns(session.as_str()))?;
        self.rows("store.turns", &v)
    }
    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.checkpoints(session.as_str()))?;
        self.rows("store.checkpoints", &v)
    }
    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let v = self.call(|h| h.operations(session.as_str()))?;
        self.rows("store.operations", &v)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        let v = self.call(StoreHost::journals)?;
        self.rows("store.journals", &v)
    }
    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        let v = self.call(|h| h.blob(hash.as_str()))?;
        convert::opt_bytes(&v)
            .ok_or_else(|| Thrown::bad_shape("store.blob", "a Uint8Array or null", &v))
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        let v = self.call(StoreHost::blobs)?;
        let list: Vec<BlobIn> =
            Self::decode("store.blobs", "an array of { hash, size, stored }", &v)?;
        list.into_iter()
            .map(|b| {
                let hash = ContentHash::parse(&b.hash).ok_or_else(|| {
                    HostError::new(
                        HostErrorKind::Corrupt,
                        format!(
                            "store.blobs returned {:?}, which is not a content hash",
                            b.hash
                        ),
                    )
                })?;
                Ok(BlobInfo {
                    hash,
                    size: b.size,
                    stored: b.stored,
                    base: None,
                })
            })
            .collect()
    }
    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        let v = self.call(|h| h.last_seq(session.as_str()))?;
        Self::decode("store.lastSeq", "a number", &v)
    }
    fn command_fact(
        &self,
        parent: &SessionId,
        command: &CommandId,
    ) -> Result<Option<Row>, HostError> {
        let v = self.call(|h| h.command_fact(parent.as_str(), command.as_str()))?;
        self.row("store.commandFact", &v)
    }
    fn version(&self) -> Result<u64, HostError> {
        let v = self.call(StoreHost::version)?;
        Self::decode("store.version", "a number", &v)
    }
    fn workspace_snapshot(&self, session: &SessionId) -> Result<Option<Row>, HostError> {
        // Without the callback the host never stored one (snapshotWorkspace refuses such a
        // store up front), so there is none to find.
        let Some(f) = &self.workspace_snapshot else {
            return Ok(None);
        };
        let v = self.call_opt(f, &[session.as_str().into()])?;
        self.row("store.workspaceSnapshot", &v)
    }
    fn message(&self, session: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        let Some(f) = &self.ranges.message else {
            return WholeReads(self).message(session, id);
        };
        let v = self.call_opt(f, &[session.as_str().into(), id.as_str().into()])?;
        self.row("store.message", &v)
    }
    fn messages_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let Some(f) = &self.ranges.messages_in else {
            return WholeReads(self).messages_in(session, range);
        };
        let v = self.call_opt(f, &range_args(session, range))?;
        self.rows("store.messagesIn", &v)
    }
    fn last_messages_in(
        &self,
        session: &SessionId,
        range: SeqRange,
        limit: usize,
    ) -> Result<Vec<Row>, HostError> {
        let Some(f) = &self.ranges.last_messages_in else {
            return WholeReads(self).last_messages_in(session, range, limit);
        };
        let [s, from, to] = range_args(session, range);
        #[allow(clippy::cast_precision_loss)]
        let limit = JsValue::from_f64(limit as f64);
        let v = self.call_opt(f, &[s, from, to, limit])?;
        self.rows("store.lastMessagesIn", &v)
    }
    fn message_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        let Some(f) = &self.ranges.message_count_in else {
            return WholeReads(self).message_count_in(session, range);
        };
        let v = self.call_opt(f, &range_args(session, range))?;
        Self::decode("store.messageCountIn", "a number", &v)
    }
    fn boundaries(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        let Some(f) = &self.ranges.boundaries else {
            return WholeReads(self).boundaries(session);
        };
        let v = self.call_opt(f, &[session.as_str().into()])?;
        self.rows("store.boundaries", &v)
    }
    fn turns_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let Some(f) = &self.ranges.turns_in else {
            return WholeReads(self).turns_in(session, range);
        };
        let v = self.call_opt(f, &range_args(session, range))?;
        self.rows("store.turnsIn", &v)
    }
    fn checkpoint(&self, session: &SessionId, id: &CheckpointId) -> Result<Option<Row>, HostError> {
        let Some(f) = &self.ranges.checkpoint else {
            return WholeReads(self).checkpoint(session, id);
        };
        let v = self.call_opt(f, &[session.as_str().into(), id.as_str().into()])?;
        self.row("store.checkpoint", &v)
    }
    fn checkpoints_in(&self, session: &SessionId, range: SeqRange) -> Result<Vec<Row>, HostError> {
        let Some(f) = &self.ranges.checkpoints_in else {
            return WholeReads(self).checkpoints_in(session, range);
        };
        let v = self.call_opt(f, &range_args(session, range))?;
        self.rows("store.checkpointsIn", &v)
    }
    fn session_bytes(&self, session: &SessionId) -> Result<u64, HostError> {
        let Some(f) = &self.ranges.session_bytes else {
            return WholeReads(self).session_bytes(session);
        };
        let v = self.call_opt(f, &[session.as_str().into()])?;
        Self::decode("store.sessionBytes", "a number", &v)
    }
    fn has_blob(&self, hash: &ContentHash) -> Result<bool, HostError> {
        let Some(f) = &self.ranges.has_blob else {
            return WholeReads(self).has_blob(hash);
        };
        let v = self.call_opt(f, &[hash.as_str().into()])?;
        v.as_bool()
            .ok_or_else(|| Thrown::bad_shape("store.hasBlob", "a boolean", &v))
    }
}

impl StoreWrite for JsStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        let bytes = Uint8Array::from(batch.to_bytes().as_slice());
        self.call(|h| h.commit(&bytes))?;
        Ok(())
    }
}
