//! One write of a batch, inside the commit's `BEGIN IMMEDIATE` transaction, through the
//! connection's statement cache.

use super::running::Running;
use super::{error, exec};
use rewind_core::HostError;
use rewind_core::batch::Write;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CheckpointId, MessageId, SessionId, TurnId};
use rusqlite::{Connection, OptionalExtension, params};

/// The core's `u64` as SQLite's `INTEGER`. Nothing real gets near `i64::MAX`; refuse rather
/// than wrap.
fn signed(n: u64, what: &str) -> Result<i64, HostError> {
    i64::try_from(n).map_err(|_| HostError::io(format!("{what} {n} is too large to store")))
}

/// One write: the one-statement variants inline, the rest one function each (named as in the
/// PostgreSQL writer, so the two read side by side).
pub(super) fn apply(
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
        } => return update_session(conn, w, session, *generation, body),
        Write::AppendMessage {
            session,
            seq,
            message,
            body,
            boundary,
        } => {
            let seq = signed(*seq, "seq")?;
            append_message(conn, running, session, seq, message, body, *boundary)
        }
        Write::PutTurn {
            session,
            turn,
            seq,
            body,
        } => put_turn(conn, session, turn, signed(*seq, "seq")?, body),
        Write::PutCheckpoint { .. } => return put_checkpoint(conn, running, w),
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
        Write::DeleteBlob { hash } => return delete_blob(conn, w, hash),
        Write::DeleteCheckpoint {
            session,
            checkpoint,
        } => delete_checkpoint(conn, running, session, checkpoint),
        Write::DeleteSession { session } => return delete_session(conn, w, session),
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

/// A session that is not there is a failed precondition, not a write of nothing.
fn update_session(
    conn: &Connection,
    w: &Write,
    session: &SessionId,
    generation: u64,
    body: &str,
) -> Result<(), HostError> {
    let generation = signed(generation, "generation")?;
    match exec(
        conn,
        "UPDATE sessions SET generation = ?2, body = ?3 WHERE id = ?1",
        params![session.as_str(), generation, body],
    ) {
        Ok(0) => Err(error::precondition(format!(
            "session {session} does not exist"
        ))),
        Ok(_) => Ok(()),
        Err(e) => Err(error::write(w, e)),
    }
}

/// A message with its `ord` (the session's messages below it), which `Running` keeps.
fn append_message(
    conn: &Connection,
    running: &mut Running,
    session: &SessionId,
    seq: i64,
    message: &MessageId,
    body: &str,
    boundary: bool,
) -> rusqlite::Result<usize> {
    let ord = running.next_ord(conn, session, seq)?;
    exec(
        conn,
        "INSERT INTO messages (session_id, seq, id, body, boundary, ord)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            session.as_str(),
            seq,
            message.as_str(),
            body,
            i64::from(boundary),
            ord
        ],
    )
}

/// A turn, replaced whole when it is written again (its status and end move on).
fn put_turn(
    conn: &Connection,
    session: &SessionId,
    turn: &TurnId,
    seq: i64,
    body: &str,
) -> rusqlite::Result<usize> {
    exec(
        conn,
        "INSERT INTO turns (session_id, id, seq, body) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (session_id, id) DO UPDATE SET seq = excluded.seq, body = excluded.body",
        params![session.as_str(), turn.as_str(), seq, body],
    )
}

/// A checkpoint, its bytes added to the session's running total and its turn to the
/// `checkpoints_by_turn` index.
fn put_checkpoint(conn: &Connection, running: &mut Running, w: &Write) -> Result<(), HostError> {
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
    exec(
        conn,
        "INSERT INTO checkpoints (session_id, seq, id, body, bytes, turn_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            session.as_str(),
            seq,
            checkpoint.as_str(),
            body,
            bytes,
            turn.as_deref()
        ],
    )
    .map_err(|e| error::write(w, e))?;
    running.add_bytes(session, bytes);
    Ok(())
}

/// A blob that is still the delta base of another is refused.
fn delete_blob(conn: &Connection, w: &Write, hash: &ContentHash) -> Result<(), HostError> {
    if let Some(d) = super::blobs::dependent(conn, hash).map_err(|e| error::write(w, e))? {
        return Err(error::precondition(format!(
            "blob {} is the base of {d}, which is still stored",
            hash.short()
        )));
    }
    exec(conn, "DELETE FROM blobs WHERE hash = ?1", [hash.as_str()])
        .map(drop)
        .map_err(|e| error::write(w, e))
}

/// A checkpoint goes, its bytes taken off the session's running total.
fn delete_checkpoint(
    conn: &Connection,
    running: &mut Running,
    session: &SessionId,
    checkpoint: &CheckpointId,
) -> rusqlite::Result<usize> {
    let gone: Option<i64> = conn
        .prepare_cached("SELECT bytes FROM checkpoints WHERE session_id = ?1 AND id = ?2")?
        .query_row([session.as_str(), checkpoint.as_str()], |r| r.get(0))
        .optional()?;
    running.add_bytes(session, -gone.unwrap_or(0));
    exec(
        conn,
        "DELETE FROM checkpoints WHERE session_id = ?1 AND id = ?2",
        [session.as_str(), checkpoint.as_str()],
    )
}

/// Every row the session owns goes with it.
fn delete_session(conn: &Connection, w: &Write, session: &SessionId) -> Result<(), HostError> {
    for sql in [
        "DELETE FROM messages WHERE session_id = ?1",
        "DELETE FROM checkpoints WHERE session_id = ?1",
        "DELETE FROM turns WHERE session_id = ?1",
        "DELETE FROM operations WHERE session_id = ?1",
        "DELETE FROM journals WHERE session_id = ?1",
        "DELETE FROM command_facts WHERE parent_id = ?1",
        "DELETE FROM workspace_snapshots WHERE session_id = ?1",
        "DELETE FROM sessions WHERE id = ?1",
    ] {
        exec(conn, sql, [session.as_str()]).map_err(|e| error::write(w, e))?;
    }
    Ok(())
}
