//! One write of a batch, inside the commit's transaction: one statement each (a message's
//! `ord` and a checkpoint's byte total ride along in the same statement).

use super::blobs::{self, Rows};
use super::error;
use crate::store::blobs::Recent;
use postgres::GenericClient;
use postgres::types::ToSql;
use rewind_core::HostError;
use rewind_core::batch::Write;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, MessageId, SessionId, TurnId};

/// The core's `u64` as `BIGINT`. Nothing real gets near `i64::MAX`; refuse rather than wrap.
fn signed(n: u64, what: &str) -> Result<i64, HostError> {
    i64::try_from(n).map_err(|_| HostError::io(format!("{what} {n} is too large to store")))
}

fn exec<C: GenericClient>(
    rows: &Rows<'_, C>,
    w: &Write,
    sql: &'static str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64, HostError> {
    rows.run(sql, |c, s| s.execute(c, params))
        .map_err(|e| error::write(w, e))
}

/// One write: one statement (a message's `ord` and a checkpoint's byte total ride along in
/// the same statement, so a fork of thousands of rows is one round trip per row). The
/// one-statement variants are inline, the rest one function each, named as in the SQLite
/// writer so the two read side by side.
pub(super) fn apply<C: GenericClient>(
    rows: &Rows<'_, C>,
    w: &Write,
    limit: u64,
    recent: &mut Recent,
) -> Result<(), HostError> {
    let run = |sql, params: &[&(dyn ToSql + Sync)]| exec(rows, w, sql, params);
    match w {
        Write::CreateSession { session, body } => run(
            "INSERT INTO sessions (id, generation, body) VALUES ($1, 0, $2)",
            &[&session.as_str(), body],
        )
        .map(drop),
        Write::UpdateSession {
            session,
            generation,
            body,
        } => update_session(&run, session, *generation, body),
        Write::AppendMessage {
            session,
            seq,
            message,
            body,
            boundary,
        } => append_message(
            &run,
            session,
            signed(*seq, "seq")?,
            message,
            body,
            *boundary,
        ),
        Write::PutTurn {
            session,
            turn,
            seq,
            body,
        } => put_turn(&run, session, turn, signed(*seq, "seq")?, body),
        Write::PutCheckpoint { .. } => put_checkpoint(&run, w),
        Write::PutBlob { hash, bytes, base } => {
            crate::store::blobs::put(rows, hash, bytes, base.as_ref(), limit, recent)
        }
        Write::PutOperation {
            session,
            operation,
            body,
        } => run(
            "INSERT INTO operations (session_id, id, body) VALUES ($1, $2, $3)",
            &[&session.as_str(), &operation.as_str(), body],
        )
        .map(drop),
        Write::PutJournal {
            journal,
            session,
            body,
        } => run(
            "INSERT INTO journals (id, session_id, body) VALUES ($1, $2, $3)",
            &[&journal.as_str(), &session.as_str(), body],
        )
        .map(drop),
        Write::DeleteBlob { hash } => delete_blob(rows, &run, w, hash),
        Write::DeleteCheckpoint {
            session,
            checkpoint,
        } => delete_checkpoint(&run, session, checkpoint),
        // Every row the session owns goes with it (`ON DELETE CASCADE`, see `schema`).
        Write::DeleteSession { session } => {
            run("DELETE FROM sessions WHERE id = $1", &[&session.as_str()]).map(drop)
        }
        Write::PutWorkspaceSnapshot { session, body } => run(
            "INSERT INTO workspace_snapshots (session_id, body) VALUES ($1, $2)
             ON CONFLICT (session_id) DO UPDATE SET body = excluded.body",
            &[&session.as_str(), body],
        )
        .map(drop),
        Write::PutCommandFact {
            parent,
            command,
            body,
        } => run(
            "INSERT INTO command_facts (parent_id, command_id, body) VALUES ($1, $2, $3)",
            &[&parent.as_str(), &command.as_str(), body],
        )
        .map(drop),
        // Settling a journal twice is what `JournalPresent` guards; the delete is idempotent.
        Write::RemoveJournal { journal } => {
            run("DELETE FROM journals WHERE id = $1", &[&journal.as_str()]).map(drop)
        }
    }
}

/// Runs one statement of the current write (its errors already named after the write).
type Run<'r> = dyn Fn(&'static str, &[&(dyn ToSql + Sync)]) -> Result<u64, HostError> + 'r;

