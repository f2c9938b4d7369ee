//! `commit`: one `BEGIN IMMEDIATE` transaction per batch. Taking the write lock up front means
//! the preconditions are read under the same lock the writes use, and a busy file is waited on
//! (busy timeout) at the start instead of failing halfway with a lock upgrade error.

use super::read::{generation_of, last_seq_of};
use super::running::Running;
use super::{SqliteStore, error};
use crate::store::precondition;
use rewind_core::HostError;
use rewind_core::batch::{Batch, Write};
use rewind_core::id::{CommandId, JournalId, SessionId};
use rewind_core::ports::StoreWrite;
use rusqlite::{Connection, OptionalExtension, Params, TransactionBehavior, params};

/// How durable a commit is when it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous=FULL`: the WAL is fsynced before the commit returns; on disk even across a
    /// power cut. A FULL commit also makes every earlier commit of the file durable (they sit
    /// before it in the same WAL).
    Full,
    /// `synchronous=NORMAL` in WAL mode: durable across a crash of the process (the commit is
    /// in the OS's page cache), but a power cut or an OS crash may lose the last commits made
    /// since the last FULL commit or WAL checkpoint. The database stays consistent either way:
    /// whole batches are lost, never parts of one.
    Normal,
}

impl Durability {
    fn pragma(self) -> &'static str {
        match self {
            Self::Full => "FULL",
            Self::Normal => "NORMAL",
        }
    }
}

/// The durability a batch needs. A journal is what lets recovery put files back, so a batch
/// that writes or clears one (apply, undo, recover) is FULL: it is on disk before the first
/// file is touched, and the settled state is on disk before the call returns. Everything else
/// (recording messages, edits, checkpoints, forks, gc) only adds to or tidies the log; losing
/// the last few to a power cut loses those records and touches no file, so they commit NORMAL,
/// which skips the fsync per commit (see BENCHMARKS.md for what it saves). `records` is what
/// the store was set to for them ([`SqliteStore::set_record_durability`]).
pub(super) fn sync_for(batch: &Batch, records: Durability) -> Durability {
    let journal = batch
        .writes
        .iter()
        .any(|w| matches!(w, Write::PutJournal { .. } | Write::RemoveJournal { .. }));
    match journal {
        true => Durability::Full,
        false => records,
    }
}

impl SqliteStore {
    /// How durable batches without a journal are (default [`Durability::Normal`]); journal
    /// batches are always [`Durability::Full`]. `Full` here makes every commit survive a power
    /// cut, at one fsync per commit.
    pub fn set_record_durability(&mut self, durability: Durability) {
        self.record_durability = durability;
    }

    /// Set `PRAGMA synchronous` for the next commit (a per-connection setting; only changed
    /// when it differs from the last one set).
    fn sync(&mut self, want: Durability) -> Result<(), HostError> {
        if self.synchronous != Some(want) {
            self.conn
                .pragma_update(None, "synchronous", want.pragma())
                .map_err(|e| error::host("cannot set the commit durability", e))?;
            self.synchronous = Some(want);
        }
        Ok(())
    }
}

impl StoreWrite for SqliteStore {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        self.sync(sync_for(&batch, self.record_durability))?;
        let limit = self.blob_limit;
        let recent = &mut self.recent;
        let conn = &mut self.conn;
        match &mut self.lock {
            None => commit(conn, &batch, limit, recent),
            Some(lock) => lock.guard_commit(&batch, || commit(conn, &batch, limit, recent)),
        }
    }

    fn begin_settling(&mut self) -> Result<bool, HostError> {
        match &mut self.lock {
            Some(lock) => lock.begin_settling(),
            None => Ok(true),
        }
    }

    fn end_settling(&mut self) {
        if let Some(lock) = &mut self.lock {
            lock.end_settling();
        }
    }
}

