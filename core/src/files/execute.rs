//! Apply a plan: journal first, then write newest to oldest with a hash re-check before each
//! write, then one commit that clears the journal and records the operation. A failed write
//! rolls every written path back from the journal (see `rollback`).

use super::plan::{PathPlan, Plan};
use super::rollback::{after_failed_commit, changed_anyway, give_up, put};
use super::{Error, UnsafeReason};
use crate::batch::{Batch, Precondition, Write};
use crate::conversation::ConversationPlan;
use crate::ctx::Ports;
use crate::error::HostErrorKind;
use crate::hash::ContentHash;
use crate::id::{JournalId, OperationId};
use crate::load::{self, encode};
use crate::model::{
    FileAction, Journal, JournalEntry, MessageKind, OpFile, OpTarget, Operation, OperationKind,
    Policy, Role,
};
use crate::record;
use serde::Serialize;

/// What the final commit records besides the file writes.
#[derive(Clone, Debug)]
pub(crate) struct Finish {
    pub(crate) kind: OperationKind,
    pub(crate) target: Option<OpTarget>,
    pub(crate) policy: Policy,
    pub(crate) undoes: Option<OperationId>,
    /// For `both`: the conversation cursor move committed with the operation.
    pub(crate) branch_move: Option<ConversationPlan>,
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

/// A path the apply wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoredFile {
    /// The file.
    pub path: String,
    /// Restored or deleted.
    pub action: FileAction,
    /// The user's later edits were kept (merge).
    pub merged: bool,
    /// Content the engine could not prove it made was overwritten (force; undoable).
    pub forced: bool,
}

/// The result of [`execute`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Executed {
    pub(crate) applied: bool,
    pub(crate) operation_id: Option<OperationId>,
    pub(crate) restored: Vec<RestoredFile>,
    pub(crate) skipped: Vec<String>,
    pub(crate) cause: Option<String>,
}

pub(super) struct PlannedWrite<'a> {
    pub(super) plan: &'a PathPlan,
    bytes: Option<Vec<u8>>,
    /// The hash of `bytes`: the plan's for a restore, computed once here for a merge.
    hash: Option<ContentHash>,
    merged: bool,
    forced: bool,
}

impl PlannedWrite<'_> {
    /// The mode to set after writing: the recorded one, when it differs from the file's now.
    fn mode(&self) -> Option<u32> {
        self.bytes.as_ref()?;
        self.plan
            .target_mode
            .filter(|m| Some(*m) != self.plan.current_mode)
    }

    pub(super) fn prior(&self) -> &Option<Vec<u8>> {
        self.plan
            .current
            .as_ref()
            .expect("only paths that were read are written")
    }

    /// The hash of [`Self::prior`], computed when the plan read it.
    fn prior_hash(&self) -> &Option<ContentHash> {
        self.plan
            .current_hash
            .as_ref()
            .expect("only paths that were read are written")
    }
}

/// Decide per path what the policy writes; the rest stays unsafe.
fn choose(plan: &Plan, policy: Policy) -> (Vec<PlannedWrite<'_>>, Vec<String>) {
    let mut writes = Vec::new();
    let mut blocked: Vec<String> = plan
        .unreadable
        .iter()
        .map(|d| format!("checkpoint:{}", d.id))
        .collect();
    for p in plan.paths.iter().filter(|p| !p.unchanged) {
        let external = p
            .conflict
            .as_ref()
            .is_some_and(|c| c.reason == UnsafeReason::ExternalModified);
        let restore = |forced| {
            let bytes = p.target.clone()?;
            let hash = p.target_hash.clone()?;
            Some(PlannedWrite {
                plan: p,
                bytes,
                hash,
                merged: false,
                forced,
            })
        };
        let write = match (&p.conflict, policy) {
            (None, _) => restore(false),
            (Some(_), Policy::Merge) if external => p.merged.clone().map(|m| PlannedWrite {
                plan: p,
                hash: Some(ContentHash::of(&m)),
                bytes: Some(m),
                merged: true,
                forced: false,
            }),
            (Some(_), Policy::Force) if p.forceable() => restore(true),
            _ => None,
        };
        match write {
            Some(w) => writes.push(w),
            None => blocked.push(p.path.to_string()),
        }
    }
    writes.sort_by(|a, b| {
        b.plan
            .newest_seq
            .cmp(&a.plan.newest_seq)
            .then(a.plan.path.cmp(&b.plan.path))
    });
    (writes, blocked)
}

