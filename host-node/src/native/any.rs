//! [`AnyStore`]: the store the native engine runs on, SQLite (the embedded default) or
//! PostgreSQL (`--store postgres://…`, with the `postgres` feature), so every CLI command, hook
//! and RPC method works unchanged on either. Every port method delegates; so do the few host methods the CLI uses
//! beyond the ports (store facts, ids by prefix, the apply lock).

#[cfg(feature = "postgres")]
use crate::postgres::PgStore;
use crate::sqlite::{Durability, SqliteStore};
use crate::store::IdTable;
use rewind_core::HostError;
use rewind_core::batch::Batch;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use rewind_core::ports::{BlobInfo, Row, SeqRange, Store, StoreWrite};
use std::time::Duration;

/// SQLite or PostgreSQL.
// One per engine, made once and moved into it: the size of the larger variant (PostgreSQL's
// client and settings, under 1 KB) costs nothing worth a box on every call.
#[cfg_attr(
    feature = "postgres",
    expect(
        clippy::large_enum_variant,
        reason = "one value per engine, never copied around"
    )
)]
#[derive(Debug)]
pub enum AnyStore {
    /// A database file (or an in-memory one).
    Sqlite(SqliteStore),
    /// A PostgreSQL database.
    #[cfg(feature = "postgres")]
    Postgres(PgStore),
}

/// `$body` with `$s` bound to whichever store this is.
macro_rules! each {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            AnyStore::Sqlite($s) => $body,
            #[cfg(feature = "postgres")]
            AnyStore::Postgres($s) => $body,
        }
    };
}

impl From<SqliteStore> for AnyStore {
    fn from(s: SqliteStore) -> Self {
        Self::Sqlite(s)
    }
}

#[cfg(feature = "postgres")]
impl From<PgStore> for AnyStore {
    fn from(s: PgStore) -> Self {
        Self::Postgres(s)
    }
}

impl AnyStore {
    /// The PostgreSQL store at `url`, made ready to write (see `PgStore::open`). Without the
    /// `postgres` feature there is none: `invalid_input`, saying so.
    pub(crate) fn open_postgres(url: &str) -> Result<Self, HostError> {
        #[cfg(feature = "postgres")]
        return PgStore::open(url).map(Self::Postgres);
        #[cfg(not(feature = "postgres"))]
        return Err(no_postgres(url));
    }

    /// The PostgreSQL store at `url` to read, when it holds one (see `PgStore::open_read_only`).
    pub(crate) fn open_postgres_read_only(url: &str) -> Result<Option<Self>, HostError> {
        #[cfg(feature = "postgres")]
        return Ok(PgStore::open_read_only(url)?.map(Self::Postgres));
        #[cfg(not(feature = "postgres"))]
        return Err(no_postgres(url));
    }

    /// The SQLite store, when it is one.
    pub fn as_sqlite_mut(&mut self) -> Option<&mut SqliteStore> {
        match self {
            Self::Sqlite(s) => Some(s),
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => None,
        }
    }

    /// Where the records live: a file path, `:memory:`, or `postgres://user@host:port/db`.
    pub fn location(&self) -> &str {
        each!(self, s => s.location())
    }

    /// Whether this is a PostgreSQL store.
    pub fn is_postgres(&self) -> bool {
        match self {
            Self::Sqlite(_) => false,
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => true,
        }
    }

    /// See [`SqliteStore::set_blob_limit`].
    pub fn set_blob_limit(&mut self, bytes: u64) {
        each!(self, s => s.set_blob_limit(bytes));
    }

    /// How durable batches without a journal are (SQLite only: PostgreSQL commits are as
    /// durable as the server's `synchronous_commit` makes them).
    pub fn set_record_durability(&mut self, durability: Durability) {
        match self {
            Self::Sqlite(s) => s.set_record_durability(durability),
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => {}
        }
    }

    /// See [`SqliteStore::hold_apply_lock`].
    pub fn hold_apply_lock(&mut self, timeout: Duration) -> Result<(), HostError> {
        each!(self, s => s.hold_apply_lock(timeout))
    }

    /// See [`SqliteStore::release_apply_lock`].
    pub fn release_apply_lock(&mut self) {
        each!(self, s => s.release_apply_lock());
    }

    /// A fact about the store itself (`store_info`).
    pub fn info(&self, key: &str) -> Result<Option<String>, HostError> {
        each!(self, s => s.info(key))
    }

