//! Undoing an apply that cannot finish: every written path is put back as the journal holds
//! it and the failure is recorded, except after a commit whose outcome is unknown, which must
//! leave everything as it is (rolling back could undo an apply the log already records).

use super::Error;
use super::writes::{Executed, PlannedWrite};
use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::hash::ContentHash;
use crate::id::{JournalId, SessionId};
use crate::load::encode;
use crate::model::NodeKind;
use crate::model::{Operation, OperationKind};
use crate::node::{Node, kind_of};
use crate::path::WorkPath;

/// Make `path` hold `bytes` (a node's byte form; `None`: nothing), given what it is now
/// (`now`: the byte form there, `None` when nothing is): a directory is only ever removed
/// empty; a link or file in the way is removed first (a link is never written through).
pub(crate) fn put(
    ws: &mut dyn crate::ports::Workspace,
    path: &WorkPath,
    bytes: &Option<Vec<u8>>,
    mode: Option<u32>,
    now: Option<NodeKind>,
) -> Result<(), crate::HostError> {
    let dir_now = now == Some(NodeKind::Directory);
    let node = bytes.clone().map(Node::decode);
    let link_now = now == Some(NodeKind::Symlink);
    if link_now {
        ws.remove_link(path)?;
    }
    if dir_now && !node.as_ref().is_some_and(Node::is_dir) {
        ws.remove_dir(path)?;
    }
    match node {
        Some(Node::Dir) => {
            if !dir_now && !link_now {
                ws.remove(path)?;
            }
            ws.make_dir(path, mode)
        }
        Some(Node::File(b)) => {
            ws.write(path, &b)?;
            mode.map_or(Ok(()), |m| ws.set_mode(path, m))
        }
        Some(Node::Symlink(target)) => {
            if !dir_now && !link_now {
                ws.remove(path)?;
            }
            ws.make_symlink(path, &target)
        }
        None if dir_now || link_now => Ok(()),
        None => ws.remove(path),
    }
}

/// The hash of what `path` holds now, its type included (`None`: nothing).
pub(crate) fn state_of(
    ws: &mut dyn crate::ports::Workspace,
    path: &WorkPath,
) -> Result<Option<ContentHash>, crate::HostError> {
    Ok(ws.node(path)?.as_ref().map(Node::hash))
}

/// Put every written path back as the journal holds it, newest write first, and make that
/// durable before the failure is recorded (the journal must not be cleared while a crash could
/// still bring a written version back).
fn roll_back(p: &mut Ports<'_>, written: &[&PlannedWrite<'_>]) -> Result<(), String> {
    for w in written.iter().rev() {
        let now = w.bytes.as_deref().map(kind_of);
        put(
            p.workspace,
            &w.plan.path,
            w.prior(),
            w.plan.current_mode,
            now,
        )
        .map_err(|e| format!("restoring {} failed: {e}", w.plan.path))?;
    }
    p.workspace
        .sync()
        .map_err(|e| format!("making the restored files durable failed: {e}"))
}

/// Whether a path whose write failed no longer holds what was there before. A path that cannot
/// even be read is assumed changed: putting its prior bytes back is always safe.
pub(super) fn changed_anyway(p: &mut Ports<'_>, w: &PlannedWrite<'_>) -> bool {
    match state_of(p.workspace, &w.plan.path) {
        Ok(now) => now != *w.prior_hash(),
        Err(_) => true,
    }
}

/// An apply that cannot finish after touching files: put every written path back from the
/// journal, record the failure and clear the journal, and report `applied: false` with the
/// cause. If the rollback itself fails the journal stays and the error is `unrecoverable`.
pub(super) fn give_up(
    p: &mut Ports<'_>,
    session: &SessionId,
    journal: &JournalId,
    cause: String,
    written: &[&PlannedWrite<'_>],
    skipped: Vec<String>,
) -> Result<Executed, Error> {
    roll_back(p, written).map_err(|rollback| Error::Unrecoverable {
        cause: cause.clone(),
        rollback,
    })?;
    settle_failure(p, session, journal, &cause, written);
    Ok(Executed {
        skipped,
        cause: Some(cause),
        ..Executed::default()
    })
}

fn settle_failure(
    p: &mut Ports<'_>,
    session: &SessionId,
    journal: &JournalId,
    cause: &str,
    rolled_back: &[&PlannedWrite<'_>],
) {
    let note = if rolled_back.is_empty() {
        format!("nothing was changed: {cause}")
    } else {
        let paths: Vec<String> = rolled_back
            .iter()
            .map(|w| w.plan.path.to_string())
            .collect();
        format!(
            "rolled back: {cause}; {} path(s) had been written and were restored ({})",
            paths.len(),
            paths.join(", ")
        )
    };
    let op = Operation {
        id: p.mint(),
        session_id: session.clone(),
        kind: OperationKind::ApplyFailed,
        created_at: p.now(),
        target: None,
        policy: None,
        files: Vec::new(),
        undoes: None,
        journal_id: Some(journal.clone()),
        branch_target: None,
        generation: None,
        dropped_through: None,
        cursor_before: None,
        note: Some(note),
    };
    let mut batch = Batch::new();
    batch.require(Precondition::JournalPresent(journal.clone()));
    batch.push(Write::RemoveJournal {
        journal: journal.clone(),
    });
    batch.push(Write::PutOperation {
        session: session.clone(),
        operation: op.id.clone(),
        body: encode(&op),
    });
    // If this commit fails the journal stays; `recover` finds every path at its prior state
    // and clears it. The workspace is already whole, so the failure changes nothing for the user.
    let _ = p.store.commit(batch);
}

/// The final commit failed with `e`. A commit the store could not confirm either way leaves
/// the journal and the files exactly as they are (`recover` settles them from the store's
/// truth: the journal gone means the commit happened). Any other failure is a commit that did
/// not happen: the written paths go back and the failure is recorded.
pub(super) fn after_failed_commit(
    p: &mut Ports<'_>,
    session: &SessionId,
    journal: &JournalId,
    e: Error,
    written: &[&PlannedWrite<'_>],
) -> Error {
    if let Error::Store(h) = &e
        && h.is_in_doubt()
    {
        return Error::InDoubt {
            journal: journal.clone(),
            cause: h.to_string(),
        };
    }
    let cause = e.to_string();
    if let Err(rollback) = roll_back(p, written) {
        return Error::Unrecoverable { cause, rollback };
    }
    settle_failure(p, session, journal, &cause, written);
    e
}
