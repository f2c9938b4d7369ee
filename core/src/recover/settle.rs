//! Settling one journal: finish the apply when every path holds its target (and nobody moved
//! the conversation since), otherwise put every path back that still holds what the apply
//! wrote; either way one commit clears the journal and records what was done.

use super::{Error, Recovered, Settled, Stuck};
use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::error::HostErrorKind;
use crate::hash::ContentHash;
use crate::id::OperationId;
use crate::load::{self, encode};
use crate::model::{Journal, OpFile, Operation, OperationKind};
use crate::path::WorkPath;

/// Why settling one journal stopped before it committed: the journal stays pending.
fn stuck(j: &Journal, path: Option<&WorkPath>, reason: String) -> Stuck {
    Stuck {
        journal_id: j.id.clone(),
        session_id: j.session_id.clone(),
        path: path.map(ToString::to_string),
        reason,
    }
}

/// Settled, stuck (nothing committed; files may have been restored, which a later run sees), or
/// a failure of the store.
pub(super) enum Settle {
    Done(Recovered),
    Stuck(Stuck),
}

/// What the rollback did: the paths put back, and those left as found (someone changed them).
#[derive(Default)]
struct RolledBack {
    restored: Vec<String>,
    left: Vec<String>,
}

pub(super) fn settle(p: &mut Ports<'_>, j: &Journal) -> Result<Settle, Error> {
    let states = match states(p, j) {
        Ok(states) => states,
        Err(s) => return Ok(Settle::Stuck(s)),
    };
    let all_written = j
        .entries
        .iter()
        .zip(&states)
        .all(|(e, now)| now == &e.target);
    // A `both` can only be finished if nobody moved the conversation since; otherwise its files
    // go back too, so files and conversation never disagree.
    let generation = match &j.session_update {
        Some(s) => {
            Some(load::session(p.store, &s.id)?.generation).filter(|g| g + 1 == s.generation)
        }
        None => None,
    };
    let finished = all_written && (j.session_update.is_none() || generation.is_some());
    let back = if finished {
        RolledBack::default()
    } else {
        match roll_back(p, j, &states) {
            Ok(back) => back,
            Err(s) => return Ok(Settle::Stuck(s)),
        }
    };
    let (batch, operation_id) = settle_batch(p, j, finished.then_some(generation), &back);
    match p.store.commit(batch) {
        Ok(()) => {}
        // Checked just before settling, under the lock; only a writer that ignores the lock
        // gets here, and the files this run restored must not go unreported.
        Err(e) if e.kind() == HostErrorKind::PreconditionFailed => {
            return Err(Error::Raced {
                journal: j.id.clone(),
                paths: back.restored,
            });
        }
        // A commit in doubt is safe to leave: the files this run restored are the journal's
        // priors either way, so if it did not commit the next run finds them there and
        // settles the journal again (rolled back, nothing to restore); if it did, the journal
        // is gone and the log says what the disk holds.
        Err(e) => return Err(Error::Store(e)),
    }
    Ok(Settle::Done(Recovered {
        journal_id: j.id.clone(),
        session_id: j.session_id.clone(),
        action: if finished {
            Settled::Finished
        } else {
            Settled::RolledBack
        },
        operation_id,
        restored_paths: back.restored,
        left_paths: back.left,
    }))
}

/// The hash each journaled path holds now (`None` for absent).
fn states(p: &mut Ports<'_>, j: &Journal) -> Result<Vec<Option<ContentHash>>, Stuck> {
    let mut states = Vec::with_capacity(j.entries.len());
    for e in &j.entries {
        match crate::files::state_of(p.workspace, &e.path) {
            Ok(now) => states.push(now),
            Err(err) => return Err(stuck(j, Some(&e.path), err.to_string())),
        }
    }
    Ok(states)
}

