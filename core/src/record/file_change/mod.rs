//! Record a tool's file change: the exact bytes before and after each file, stored as
//! content-addressed blobs in one checkpoint (`edit`), or the record that a change could not be
//! captured (`failed_capture`), which a rewind reports instead of restoring stale content.

use super::{Error, append, live_turn};
use crate::batch::{Batch, Write};
use crate::ctx::Ports;
use crate::hash::ContentHash;
use crate::id::{CheckpointId, MessageId, SessionId, TurnId};
use crate::load;
use crate::model::{Capture, Checkpoint, CheckpointKind, FileChange};
use crate::patch::{self, Hunk, LineStats};
use crate::path::WorkPath;
use serde::{Deserialize, Serialize};

mod content;
pub(crate) use content::text_of;
use content::{Hashed, change, new_bytes, unrecorded};

/// One file a tool changed: the exact bytes before and after (`None` = absent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditChange {
    /// The file (validated by the caller's `WorkPath::parse`).
    pub path: String,
    /// Bytes before the tool ran, `None` when the tool created the file.
    pub before: Option<Vec<u8>>,
    /// Bytes after, `None` when the tool deleted the file.
    pub after: Option<Vec<u8>>,
    /// The tool's own jsdiff hunks, when it reported them; checked against the bytes.
    pub patch: Option<Vec<Hunk>>,
    /// Permission bits before (e.g. `0o755`), when the host knows them.
    pub before_mode: Option<u32>,
    /// Permission bits after; when not given and the file exists, read from the workspace.
    pub after_mode: Option<u32>,
}

/// The kind of a tool call that made `changes`: one that only created files wrote them; one
/// that changed any existing file edited.
pub fn kind_for(changes: &[EditChange]) -> CheckpointKind {
    match changes.iter().all(|c| c.before.is_none()) {
        true => CheckpointKind::Write,
        false => CheckpointKind::Edit,
    }
}

/// Options of [`edit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditOptions {
    /// The live turn whose tool made the change.
    pub turn_id: TurnId,
    /// The tool's name (e.g. `Edit`, `Write`).
    pub tool_name: String,
    /// The tool call's id.
    pub tool_call_id: Option<String>,
    /// The assistant message that issued the call.
    pub tool_message_id: Option<MessageId>,
    /// Edit, write, shell or manual.
    pub kind: CheckpointKind,
    /// The files (at least one, each path once).
    pub changes: Vec<EditChange>,
}

/// One file's edit as hosts receive it (the JS API, the JSON scenarios): everything but the
/// bytes, which each host decodes its own way (`Uint8Array`, base64, a file on disk).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileEdit {
    /// The live turn whose tool made the change.
    pub turn_id: TurnId,
    /// The file.
    pub path: String,
    /// The tool's name.
    pub tool_name: String,
    /// The tool call's id.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The assistant message that issued the call.
    #[serde(default)]
    pub tool_message_id: Option<MessageId>,
    /// Edit (default), write, shell or manual.
    #[serde(default)]
    pub kind: Option<CheckpointKind>,
    /// Permission bits before the tool ran (e.g. `0o755` = 493), when known.
    #[serde(default)]
    pub before_mode: Option<u32>,
    /// Permission bits after; read from the workspace when not given.
    #[serde(default)]
    pub after_mode: Option<u32>,
}

impl FileEdit {
    /// The edit with its bytes before and after (`None` = absent).
    pub fn with_bytes(self, before: Option<Vec<u8>>, after: Option<Vec<u8>>) -> EditOptions {
        EditOptions {
            turn_id: self.turn_id,
            tool_name: self.tool_name,
            tool_call_id: self.tool_call_id,
            tool_message_id: self.tool_message_id,
            kind: self.kind.unwrap_or(CheckpointKind::Edit),
            changes: vec![EditChange {
                path: self.path,
                before,
                after,
                patch: None,
                before_mode: self.before_mode,
                after_mode: self.after_mode,
            }],
        }
    }
}

/// Options of [`failed_capture`].
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailedCaptureOptions {
    /// The live turn.
    pub turn_id: TurnId,
    /// The tool's name.
    pub tool_name: String,
    /// The file whose before-state could not be captured.
    pub path: String,
    /// Why (e.g. `read_failed`, `too_large`).
    pub reason: String,
}

/// One recorded file of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedFile {
    /// The file.
    pub path: WorkPath,
    /// Hash before (`None` = absent or unknown).
    pub before: Option<ContentHash>,
    /// Hash after (`None` = absent).
    pub after: Option<ContentHash>,
    /// Line stats when a patch exists.
    #[serde(flatten)]
    pub stats: LineStats,
    /// Set when the change was recorded as a failed capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_failed: Option<String>,
}