fn commit(
    conn: &mut Connection,
    batch: &Batch,
    limit: u64,
    recent: &mut crate::store::blobs::Recent,
) -> Result<(), HostError> {
    {
        // Dropping the transaction on any early return rolls everything back.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| error::host("cannot start a write transaction", e))?;
        for p in &batch.preconditions {
            precondition::check(&Facts(&tx), p)?;
        }
        let mut running = Running::default();
        for w in &batch.writes {
            apply(&tx, w, limit, recent, &mut running)?;
        }
        running
            .flush(&tx)
            .map_err(|e| error::host("cannot update the sessions' byte totals", e))?;
        tx.prepare_cached("UPDATE meta SET value = value + 1 WHERE key = 'version'")
            .and_then(|mut s| s.execute([]))
            .map_err(|e| error::host("cannot count the commit", e))?;
        // Never in doubt (unlike PostgreSQL's, see `postgres::doubt`): COMMIT is a call into
        // this process that returns what happened, so an error from it is a rollback that
        // every reader sees. (The one residue, an fsync that failed after the WAL frames were
        // written, is a disk that lost writes: a crash then may bring the batch back, which
        // no database can rule out.)
        tx.commit()
            .map_err(|e| error::host("cannot commit the batch", e))
    }
}

/// The reads of preconditions, from inside the `BEGIN IMMEDIATE` transaction (nobody else can
/// write until it ends).
struct Facts<'c>(&'c Connection);

fn read_fact(e: rusqlite::Error) -> HostError {
    error::host("cannot check a precondition", e)
}

impl precondition::Facts for Facts<'_> {
    fn generation(&self, session: &SessionId) -> Result<Option<u64>, HostError> {
        generation_of(self.0, session).map_err(read_fact)
    }
    fn last_seq(&self, session: &SessionId) -> Result<Option<u64>, HostError> {
        last_seq_of(self.0, session).map_err(read_fact)
    }
    fn command_used(&self, parent: &SessionId, command: &CommandId) -> Result<bool, HostError> {
        self.0
            .prepare_cached("SELECT 1 FROM command_facts WHERE parent_id = ?1 AND command_id = ?2")
            .and_then(|mut s| s.exists([parent.as_str(), command.as_str()]))
            .map_err(read_fact)
    }
    fn journal_present(&self, journal: &JournalId) -> Result<bool, HostError> {
        self.0
            .prepare_cached("SELECT 1 FROM journals WHERE id = ?1")
            .and_then(|mut s| s.exists([journal.as_str()]))
            .map_err(read_fact)
    }
    fn version(&self) -> Result<u64, HostError> {
        super::read::version_of(self.0).map_err(read_fact)
    }
}

/// The core's `u64` as SQLite's `INTEGER`. Nothing real gets near `i64::MAX`; refuse rather
/// than wrap.
fn signed(n: u64, what: &str) -> Result<i64, HostError> {
    i64::try_from(n).map_err(|_| HostError::io(format!("{what} {n} is too large to store")))
}

pub(super) fn exec<P: Params>(conn: &Connection, sql: &str, params: P) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

