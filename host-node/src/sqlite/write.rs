//! `commit`: one `BEGIN IMMEDIATE` transaction per batch. Taking the write lock up front means
//! the preconditions are read under the same lock the writes use, and a busy file is waited on
//! (busy timeout) at the start instead of failing halfway with a lock upgrade error.

use super::apply::apply;
use super::read::{generation_of, last_seq_of};
use super::running::Running;
use super::{SqliteStore, error};
use crate::store::precondition;
use rewind_core::HostError;
use rewind_core::batch::{Batch, Write};
use rewind_core::id::{CommandId, JournalId, SessionId};
use rewind_core::ports::StoreWrite;
use rusqlite::{Connection, TransactionBehavior};

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