/// What [`edit`] / [`failed_capture`] recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditOutcome {
    /// The new checkpoint.
    pub checkpoint_id: CheckpointId,
    /// Its position.
    pub seq: u64,
    /// Per file.
    pub files: Vec<RecordedFile>,
}

fn recorded(c: &FileChange) -> RecordedFile {
    RecordedFile {
        path: c.path.clone(),
        before: c.before.as_ref().map(|v| v.hash.clone()),
        after: c.after.as_ref().map(|v| v.hash.clone()),
        stats: c.patch.as_deref().map(patch::stats).unwrap_or_default(),
        capture_failed: match &c.capture {
            Capture::Failed { reason } => Some(reason.clone()),
            Capture::Captured => None,
        },
    }
}

fn commit_checkpoint(
    p: &mut Ports<'_>,
    session: &SessionId,
    template: Checkpoint,
    blobs: Vec<Write>,
) -> Result<EditOutcome, Error> {
    append(p, session, |p, seq| {
        let ckp = Checkpoint {
            id: p.mint(),
            seq,
            created_at: p.now(),
            ..template.clone()
        };
        let mut batch = Batch::new();
        for b in &blobs {
            batch.push(b.clone());
        }
        batch.push(ckp.put());
        let files = ckp.changes.iter().map(recorded).collect();
        Ok((
            batch,
            EditOutcome {
                checkpoint_id: ckp.id,
                seq,
                files,
            },
        ))
    })
}

/// Record a tool's file changes as one checkpoint. Durable when it returns.
pub fn edit(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: EditOptions,
) -> Result<EditOutcome, Error> {
    if opts.changes.is_empty() {
        return Err(Error::InvalidInput(
            "an edit needs at least one file change".into(),
        ));
    }
    if opts.tool_name.trim().is_empty() {
        return Err(Error::InvalidInput("tool name must not be empty".into()));
    }
    let s = load::session(p.store, session)?;
    let turn = live_turn(p, &s, &opts.turn_id)?;
    let hashed: Vec<Hashed> = opts.changes.into_iter().map(Hashed::new).collect();
    let (added, over_quota) = new_bytes(p, session, &hashed)?;
    let added_bytes = if over_quota { 0 } else { added };
    let mut blobs = Vec::new();
    let mut changes: Vec<FileChange> = Vec::with_capacity(hashed.len());
    for mut h in hashed {
        if h.change.after.is_some() && h.change.after_mode.is_none() {
            // The tool has written the file: its mode now is its after mode.
            let path = WorkPath::parse(&h.change.path)?;
            // A mode that cannot be read is simply unknown: it never fails the record.
            h.change.after_mode = p.workspace.mode(&path).unwrap_or(None);
        }
        let change = match over_quota {
            true => unrecorded(h, "quota_exceeded")?,
            false => change(h, p.limits.max_file_bytes, &mut blobs)?,
        };
        if changes.iter().any(|known| known.path == change.path) {
            return Err(Error::InvalidInput(format!(
                "{} appears twice in one edit",
                change.path
            )));
        }
        changes.push(change);
    }
    let template = Checkpoint {
        id: p.mint(),
        session_id: session.clone(),
        seq: 0,
        turn_id: turn.id,
        prompt_id: turn.prompt_id,
        tool_message_id: opts.tool_message_id,
        tool_call_id: opts.tool_call_id,
        tool_name: opts.tool_name,
        tool_input: None,
        kind: opts.kind,
        created_at: 0,
        changes,
        added_bytes,
    };
    commit_checkpoint(p, session, template, blobs)
}

/// Record that a tool changed a file whose before-state could not be captured. A rewind then
/// reports the path as `unsupported_checkpoint`; it never restores stale content.
pub fn failed_capture(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: FailedCaptureOptions,
) -> Result<EditOutcome, Error> {
    let path = WorkPath::parse(&opts.path)?;
    if opts.reason.trim().is_empty() {
        return Err(Error::InvalidInput(
            "a failed capture needs a reason".into(),
        ));
    }
    let s = load::session(p.store, session)?;
    let turn = live_turn(p, &s, &opts.turn_id)?;
    let template = Checkpoint {
        id: p.mint(),
        session_id: session.clone(),
        seq: 0,
        turn_id: turn.id,
        prompt_id: turn.prompt_id,
        tool_message_id: None,
        tool_call_id: None,
        tool_name: opts.tool_name,
        tool_input: None,
        kind: CheckpointKind::Edit,
        created_at: 0,
        changes: vec![FileChange {
            path,
            before: None,
            after: None,
            patch: None,
            capture: Capture::Failed {
                reason: opts.reason,
            },
        }],
        added_bytes: 0,
    };
    commit_checkpoint(p, session, template, Vec::new())
}
