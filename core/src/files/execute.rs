//! Apply a plan: journal first, then write newest to oldest with a hash re-check before each
//! write, then one commit that clears the journal and records the operation. A failed write
//! rolls every written path back from the journal (see `rollback`).

use super::Error;
use super::plan::{PathPlan, Plan};
use super::rollback::{after_failed_commit, changed_anyway, give_up, put, state_of};
use super::writes::{Executed, PlannedWrite, RestoredFile, choose, reported};
use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::cursor::CursorMove;
use crate::error::HostErrorKind;
use crate::id::{JournalId, OperationId};
use crate::load::{self, encode};
use crate::model::{
    CursorBefore, Journal, JournalEntry, MessageKind, OpFile, OpTarget, Operation, OperationKind,
    Policy, Role,
};
use crate::record;

/// What the final commit records besides the file writes.
#[derive(Clone, Debug)]
pub(crate) struct Finish {
    pub(crate) kind: OperationKind,
    pub(crate) target: Option<OpTarget>,
    pub(crate) policy: Policy,
    pub(crate) undoes: Option<OperationId>,
    /// For `both` and the undo of a cursor move: the move committed with the operation.
    pub(crate) branch_move: Option<CursorMove>,
    /// A notice for the model, appended on the active branch with the operation.
    pub(crate) notice: Option<String>,
    /// More rows committed in the same final transaction (a fork's bundle), with their conditions.
    pub(crate) extra: Batch,
    /// A note for the operation log.
    pub(crate) note: Option<String>,
    /// The operation's id, when the caller must know it before the apply (a fork records it in
    /// its command fact); minted otherwise.
    pub(crate) operation_id: Option<OperationId>,
}

/// Carry out `plan` under `policy`.
pub(crate) fn execute(p: &mut Ports<'_>, plan: &Plan, finish: Finish) -> Result<Executed, Error> {
    let (writes, blocked) = choose(plan, finish.policy);
    if let Some(refused) = refuse(&writes, blocked.clone(), &finish) {
        return Ok(refused);
    }
    let session = plan.session.clone();
    let journal = journal_for(p, plan, &writes, &finish)?;
    p.store
        .commit(journal_batch(&writes, &journal))
        .map_err(Error::Store)?;
    let written = match write_all(p, &writes) {
        Ok(written) => written,
        Err((cause, written)) => {
            return give_up(p, &session, &journal.id, cause, &written, blocked);
        }
    };
    if let Err(e) = finish_commit(p, &journal, &finish) {
        return Err(after_failed_commit(p, &session, &journal.id, e, &written));
    }
    let restored = reported(&writes)
        .into_iter()
        .map(|w| RestoredFile {
            path: w.plan.path.to_string(),
            action: PathPlan::action_of(&w.bytes),
            merged: w.merged,
            forced: w.forced,
        })
        .collect();
    Ok(Executed {
        applied: true,
        operation_id: Some(journal.operation.id),
        restored,
        skipped: blocked,
        cause: None,
    })
}

