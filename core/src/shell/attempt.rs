//! One try at a snapshot: read the session's state, walk, compare, commit under a `LastSeq`
//! precondition. `Ok(None)` means someone recorded into the session meanwhile: try again.

use super::chain::{head, load_manifest, stat_cache, store_manifest};
use super::diff::{Known, diff, expected};
use super::journal;
use super::manifest::{Manifest, State};
use super::outcome::{outcome, untracked_of};
use super::record::{Changed, changes};
use super::take::{Taken, take};
use super::{Attribution, Error, Options, Outcome, Progress, committed, scanner};
use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::hash::ContentHash;
use crate::id::SessionId;
use crate::load::{self, decode_rows, encode};
use crate::model::{Checkpoint, CheckpointKind, FileChange, Operation, Turn, WorkspaceSnapshot};
use crate::path::WorkPath;
use crate::ports::{SeqRange, Store, StoreWrite};
use std::collections::{BTreeMap, BTreeSet};

/// What the session's previous snapshot left.
struct Previous {
    head: WorkspaceSnapshot,
    manifest: Manifest,
    depth: u32,
}

impl Previous {
    /// Whether the walk found every file as this manifest has it (none re-read, none racy, none
    /// added or gone), so the new manifest would be this one.
    fn vouches_for(&self, taken: &Taken) -> bool {
        taken.reread == 0 && taken.len() == self.manifest.entries.len() && taken.racy == 0
    }
}

fn previous(
    p: &Ports<'_>,
    session: &SessionId,
    head: Option<WorkspaceSnapshot>,
) -> Result<Option<Previous>, Error> {
    let Some(head) = head else {
        return Ok(None);
    };
    let (manifest, chain) = load_manifest(p.store, session, &head.manifest)?;
    let depth = chain.len() as u32 - 1;
    Ok(Some(Previous {
        head,
        manifest,
        depth,
    }))
}

/// Tracked paths the walk no longer lists but that still exist stay tracked: those of the
/// previous manifest, and those the session recorded since (a file tool's write to an ignored
/// path), so an ignore rule never turns a file on disk into a deletion.
fn keep_tracked(
    p: &mut Ports<'_>,
    taken: &mut Taken,
    prev: &Manifest,
    recorded: &BTreeMap<WorkPath, Known>,
    max: u64,
) -> Result<(), Error> {
    let missing: BTreeSet<WorkPath> = prev
        .entries
        .keys()
        .chain(recorded.keys())
        .filter(|k| !taken.manifest.entries.contains_key(*k))
        .cloned()
        .collect();
    for path in missing {
        if let Some(entry) = scanner(p).stat(&path).map_err(Error::Scan)? {
            taken.add(p.workspace, entry, Some(prev), max)?;
        }
    }
    Ok(())
}

/// Move the contents read so far that the store lacks into `batch` (recording them in
/// `taken.added`). The new version of a file is most like the one it replaced, so that one is
/// named as the base a store may keep it as a delta against.
fn stash(
    store: &dyn Store,
    taken: &mut Taken,
    hint: Option<&Manifest>,
    batch: &mut Batch,
) -> Result<(), Error> {
    for fresh in taken.take_fresh() {
        if store.has_blob(&fresh.hash).map_err(Error::Store)? {
            continue;
        }
        let base = hint
            .and_then(|m| m.entries.get(&fresh.path))
            .and_then(|e| match &e.state {
                State::Tracked(v) if v.hash != fresh.hash => Some(v.hash.clone()),
                _ => None,
            });
        taken.added.insert(fresh.hash.clone());
        batch.push(Write::PutBlob {
            hash: fresh.hash,
            bytes: fresh.bytes,
            base,
        });
    }
    Ok(())
}

/// Commit what was read so far in a batch of its own, so a first snapshot of a big tree holds
/// at most `FLUSH_BYTES` of contents: content-addressed rows nothing names yet, harmless if
/// the snapshot then loses its race.
fn spill(
    store: &mut dyn StoreWrite,
    taken: &mut Taken,
    hint: Option<&Manifest>,
) -> Result<(), Error> {
    let mut batch = Batch::new();
    stash(store, taken, hint, &mut batch)?;
    if batch.writes.is_empty() {
        return Ok(());
    }
    store.commit(batch).map_err(Error::Commit)
}

