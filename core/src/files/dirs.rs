//! The whole plan, path by path, then what only the whole plan can tell: a directory may go
//! only while it holds nothing the rewind does not remove.

use super::Error;
use super::UnsafeReason;
use super::gather::{Change, Gathered};
use super::plan::{Conflict, PathPlan, Plan, plan_path};
use crate::id::SessionId;
use crate::node::dir_hash;
use crate::path::WorkPath;
use crate::ports::Store;
use crate::ports::Workspace;
use std::collections::BTreeMap;
use std::collections::BTreeSet;

impl PathPlan {
    /// The path is a directory now.
    pub(crate) fn is_dir_now(&self) -> bool {
        self.current_hash == Some(Some(dir_hash()))
    }
    /// The restore makes it a directory.
    pub(crate) fn restores_dir(&self) -> bool {
        self.target_hash == Some(Some(dir_hash()))
    }
}

/// A directory the rewind would remove or replace must hold nothing but paths the rewind
/// removes: anything else (the person's file, an ignored build output, an entry the session
/// never recorded) makes it a conflict no policy overrides, so no one's files go with it.
pub(super) fn guard_directories(ws: &mut dyn Workspace, paths: &mut [PathPlan]) {
    let removed: BTreeSet<WorkPath> = paths
        .iter()
        .filter(|p| p.target == Some(None))
        .map(|p| p.path.clone())
        .collect();
    for p in paths.iter_mut() {
        if p.unchanged || !p.is_dir_now() || p.restores_dir() {
            continue;
        }
        let kept: Vec<String> = match ws.dir_entries(&p.path) {
            Ok(names) => names
                .into_iter()
                .filter(|n| {
                    WorkPath::parse(&format!("{}/{n}", p.path))
                        .map_or(true, |c| !removed.contains(&c))
                })
                .collect(),
            Err(e) => vec![format!("(unlistable: {e})")],
        };
        if kept.is_empty() {
            continue;
        }
        p.merged = None;
        p.conflict = Some(Conflict {
            reason: UnsafeReason::DirectoryNotEmpty,
            current: p.current_hash.clone(),
            expected: None,
            message: format!(
                "{} is a directory that holds what this rewind does not remove ({}); it is kept",
                p.path,
                kept.join(", ")
            ),
        });
    }
}

/// Simulate undoing `gathered` against the workspace.
pub(crate) fn plan(
    store: &dyn Store,
    ws: &mut dyn Workspace,
    session: SessionId,
    gathered: Gathered,
) -> Result<Plan, Error> {
    let mut by_path: BTreeMap<WorkPath, Vec<&Change>> = BTreeMap::new();
    for c in &gathered.changes {
        by_path.entry(c.path.clone()).or_default().push(c);
    }
    let mut paths = Vec::with_capacity(by_path.len());
    for (path, chain) in by_path {
        paths.push(plan_path(store, ws, path, chain)?);
    }
    guard_directories(ws, &mut paths);
    Ok(Plan {
        session,
        paths,
        unreadable: gathered.unreadable,
        reverted: gathered.reverted,
        checkpoints: gathered.checkpoints,
    })
}