fn apply(
    conn: &Connection,
    w: &Write,
    limit: u64,
    recent: &mut crate::store::blobs::Recent,
    running: &mut Running,
) -> Result<(), HostError> {
    let done = match w {
        Write::CreateSession { session, body } => exec(
            conn,
            "INSERT INTO sessions (id, generation, body) VALUES (?1, 0, ?2)",
            params![session.as_str(), body],
        ),
        Write::UpdateSession {
            session,
            generation,
            body,
        } => match exec(
            conn,
            "UPDATE sessions SET generation = ?2, body = ?3 WHERE id = ?1",
            params![session.as_str(), signed(*generation, "generation")?, body],
        ) {
            Ok(0) => {
                return Err(error::precondition(format!(
                    "session {session} does not exist"
                )));
            }
            other => other,
        },
        Write::AppendMessage {
            session,
            seq,
            message,
            body,
            boundary,
        } => {
            let seq = signed(*seq, "seq")?;
            running.next_ord(conn, session, seq).and_then(|ord| {
                exec(
                    conn,
                    "INSERT INTO messages (session_id, seq, id, body, boundary, ord)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        session.as_str(),
                        seq,
                        message.as_str(),
                        body,
                        i64::from(*boundary),
                        ord
                    ],
                )
            })
        }
        Write::PutTurn {
            session,
            turn,
            seq,
            body,
        } => exec(
            conn,
            "INSERT INTO turns (session_id, id, seq, body) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (session_id, id) DO UPDATE SET seq = excluded.seq, body = excluded.body",
            params![session.as_str(), turn.as_str(), signed(*seq, "seq")?, body],
        ),
        Write::PutCheckpoint {
            session,
            seq,
            checkpoint,
            body,
            bytes,
        } => {
            let bytes = signed(*bytes, "bytes")?;
            exec(
                conn,
                "INSERT INTO checkpoints (session_id, seq, id, body, bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    session.as_str(),
                    signed(*seq, "seq")?,
                    checkpoint.as_str(),
                    body,
                    bytes
                ],
            )
            .inspect(|_| running.add_bytes(session, bytes))
        }
        Write::PutBlob { hash, bytes, base } => {
            let rows = super::blobs::Rows { conn, deltas: true };
            return crate::store::blobs::put(&rows, hash, bytes, base.as_ref(), limit, recent);
        }
        Write::PutOperation {
            session,
            operation,
            body,
        } => exec(
            conn,
            "INSERT INTO operations (session_id, id, body) VALUES (?1, ?2, ?3)",
            params![session.as_str(), operation.as_str(), body],
        ),
        Write::PutJournal {
            journal,
            session,
            body,
        } => exec(
            conn,
            "INSERT INTO journals (id, session_id, body) VALUES (?1, ?2, ?3)",
            params![journal.as_str(), session.as_str(), body],
        ),
        Write::DeleteBlob { hash } => {
            if let Some(d) = super::blobs::dependent(conn, hash).map_err(|e| error::write(w, e))? {
                return Err(error::precondition(format!(
                    "blob {} is the base of {d}, which is still stored",
                    hash.short()
                )));
            }
            exec(conn, "DELETE FROM blobs WHERE hash = ?1", [hash.as_str()])
        }
        Write::DeleteCheckpoint {
            session,
            checkpoint,
        } => conn
            .prepare_cached("SELECT bytes FROM checkpoints WHERE session_id = ?1 AND id = ?2")
            .and_then(|mut s| {
                s.query_row([session.as_str(), checkpoint.as_str()], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()
            })
            .and_then(|gone| {
                running.add_bytes(session, -gone.unwrap_or(0));
                exec(
                    conn,
                    "DELETE FROM checkpoints WHERE session_id = ?1 AND id = ?2",
                    [session.as_str(), checkpoint.as_str()],
                )
            }),
        Write::DeleteSession { session } => {
            for sql in [
                "DELETE FROM messages WHERE session_id = ?1",
                "DELETE FROM checkpoints WHERE session_id = ?1",
                "DELETE FROM turns WHERE session_id = ?1",
                "DELETE FROM operations WHERE session_id = ?1",
                "DELETE FROM journals WHERE session_id = ?1",
                "DELETE FROM command_facts WHERE parent_id = ?1",
                "DELETE FROM workspace_snapshots WHERE session_id = ?1",
            ] {
                exec(conn, sql, [session.as_str()]).map_err(|e| error::write(w, e))?;
            }
            exec(
                conn,
                "DELETE FROM sessions WHERE id = ?1",
                [session.as_str()],
            )
        }
        Write::PutWorkspaceSnapshot { session, body } => exec(
            conn,
            "INSERT INTO workspace_snapshots (session_id, body) VALUES (?1, ?2) \
             ON CONFLICT (session_id) DO UPDATE SET body = excluded.body",
            params![session.as_str(), body],
        ),
        Write::PutCommandFact {
            parent,
            command,
            body,
        } => exec(
            conn,
            "INSERT INTO command_facts (parent_id, command_id, body) VALUES (?1, ?2, ?3)",
            params![parent.as_str(), command.as_str(), body],
        ),
        // Settling a journal twice is what `JournalPresent` guards; the delete itself is idempotent.
        Write::RemoveJournal { journal } => exec(
            conn,
            "DELETE FROM journals WHERE id = ?1",
            [journal.as_str()],
        ),
    };
    done.map(drop).map_err(|e| error::write(w, e))
}