/// The answer of an apply that writes nothing: paths the policy does not allow (unless it
/// skips them), or nothing to do at all.
fn refuse(writes: &[PlannedWrite<'_>], blocked: Vec<String>, finish: &Finish) -> Option<Executed> {
    let cause = if !blocked.is_empty() && finish.policy != Policy::Skip {
        format!(
            "{} path(s) are unsafe under the {:?} policy",
            blocked.len(),
            finish.policy
        )
        .to_lowercase()
    } else if writes.is_empty() && finish.branch_move.is_none() {
        "nothing to restore".into()
    } else {
        return None;
    };
    Some(Executed {
        skipped: blocked,
        cause: Some(cause),
        ..Executed::default()
    })
}

/// The journal of this apply: each path's prior and target, and the operation (and session
/// update) its final commit records.
fn journal_for(
    p: &mut Ports<'_>,
    plan: &Plan,
    writes: &[PlannedWrite<'_>],
    finish: &Finish,
) -> Result<Journal, Error> {
    let session = plan.session.clone();
    let journal_id: JournalId = p.mint();
    let files: Vec<OpFile> = reported(writes)
        .into_iter()
        .map(|w| OpFile {
            path: w.plan.path.clone(),
            action: PathPlan::action_of(&w.bytes),
            before: w.prior_hash().clone(),
            after: w.hash.clone(),
            before_mode: w.prior().as_ref().and(w.plan.current_mode),
            after_mode: w.bytes.as_ref().and(w.mode().or(w.plan.current_mode)),
            undid: w.plan.undid.clone(),
            merged: w.merged,
            forced: w.forced,
        })
        .collect();
    let operation = Operation {
        id: finish.operation_id.clone().unwrap_or_else(|| p.mint()),
        session_id: session.clone(),
        kind: finish.kind,
        created_at: p.now(),
        target: finish.target.clone(),
        policy: Some(finish.policy),
        files,
        undoes: finish.undoes.clone(),
        journal_id: Some(journal_id.clone()),
        branch_target: finish
            .branch_move
            .as_ref()
            .and_then(|m| m.target().cloned()),
        generation: finish.branch_move.as_ref().map(|m| m.base().generation + 1),
        dropped_through: None,
        note: finish.note.clone(),
        cursor_before: None,
    };
    Ok(Journal {
        id: journal_id,
        session_id: session.clone(),
        created_at: p.now(),
        entries: writes
            .iter()
            .map(|w| JournalEntry {
                path: w.plan.path.clone(),
                prior: w.prior_hash().clone(),
                target: w.hash.clone(),
            })
            .collect(),
        operation,
        session_update: None,
    }
    .with_cursor(finish, p.store.last_seq(&session).map_err(Error::Store)?))
}

/// The first commit: the journal, and both sides of every write, hashed when planned. A side
/// the store already has (usually both) costs it one lookup. Each new side is offered the
/// other as a delta base: they are versions of the same file.
fn journal_batch(writes: &[PlannedWrite<'_>], journal: &Journal) -> Batch {
    let mut batch = Batch::new();
    for w in writes {
        let sides = [
            (w.prior(), w.prior_hash(), &w.hash),
            (&w.bytes, &w.hash, w.prior_hash()),
        ];
        for (bytes, hash, other) in sides {
            if let (Some(bytes), Some(hash)) = (bytes, hash) {
                batch.push(Write::PutBlob {
                    hash: hash.clone(),
                    bytes: bytes.clone(),
                    base: other.clone(),
                });
            }
        }
    }
    batch.push(Write::PutJournal {
        journal: journal.id.clone(),
        session: journal.session_id.clone(),
        body: encode(journal),
    });
    batch
}

/// Paths written so far, and on failure why it stopped.
type WriteFailure<'w, 'p> = (String, Vec<&'w PlannedWrite<'p>>);

/// Write every path newest first, each after re-checking it still holds what the plan read,
/// then make them durable (one sync per directory) before the commit that says they happened.
/// On failure: the cause and every path that must be rolled back.
fn write_all<'w, 'p>(
    p: &mut Ports<'_>,
    writes: &'w [PlannedWrite<'p>],
) -> Result<Vec<&'w PlannedWrite<'p>>, WriteFailure<'w, 'p>> {
    let mut written: Vec<&PlannedWrite<'_>> = Vec::new();
    for w in writes {
        let now = state_of(p.workspace, &w.plan.path);
        let mut attempted = false;
        let step = match now {
            Err(e) => Err(format!("re-reading {} failed: {e}", w.plan.path)),
            Ok(h) if h != *w.prior_hash() => {
                Err(format!("{} changed after the preview", w.plan.path))
            }
            Ok(_) => {
                attempted = true;
                let dir_now = w.plan.is_dir_now();
                let mode = match w.plan.restores_dir() {
                    true => w.plan.target_mode.filter(|_| !dir_now).or(w.mode()),
                    false => w.mode(),
                };
                let now = w.prior().as_deref().map(crate::node::kind_of);
                put(p.workspace, &w.plan.path, &w.bytes, mode, now)
                    .map_err(|e| format!("writing {} failed: {e}", w.plan.path))
            }
        };
        if let Err(cause) = step {
            // A failed write may still have changed the file (the rename happened, the sync
            // after it failed): whatever no longer holds its prior bytes is rolled back too.
            if attempted && changed_anyway(p, w) {
                written.push(w);
            }
            return Err((cause, written));
        }
        written.push(w);
    }
    if let Err(e) = p.workspace.sync() {
        return Err((
            format!("making the written files durable failed: {e}"),
            written,
        ));
    }
    Ok(written)
}

/// The final commit: clear the journal, record the operation (and the new branch for `both`).
/// Re-planned when only an unrelated append moved the session's last seq.
fn finish_commit(p: &mut Ports<'_>, journal: &Journal, finish: &Finish) -> Result<(), Error> {
    let session = &journal.session_id;
    for _ in 0..8 {
        let mut batch = Batch::new();
        batch.require(Precondition::JournalPresent(journal.id.clone()));
        batch.push(Write::RemoveJournal {
            journal: journal.id.clone(),
        });
        // Where the cursor stood is taken at the last seq this commit is conditioned on.
        let mut operation = journal.operation.clone();
        if finish.branch_move.is_some() {
            let last = p.store.last_seq(session).map_err(Error::Store)?;
            operation = journal.clone().with_cursor(finish, last).operation;
        }
        batch.push(Write::PutOperation {
            session: session.clone(),
            operation: operation.id.clone(),
            body: encode(&operation),
        });
        batch
            .preconditions
            .extend(finish.extra.preconditions.iter().cloned());
        batch.writes.extend(finish.extra.writes.iter().cloned());
        if finish.branch_move.is_some() || finish.notice.is_some() {
            let last = p.store.last_seq(session).map_err(Error::Store)?;
            batch.require(Precondition::LastSeq(session.clone(), last));
            if let Some(m) = &finish.branch_move {
                let moved = m.moved(last);
                batch.require(Precondition::Generation(
                    m.base().id.clone(),
                    m.base().generation,
                ));
                batch.push(Write::UpdateSession {
                    session: moved.id.clone(),
                    generation: moved.generation,
                    body: encode(&moved),
                });
            }
            if let Some(text) = &finish.notice {
                let seq = match &finish.branch_move {
                    Some(m) => m.base().last_seq(last),
                    None => load::session(p.store, session)?.last_seq(last),
                } + 1;
                let mut m = record::new_message(
                    p,
                    session,
                    seq,
                    Role::System,
                    MessageKind::Notice,
                    text.clone(),
                );
                m.visible_to_ui = false;
                record::push_message(&mut batch, &m);
            }
        }
        match p.store.commit(batch) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {
                if let Some(m) = &finish.branch_move
                    && load::session(p.store, &m.base().id)?.generation != m.base().generation
                {
                    return Err(Error::Raced(m.base().id.clone()));
                }
                if p.store
                    .journals()
                    .map_err(Error::Store)?
                    .iter()
                    .all(|r| r.id != journal.id.as_str())
                {
                    return Err(Error::Store(e));
                }
            }
            Err(e) => return Err(Error::Store(e)),
        }
    }
    Err(Error::Raced(session.clone()))
}

impl Journal {
    /// The journal with the cursor move of `finish` (the session row after it, and where the
    /// cursor stood in the operation), given the session's last seq.
    fn with_cursor(mut self, finish: &Finish, stored_last: u64) -> Self {
        if let Some(m) = &finish.branch_move {
            self.session_update = Some(m.moved(stored_last));
            self.operation.cursor_before = Some(CursorBefore::of(m.base(), stored_last));
        }
        self
    }
}