/// Put back, newest write first, every path that holds what the apply wrote, and make that
/// durable. Every prior is fetched before the first write, so a missing blob stops the journal
/// with the workspace untouched.
fn roll_back(
    p: &mut Ports<'_>,
    j: &Journal,
    states: &[Option<ContentHash>],
) -> Result<RolledBack, Stuck> {
    let mut back = RolledBack::default();
    let mut priors = Vec::new();
    for (e, now) in j.entries.iter().zip(states).rev() {
        if now == &e.prior {
            continue;
        }
        if now != &e.target {
            back.left.push(e.path.to_string());
            continue;
        }
        let prior = match &e.prior {
            Some(h) => match load::blob(p.store, h) {
                Ok(bytes) => Some(bytes),
                Err(err) => {
                    let why = format!("its earlier content cannot be read: {err}");
                    return Err(stuck(j, Some(&e.path), why));
                }
            },
            None => None,
        };
        priors.push((&e.path, prior, &e.target));
    }
    for (path, prior, written) in priors {
        // What the path holds now is what the apply wrote: its kind is in that blob's form.
        let now = match written {
            Some(h) if h == &crate::node::dir_hash() => Some(crate::model::NodeKind::Directory),
            Some(_) => p.workspace.node(path).ok().flatten().map(|n| n.kind()),
            None => None,
        };
        // A directory comes back with the host's default mode: the journal keeps no modes.
        let put = crate::files::put(p.workspace, path, &prior, None, now);
        if let Err(err) = put {
            return Err(stuck(j, Some(path), err.to_string()));
        }
        back.restored.push(path.to_string());
    }
    // The journal is cleared only once what was put back is durable.
    if let Err(err) = p.workspace.sync() {
        return Err(stuck(j, None, err.to_string()));
    }
    Ok(back)
}

/// The commit that settles the journal: it clears it, records the apply's operation when it is
/// `finished` (`Some`, with the session generation a `both` moves from), and records the
/// recovery. Returns the batch and the operation that now stands for the apply.
fn settle_batch(
    p: &mut Ports<'_>,
    j: &Journal,
    finished: Option<Option<u64>>,
    back: &RolledBack,
) -> (Batch, OperationId) {
    let mut batch = Batch::new();
    batch.require(Precondition::JournalPresent(j.id.clone()));
    batch.push(Write::RemoveJournal {
        journal: j.id.clone(),
    });
    if let Some(generation) = finished {
        if let (Some(s), Some(g)) = (&j.session_update, generation) {
            batch.require(Precondition::Generation(s.id.clone(), g));
            batch.push(Write::UpdateSession {
                session: s.id.clone(),
                generation: s.generation,
                body: encode(s),
            });
        }
        batch.push(Write::PutOperation {
            session: j.session_id.clone(),
            operation: j.operation.id.clone(),
            body: encode(&j.operation),
        });
    }
    let files: Vec<OpFile> = j
        .entries
        .iter()
        .filter(|e| back.restored.contains(&e.path.to_string()))
        .map(|e| OpFile {
            path: e.path.clone(),
            action: if e.prior.is_some() {
                crate::model::FileAction::Restore
            } else {
                crate::model::FileAction::Delete
            },
            before: e.target.clone(),
            after: e.prior.clone(),
            undid: Vec::new(),
            before_mode: None,
            after_mode: None,
            merged: false,
            forced: false,
        })
        .collect();
    let note = if finished.is_some() {
        format!(
            "finished the interrupted {} operation {}",
            j.operation.kind.as_str(),
            j.operation.id
        )
    } else {
        format!(
            "rolled back the interrupted {} operation {}: {} path(s) restored, {} left as found",
            j.operation.kind.as_str(),
            j.operation.id,
            back.restored.len(),
            back.left.len()
        )
    };
    let recovery = recovery_operation(p, j, files, note);
    batch.push(Write::PutOperation {
        session: j.session_id.clone(),
        operation: recovery.id.clone(),
        body: encode(&recovery),
    });
    let operation_id = if finished.is_some() {
        j.operation.id.clone()
    } else {
        recovery.id
    };
    (batch, operation_id)
}

pub(super) fn recovery_operation(
    p: &mut Ports<'_>,
    j: &Journal,
    files: Vec<OpFile>,
    note: String,
) -> Operation {
    Operation {
        id: p.mint(),
        session_id: j.session_id.clone(),
        kind: OperationKind::Recovery,
        created_at: p.now(),
        target: Some(crate::model::OpTarget::Operation {
            operation_id: j.operation.id.clone(),
        }),
        policy: None,
        files,
        undoes: None,
        journal_id: Some(j.id.clone()),
        branch_target: None,
        generation: None,
        dropped_through: None,
        cursor_before: None,
        note: Some(note),
    }
}
