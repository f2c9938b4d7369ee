//! What a snapshot says it did.

use super::manifest::{Manifest, State};
use super::record::Changed;
use super::take::Taken;
use super::{Outcome, UntrackedFile};
use crate::hash::ContentHash;
use crate::model::WorkspaceSnapshot;

pub(super) fn untracked_of(
    manifest: &Manifest,
    unlisted: Vec<crate::ports::Unlisted>,
) -> Vec<UntrackedFile> {
    let mut out: Vec<UntrackedFile> = manifest
        .entries
        .iter()
        .filter_map(|(path, e)| match e.state {
            State::Untracked(u) => Some(UntrackedFile {
                path: path.to_string(),
                reason: u.as_str().to_owned(),
            }),
            State::Tracked(_) => None,
        })
        .collect();
    out.extend(unlisted.into_iter().map(|u| UntrackedFile {
        path: u.path,
        reason: u.reason,
    }));
    out
}

pub(super) fn outcome(
    taken: &Taken,
    baseline: bool,
    changed: Changed,
    untracked: Vec<UntrackedFile>,
    manifest: ContentHash,
) -> Outcome {
    Outcome {
        checkpoint_id: None,
        kind: None,
        baseline,
        changed,
        untracked,
        files: taken.manifest.file_count(),
        reread: taken.reread,
        skipped: taken.skipped,
        racy: taken.racy,
        manifest,
    }
}

/// The outcome of a snapshot the journal proved unchanged: `head` again. Its untracked paths
/// are not listed (the manifest that names them is not loaded); they were at `head`.
pub(super) fn unchanged(head: &WorkspaceSnapshot) -> Outcome {
    Outcome {
        checkpoint_id: None,
        kind: None,
        baseline: false,
        changed: Changed::default(),
        untracked: Vec::new(),
        files: head.files,
        reread: 0,
        skipped: head.files,
        racy: 0,
        manifest: head.manifest.clone(),
    }
}