/// Walk the workspace against `cache` (the previous manifest, or another session's for its stat
/// data), spilling to the store as it goes; paths the walk no longer lists but that exist stay
/// tracked.
fn walk(
    p: &mut Ports<'_>,
    cache: Option<&Manifest>,
    prev: Option<(&Previous, &Recorded)>,
    scope: Option<&[WorkPath]>,
    progress: &mut dyn FnMut(Progress),
) -> Result<(Taken, Vec<crate::ports::Unlisted>), Error> {
    // Only the paths the journal names are walked when it vouches for the rest.
    let scope = scope.filter(|_| prev.is_some());
    let listing = match scope {
        Some(scope) => scanner(p).list_within(scope),
        None => scanner(p).list(),
    }
    .map_err(Error::Scan)?;
    let max = p.limits.max_file_bytes;
    let store = &mut *p.store;
    let mut spill_to_store = |t: &mut Taken| spill(store, t, cache);
    let walked = (listing.entries, listing.started_ns);
    let mut taken = take(
        p.workspace,
        walked,
        cache,
        max,
        progress,
        &mut spill_to_store,
    )?;
    if let Some((v, recorded)) = prev {
        if let Some(scope) = scope {
            journal::keep_unchanged(&mut taken, &v.manifest, scope);
        }
        keep_tracked(p, &mut taken, &v.manifest, &recorded.want, max)?;
    }
    Ok((taken, listing.unlisted))
}