/// A session that is not there is a failed precondition, not a write of nothing.
fn update_session(
    run: &Run<'_>,
    session: &SessionId,
    generation: u64,
    body: &str,
) -> Result<(), HostError> {
    let g = signed(generation, "generation")?;
    let sql = "UPDATE sessions SET generation = $2, body = $3 WHERE id = $1";
    match run(sql, &[&session.as_str(), &g, &body])? {
        0 => Err(error::precondition(format!(
            "session {session} does not exist"
        ))),
        _ => Ok(()),
    }
}

/// A message with its `ord`: it counts the session's messages before this one, the row below
/// it plus one. The core only appends; a row slipped in below others moves their ords up.
fn append_message(
    run: &Run<'_>,
    session: &SessionId,
    seq: i64,
    message: &MessageId,
    body: &str,
    boundary: bool,
) -> Result<(), HostError> {
    let sql = "WITH moved AS (UPDATE messages SET ord = ord + 1
                              WHERE session_id = $1 AND seq > $2)
        INSERT INTO messages (session_id, seq, id, body, boundary, ord)
        VALUES ($1, $2, $3, $4, $5, coalesce((SELECT ord + 1 FROM messages
            WHERE session_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT 1), 0))";
    run(
        sql,
        &[&session.as_str(), &seq, &message.as_str(), &body, &boundary],
    )
    .map(drop)
}

/// A checkpoint, its bytes added to the session's total in the same statement.
fn put_checkpoint(run: &Run<'_>, w: &Write) -> Result<(), HostError> {
    let Write::PutCheckpoint {
        session,
        seq,
        checkpoint,
        body,
        bytes,
        turn,
    } = w
    else {
        unreachable!("called for PutCheckpoint only")
    };
    let (seq, bytes) = (signed(*seq, "seq")?, signed(*bytes, "bytes")?);
    let turn = crate::store::turn_of(turn.as_ref(), body);
    let turn = turn.as_deref();
    let sql = "WITH added AS (INSERT INTO checkpoints (session_id, seq, id, body, bytes, turn_id)
                              VALUES ($1, $2, $3, $4, $5, $6) RETURNING bytes)
        UPDATE sessions SET bytes = greatest(sessions.bytes + (SELECT bytes FROM added), 0)
        WHERE id = $1";
    run(
        sql,
        &[
            &session.as_str(),
            &seq,
            &checkpoint.as_str(),
            &body,
            &bytes,
            &turn,
        ],
    )
    .map(drop)
}

/// A blob that is still the delta base of another is refused.
fn delete_blob<C: GenericClient>(
    rows: &Rows<'_, C>,
    run: &Run<'_>,
    w: &Write,
    hash: &ContentHash,
) -> Result<(), HostError> {
    if let Some(d) = blobs::dependent(rows, hash).map_err(|e| error::write(w, e))? {
        return Err(error::precondition(format!(
            "blob {} is the base of {d}, which is still stored",
            hash.short()
        )));
    }
    run("DELETE FROM blobs WHERE hash = $1", &[&hash.as_str()]).map(drop)
}

/// A checkpoint goes, its bytes taken off the session's total in the same statement.
fn delete_checkpoint(
    run: &Run<'_>,
    session: &SessionId,
    checkpoint: &CheckpointId,
) -> Result<(), HostError> {
    let sql = "WITH gone AS (DELETE FROM checkpoints WHERE session_id = $1 AND id = $2
                             RETURNING bytes)
        UPDATE sessions
        SET bytes = greatest(sessions.bytes - coalesce((SELECT sum(bytes) FROM gone), 0), 0)
        WHERE id = $1";
    run(sql, &[&session.as_str(), &checkpoint.as_str()]).map(drop)
}

/// A turn, replaced whole when it is written again (its status and end move on).
fn put_turn(
    run: &Run<'_>,
    session: &SessionId,
    turn: &TurnId,
    seq: i64,
    body: &str,
) -> Result<(), HostError> {
    let sql = "INSERT INTO turns (session_id, id, seq, body) VALUES ($1, $2, $3, $4)
        ON CONFLICT (session_id, id) DO UPDATE SET seq = excluded.seq, body = excluded.body";
    run(sql, &[&session.as_str(), &turn.as_str(), &seq, &body]).map(drop)
}