    /// Record facts about the store itself.
    pub fn set_info(&mut self, pairs: &[(&str, &str)]) -> Result<(), HostError> {
        each!(self, s => s.set_info(pairs))
    }

    /// See [`SqliteStore::ids_with_prefix`].
    pub fn ids_with_prefix(
        &self,
        table: IdTable,
        session: Option<&SessionId>,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, HostError> {
        each!(self, s => s.ids_with_prefix(table, session, prefix, limit))
    }

    /// See [`SqliteStore::turn_count_in`].
    pub fn turn_count_in(&self, session: &SessionId, range: SeqRange) -> Result<u64, HostError> {
        each!(self, s => s.turn_count_in(session, range))
    }
}

/// The refusal of a `postgres://` store by a build without the `postgres` feature.
#[cfg(not(feature = "postgres"))]
fn no_postgres(_url: &str) -> HostError {
    HostError::new(
        rewind_core::HostErrorKind::InvalidInput,
        "this build of rewind has no PostgreSQL store (rewind-host's `postgres` feature is off)",
    )
}

impl Store for AnyStore {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        each!(self, s => s.session(id))
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.sessions())
    }
    fn messages(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.messages(session))
    }
    fn turn(&self, session: &SessionId, turn: &TurnId) -> Result<Option<Row>, HostError> {
        each!(self, s => s.turn(session, turn))
    }
    fn turns(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.turns(session))
    }
    fn checkpoints(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.checkpoints(session))
    }
    fn operations(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.operations(session))
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.journals())
    }
    fn blob(&self, hash: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        each!(self, s => s.blob(hash))
    }
    fn last_seq(&self, session: &SessionId) -> Result<u64, HostError> {
        each!(self, s => s.last_seq(session))
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        each!(self, s => s.command_fact(p, c))
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        each!(self, s => s.blobs())
    }
    fn version(&self) -> Result<u64, HostError> {
        each!(self, s => s.version())
    }
    fn message(&self, session: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        each!(self, s => s.message(session, id))
    }
    fn messages_in(&self, session: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.messages_in(session, r))
    }
    fn last_messages_in(
        &self,
        session: &SessionId,
        r: SeqRange,
        limit: usize,
    ) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.last_messages_in(session, r, limit))
    }
    fn message_count_in(&self, session: &SessionId, r: SeqRange) -> Result<u64, HostError> {
        each!(self, s => s.message_count_in(session, r))
    }
    fn boundaries(&self, session: &SessionId) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.boundaries(session))
    }
    fn turns_in(&self, session: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.turns_in(session, r))
    }
    fn turn_count_in(&self, session: &SessionId, r: SeqRange) -> Result<u64, HostError> {
        each!(self, s => Store::turn_count_in(s, session, r))
    }
    fn turn_at_in(
        &self,
        session: &SessionId,
        r: SeqRange,
        n: u64,
        from_end: bool,
    ) -> Result<Option<Row>, HostError> {
        each!(self, s => s.turn_at_in(session, r, n, from_end))
    }
    fn ids_with_prefix(
        &self,
        table: IdTable,
        session: Option<&SessionId>,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, HostError> {
        each!(self, s => Store::ids_with_prefix(s, table, session, prefix, limit))
    }
    fn checkpoint(&self, session: &SessionId, id: &CheckpointId) -> Result<Option<Row>, HostError> {
        each!(self, s => s.checkpoint(session, id))
    }
    fn checkpoints_in(&self, session: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.checkpoints_in(session, r))
    }
    fn turn_checkpoints(&self, session: &SessionId, t: &TurnId) -> Result<Vec<Row>, HostError> {
        each!(self, s => s.turn_checkpoints(session, t))
    }
    fn session_bytes(&self, session: &SessionId) -> Result<u64, HostError> {
        each!(self, s => s.session_bytes(session))
    }
    fn workspace_snapshot(&self, session: &SessionId) -> Result<Option<Row>, HostError> {
        each!(self, s => s.workspace_snapshot(session))
    }
    fn has_blob(&self, hash: &ContentHash) -> Result<bool, HostError> {
        each!(self, s => s.has_blob(hash))
    }
}

impl StoreWrite for AnyStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        each!(self, s => s.commit(batch))
    }
    fn begin_settling(&mut self) -> Result<bool, HostError> {
        each!(self, s => s.begin_settling())
    }
    fn end_settling(&mut self) {
        each!(self, s => s.end_settling());
    }
}