pub(super) fn attempt(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: &Options,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<Outcome>, Error> {
    let s = load::session(p.store, session)?;
    let turn = crate::record::live_turn(p, &s, &opts.turn_id)?;
    let last = p.store.last_seq(session).map_err(Error::Store)?;
    let seq = s.last_seq(last) + 1;
    let head_row = head(p.store, session)?;
    let scope = match journal::ask(p, session, head_row.as_ref(), &turn.id)? {
        journal::Asked::Unchanged(out) => return Ok(Some(out)),
        journal::Asked::Scope(scope) => scope,
    };
    let prev = previous(p, session, head_row)?;
    let other = prev.is_none().then(|| stat_cache(p.store, session));
    let other = other.transpose()?.flatten();
    let cache = prev.as_ref().map(|v| &v.manifest).or(other.as_ref());
    // What was recorded since the previous snapshot is read before the walk, so the walk can
    // keep every recorded path tracked; the `LastSeq` precondition catches later records.
    let (op_count, recorded) = recorded_of(p, session, prev.as_ref())?;
    let with_recorded = prev.as_ref().zip(recorded.as_ref());
    let (mut taken, unlisted) = walk(p, cache, with_recorded, scope.as_deref(), progress)?;
    let mut changed = Changed::default();
    let (file_changes, since_any) = match with_recorded {
        Some((v, r)) => changes_since(p, v, r, &taken, &mut changed)?,
        None => (Vec::new(), false),
    };
    let untracked = untracked_of(&taken.manifest, unlisted);
    let baseline = prev.is_none();
    // Nothing to write: no change, no stat data to refresh, nothing recorded to move past, and
    // the turn already marked (so `Auto` knows this turn has had its first snapshot).
    if let Some(v) = &prev
        && file_changes.is_empty()
        && !since_any
        && v.vouches_for(&taken)
        && v.head.turn_id.as_ref() == Some(&turn.id)
    {
        let manifest = v.head.manifest.clone();
        scanner(p).vouch(&manifest);
        return Ok(Some(outcome(
            &taken, baseline, changed, untracked, manifest,
        )));
    }
    let mut batch = Batch::new();
    stash(p.store, &mut taken, cache, &mut batch)?;
    let added = std::mem::take(&mut taken.added);
    let prev_ref = prev
        .as_ref()
        .map(|v| (&v.manifest, &v.head.manifest, v.depth));
    let (write, manifest_hash, _) = store_manifest(&taken.manifest, prev_ref);
    batch.push(write);
    let mut head_seq = seq - 1;
    let (mut recorded_id, mut recorded_kind) = (None, None);
    if !file_changes.is_empty() {
        let ckp = checkpoint_for(
            p,
            session,
            seq,
            &turn,
            opts,
            prev.as_ref(),
            file_changes,
            &added,
        );
        batch.push(ckp.put());
        head_seq = seq;
        (recorded_id, recorded_kind) = (Some(ckp.id), Some(ckp.kind));
    }
    let row = WorkspaceSnapshot {
        session_id: session.clone(),
        manifest: manifest_hash.clone(),
        seq: head_seq,
        operations: op_count,
        turn_id: Some(turn.id),
        taken_at: p.now(),
        files: taken.manifest.file_count(),
        bytes: taken.manifest.tracked_bytes(),
    };
    batch.push(Write::PutWorkspaceSnapshot {
        session: session.clone(),
        body: encode(&row),
    });
    batch.require(Precondition::LastSeq(session.clone(), last));
    let mut out = outcome(&taken, baseline, changed, untracked, manifest_hash);
    out.checkpoint_id = recorded_id;
    out.kind = recorded_kind;
    let done = committed(p.store.commit(batch))?;
    if done {
        scanner(p).vouch(&out.manifest);
    }
    Ok(done.then_some(out))
}

/// How many operations the session has, and what it recorded since `prev`.
fn recorded_of(
    p: &Ports<'_>,
    session: &SessionId,
    prev: Option<&Previous>,
) -> Result<(u64, Option<Recorded>), Error> {
    let operations = p.store.operations(session).map_err(Error::Store)?;
    let recorded = match prev {
        Some(v) => Some(recorded_since(p, session, v, &operations)?),
        None => None,
    };
    Ok((operations.len() as u64, recorded))
}

/// What the session recorded since its previous snapshot: each path's expected state, and
/// whether anything (a checkpoint, an operation) was recorded at all.
struct Recorded {
    want: BTreeMap<WorkPath, Known>,
    any: bool,
}

fn recorded_since(
    p: &Ports<'_>,
    session: &SessionId,
    v: &Previous,
    operations: &[crate::ports::Row],
) -> Result<Recorded, Error> {
    let rows = p
        .store
        .checkpoints_in(session, SeqRange::from(v.head.seq + 1))
        .map_err(Error::Store)?;
    let recorded: Vec<Checkpoint> = decode_rows("checkpoint", rows).items;
    let skip = (v.head.operations as usize).min(operations.len());
    let ops: Vec<Operation> = decode_rows("operation", operations[skip..].to_vec()).items;
    let any = !recorded.is_empty() || !ops.is_empty();
    let want = expected(&recorded, &ops);
    Ok(Recorded { want, any })
}

/// What changed since the previous snapshot that nothing recorded explains, and whether anything
/// was recorded since it.
fn changes_since(
    p: &Ports<'_>,
    v: &Previous,
    recorded: &Recorded,
    taken: &Taken,
    changed: &mut Changed,
) -> Result<(Vec<FileChange>, bool), Error> {
    let diffs = diff(&v.manifest, &recorded.want, &taken.manifest);
    let file_changes = changes(p.store, diffs, &taken.manifest, &taken.fresh, changed)?;
    Ok((file_changes, recorded.any))
}

/// Whose `file_changes` are: what the caller said, or for `Auto` the command's when the turn
/// already had a snapshot.
fn kind_of(opts: &Options, turn: &Turn, prev: Option<&Previous>) -> CheckpointKind {
    match opts.attribution {
        Attribution::Command => CheckpointKind::Shell,
        Attribution::External => CheckpointKind::External,
        Attribution::Auto => match prev.and_then(|v| v.head.turn_id.as_ref()) {
            Some(t) if t == &turn.id => CheckpointKind::Shell,
            _ => CheckpointKind::External,
        },
    }
}

/// The checkpoint that records `file_changes`, of the kind [`kind_of`] says.
#[allow(clippy::too_many_arguments)]
fn checkpoint_for(
    p: &mut Ports<'_>,
    session: &SessionId,
    seq: u64,
    turn: &Turn,
    opts: &Options,
    prev: Option<&Previous>,
    file_changes: Vec<FileChange>,
    added: &BTreeSet<ContentHash>,
) -> Checkpoint {
    let kind = kind_of(opts, turn, prev);
    let added_bytes = file_changes
        .iter()
        .filter_map(|c| c.after.as_ref())
        .filter(|v| added.contains(&v.hash))
        .map(|v| v.size)
        .sum();
    Checkpoint {
        id: p.mint(),
        session_id: session.clone(),
        seq,
        turn_id: turn.id.clone(),
        prompt_id: turn.prompt_id.clone(),
        tool_message_id: opts.tool_message_id.clone(),
        tool_call_id: opts.tool_call_id.clone(),
        tool_name: match kind {
            CheckpointKind::External => "external".into(),
            _ => opts.tool_name.clone().unwrap_or_else(|| "shell".into()),
        },
        tool_input: opts
            .command
            .clone()
            .filter(|_| kind == CheckpointKind::Shell),
        kind,
        created_at: p.now(),
        changes: file_changes,
        added_bytes,
    }
}
