//! `commit`: one transaction per batch, preconditions checked inside it.
//!
//! Why `READ COMMITTED` plus one row lock rather than `SERIALIZABLE`: every batch bumps the
//! commit counter (`meta.version`, which gc's `Precondition::Version` compares), so any two
//! concurrent commits conflict on that row anyway; under `SERIALIZABLE` the loser would fail
//! with 40001 and have to be retried. Instead each transaction's FIRST statement updates that
//! row: a second committer waits there (bounded by `lock_timeout`, then `busy`) until the first
//! has committed or rolled back, and because every later statement of a `READ COMMITTED`
//! transaction reads a fresh snapshot, its preconditions see everything the first one wrote.
//! That is SQLite's `BEGIN IMMEDIATE` on a shared server: commits are ordered one after
//! another, several servers on one database can never both pass the same precondition, and
//! there are no serialization retries (nor deadlocks: every commit takes that row first).

use super::apply::apply;
use super::blobs::Rows;
use super::read::{LAST_SEQ, unsigned};
use super::stmt::stmt;
use super::{Conn, PgStore, doubt, error};
use crate::store::blobs::Recent;
use crate::store::precondition::{self, Facts};
use postgres::types::ToSql;
use postgres::{GenericClient, IsolationLevel};
use rewind_core::HostError;
use rewind_core::batch::Batch;
use rewind_core::id::{CommandId, JournalId, SessionId};
use rewind_core::ports::StoreWrite;

/// How many commit ids stay behind the newest (see `schema::V2`): far more than can commit
/// while one lost reply is being looked up, a few hundred kilobytes at most.
pub(super) const KEPT_COMMIT_IDS: i64 = 10_000;

impl StoreWrite for PgStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        let limit = self.blob_limit;
        let recent = &mut self.recent;
        let conn = self.conn.get_mut();
        let (config, location) = (&self.config, self.location.as_str());
        self.lock.guard_commit(&batch, || {
            let ticket = Ticket::new();
            match commit(conn, &batch, limit, recent, &ticket) {
                Err(Unsure::Known(e)) => Err(e),
                Ok(()) => Ok(()),
                // The connection failed while COMMIT was under way: ask the server what became
                // of this batch on a new connection (which replaces the dead one).
                Err(Unsure::Lost { version, cause }) => {
                    let (found, client) = doubt::resolve(config, location, version, &ticket.id);
                    if let Some(client) = client {
                        conn.client = client;
                        conn.cache.clear();
                    }
                    found.settle(cause)
                }
            }
        })
    }

    fn begin_settling(&mut self) -> Result<bool, HostError> {
        // Settling sweeps beside the paths of pending journals; with none there is nothing to
        // sweep, and taking the lock would cost every open a second connection. A journal
        // written after this look has a live owner holding the lock, which settling leaves be.
        let pending = self.with_conn("journals", |c, cache| {
            let s = stmt(c, cache, "SELECT EXISTS (SELECT 1 FROM journals)")?;
            s.query_one(c, &[])?.try_get::<_, bool>(0)
        })?;
        if !pending {
            return Ok(false);
        }
        self.lock.begin_settling()
    }

    fn end_settling(&mut self) {
        self.lock.end_settling();
    }
}

/// The id a batch is committed under, made here (the core's batch carries none of its own).
struct Ticket {
    id: String,
}

impl Ticket {
    fn new() -> Self {
        Self {
            id: uuid::Uuid::new_v4().simple().to_string(),
        }
    }
}

/// How a commit failed: with an answer from the server (or before COMMIT was sent), or with
/// the connection lost while COMMIT was under way, when only asking again can tell.
enum Unsure {
    Known(HostError),
    Lost {
        /// The commit counter's value the batch took.
        version: i64,
        cause: postgres::Error,
    },
}

impl From<HostError> for Unsure {
    fn from(e: HostError) -> Self {
        Self::Known(e)
    }
}