/// Carry out `plan` under `policy`.
pub(crate) fn execute(p: &mut Ports<'_>, plan: &Plan, finish: Finish) -> Result<Executed, Error> {
    let (writes, blocked) = choose(plan, finish.policy);
    if !blocked.is_empty() && finish.policy != Policy::Skip {
        let cause = format!(
            "{} path(s) are unsafe under the {:?} policy",
            blocked.len(),
            finish.policy
        )
        .to_lowercase();
        return Ok(Executed {
            skipped: blocked,
            cause: Some(cause),
            ..Executed::default()
        });
    }
    if writes.is_empty() && finish.branch_move.is_none() {
        return Ok(Executed {
            skipped: blocked,
            cause: Some("nothing to restore".into()),
            ..Executed::default()
        });
    }
    let session = plan.session.clone();
    let journal_id: JournalId = p.mint();
    let hash = |b: &Option<Vec<u8>>| b.as_deref().map(ContentHash::of);
    let files: Vec<OpFile> = writes
        .iter()
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
        branch_target: finish.branch_move.as_ref().map(|m| m.target.clone()),
        generation: finish.branch_move.as_ref().map(|m| m.base.generation + 1),
        dropped_through: None,
        note: finish.note.clone(),
    };
    let journal = Journal {
        id: journal_id.clone(),
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
        operation: operation.clone(),
        session_update: match &finish.branch_move {
            Some(m) => Some(m.moved(p.store.last_seq(&session).map_err(Error::Store)?)),
            None => None,
        },
    };
    // Both sides of every write, hashed when planned. A side the store already has (usually
    // both) costs it one lookup. Each new side is offered the other as a delta base: they are
    // versions of the same file.
    let mut batch = Batch::new();
    for w in &writes {
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
        journal: journal_id.clone(),
        session: session.clone(),
        body: encode(&journal),
    });
    p.store.commit(batch).map_err(Error::Store)?;

    let mut written: Vec<&PlannedWrite<'_>> = Vec::new();
    for w in &writes {
        let now = p.workspace.read(&w.plan.path).map(|b| hash(&b));
        let mut attempted = false;
        let step = match now {
            Err(e) => Err(format!("re-reading {} failed: {e}", w.plan.path)),
            Ok(h) if h != *w.prior_hash() => {
                Err(format!("{} changed after the preview", w.plan.path))
            }
            Ok(_) => {
                attempted = true;
                put(p.workspace, &w.plan.path, &w.bytes, w.mode())
                    .map_err(|e| format!("writing {} failed: {e}", w.plan.path))
            }
        };
        if let Err(cause) = step {
            // A failed write may still have changed the file (the rename happened, the sync
            // after it failed): whatever no longer holds its prior bytes is rolled back too.
            if attempted && changed_anyway(p, w) {
                written.push(w);
            }
            return give_up(p, &session, &journal_id, cause, &written, blocked);
        }
        written.push(w);
    }
    // Every write is in place; make them durable (one sync per directory) before the commit
    // that says they happened. Should that fail, every written path is rolled back.
    if let Err(e) = p.workspace.sync() {
        let cause = format!("making the written files durable failed: {e}");
        return give_up(p, &session, &journal_id, cause, &written, blocked);
    }

    if let Err(e) = finish_commit(p, &journal, &finish) {
        return Err(after_failed_commit(p, &session, &journal_id, e, &written));
    }
    let restored = writes
        .iter()
        .map(|w| RestoredFile {
            path: w.plan.path.to_string(),
            action: PathPlan::action_of(&w.bytes),
            merged: w.merged,
            forced: w.forced,
        })
        .collect();
    Ok(Executed {
        applied: true,
        operation_id: Some(operation.id),
        restored,
        skipped: blocked,
        cause: None,
    })
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
        batch.push(Write::PutOperation {
            session: session.clone(),
            operation: journal.operation.id.clone(),
            body: encode(&journal.operation),
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
                    m.base.id.clone(),
                    m.base.generation,
                ));
                batch.push(Write::UpdateSession {
                    session: moved.id.clone(),
                    generation: moved.generation,
                    body: encode(&moved),
                });
            }
            if let Some(text) = &finish.notice {
                let seq = match &finish.branch_move {
                    Some(m) => m.base.last_seq(last),
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
                    && load::session(p.store, &m.base.id)?.generation != m.base.generation
                {
                    return Err(Error::Raced(m.base.id.clone()));
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