/// The first statement of every commit: take the counter's row lock and the next number, file
/// the batch's id under it, and drop the ids `KEPT_COMMIT_IDS` behind (one round trip).
const BUMP: &str = "WITH bumped AS (
        UPDATE meta SET value = value + 1 WHERE key = 'version' RETURNING value),
    filed AS (INSERT INTO commit_ids (version, id) SELECT value, $1 FROM bumped),
    pruned AS (DELETE FROM commit_ids WHERE version <= (SELECT value FROM bumped) - $2)
    SELECT value FROM bumped";

fn commit(
    conn: &mut Conn,
    batch: &Batch,
    limit: u64,
    recent: &mut Recent,
    ticket: &Ticket,
) -> Result<(), Unsure> {
    let Conn { client, cache, .. } = conn;
    let start = |e| error::host("cannot start a write transaction", e);
    // Dropping the transaction on any early return rolls everything back.
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::ReadCommitted)
        .start()
        .map_err(start)?;
    let count = |e| error::host("cannot count the commit", e);
    let s = stmt(&mut tx, cache, BUMP).map_err(count)?;
    let version: i64 = s
        .query_one(&mut tx, &[&ticket.id, &KEPT_COMMIT_IDS])
        .and_then(|r| r.try_get(0))
        .map_err(count)?;
    let before = unsigned(version - 1, "the store version")?;
    {
        let rows = Rows::new(&mut tx, cache);
        let facts = TxFacts {
            rows: &rows,
            before,
        };
        for p in &batch.preconditions {
            precondition::check(&facts, p)?;
        }
        for w in &batch.writes {
            apply(&rows, w, limit, recent)?;
        }
    }
    // Every statement before COMMIT waited for its answer, so a failure up to here is one the
    // server never committed. COMMIT itself: an error the server sent is a rollback; a lost
    // connection (closed, I/O) leaves the outcome unknown.
    tx.commit().map_err(|e| match e.as_db_error() {
        Some(_) => Unsure::Known(error::host("cannot commit the batch", e)),
        None => Unsure::Lost { version, cause: e },
    })
}

/// The reads of preconditions, inside the transaction, after the counter row is ours.
struct TxFacts<'r, 'a, C> {
    rows: &'r Rows<'a, C>,
    /// Batches committed before this one.
    before: u64,
}

impl<C: GenericClient> TxFacts<'_, '_, C> {
    fn number(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<u64>, HostError> {
        let read = |e| error::host("cannot check a precondition", e);
        let n = self
            .rows
            .run(sql, |c, s| {
                s.query_opt(c, params)?
                    .map(|r| r.try_get::<_, i64>(0))
                    .transpose()
            })
            .map_err(read)?;
        n.map(|n| unsigned(n, "a precondition")).transpose()
    }
}

impl<C: GenericClient> Facts for TxFacts<'_, '_, C> {
    fn generation(&self, session: &SessionId) -> Result<Option<u64>, HostError> {
        self.number(
            "SELECT generation FROM sessions WHERE id = $1",
            &[&session.as_str()],
        )
    }
    fn last_seq(&self, session: &SessionId) -> Result<Option<u64>, HostError> {
        self.number(LAST_SEQ, &[&session.as_str()])
    }
    fn command_used(&self, parent: &SessionId, command: &CommandId) -> Result<bool, HostError> {
        let sql = "SELECT 1::bigint FROM command_facts WHERE parent_id = $1 AND command_id = $2";
        Ok(self
            .number(sql, &[&parent.as_str(), &command.as_str()])?
            .is_some())
    }
    fn journal_present(&self, journal: &JournalId) -> Result<bool, HostError> {
        let sql = "SELECT 1::bigint FROM journals WHERE id = $1";
        Ok(self.number(sql, &[&journal.as_str()])?.is_some())
    }
    fn version(&self) -> Result<u64, HostError> {
        Ok(self.before)
    }
}
