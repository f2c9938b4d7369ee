//! Recording helpers shared by the scenarios: one agent turn, written the way a host would.

use crate::harness::Result;
use rewind_core::Engine;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::model::{CheckpointKind, Policy};
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::record::{
    CompleteTurnOptions, EditChange, EditOptions, PromptOptions, ReplyOptions, SessionOptions,
};

/// One file a turn's tool changed: path, bytes before, bytes after.
#[derive(Clone, Debug)]
pub struct Change {
    /// Workspace-relative path.
    pub path: String,
    /// Content before the tool ran.
    pub before: Vec<u8>,
    /// Content the tool left.
    pub after: Vec<u8>,
}

/// Start a session and return its id.
pub fn new_session<S: StoreWrite, W: Workspace>(e: &mut Engine<S, W>) -> Result<SessionId> {
    Ok(e.create_session(SessionOptions {
        title: Some("bench".into()),
        ..SessionOptions::default()
    })?
    .id)
}

/// Record a prompt; returns the turn and the prompt message.
pub fn prompt<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    text: String,
) -> Result<(TurnId, MessageId)> {
    let p = e.record_prompt(
        s,
        PromptOptions {
            text,
            payload: None,
        },
    )?;
    Ok((p.turn_id, p.message_id))
}

/// Record one tool call that changed `changes` (one checkpoint).
pub fn edit<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    turn: &TurnId,
    changes: &[Change],
) -> Result<()> {
    e.record_edit(
        s,
        EditOptions {
            turn_id: turn.clone(),
            tool_name: "Edit".into(),
            tool_call_id: None,
            tool_message_id: None,
            kind: CheckpointKind::Edit,
            changes: changes
                .iter()
                .map(|c| EditChange {
                    path: c.path.clone(),
                    before: Some(c.before.clone()),
                    after: Some(c.after.clone()),
                    patch: None,
                    before_mode: None,
                    after_mode: None,
                })
                .collect(),
        },
    )?;
    Ok(())
}

/// Record an assistant reply.
pub fn reply<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    turn: &TurnId,
    text: String,
) -> Result<()> {
    e.record_reply(
        s,
        ReplyOptions {
            turn_id: turn.clone(),
            text,
            error: false,
            payload: None,
        },
    )?;
    Ok(())
}

/// Complete a turn.
pub fn complete<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    turn: &TurnId,
) -> Result<()> {
    e.complete_turn(
        s,
        CompleteTurnOptions {
            turn_id: turn.clone(),
            failed: false,
            round_count: None,
        },
    )?;
    Ok(())
}

/// A whole agent turn: prompt, one `record_edit` per `per_call` files, a reply, completion.
/// Returns the prompt message (the turn's rewind target).
pub fn turn<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    changes: &[Change],
    per_call: usize,
) -> Result<MessageId> {
    let (t, m) = prompt(e, s, format!("bench turn editing {} files", changes.len()))?;
    for chunk in changes.chunks(per_call.max(1)) {
        edit(e, s, &t, chunk)?;
    }
    reply(e, s, &t, "done".into())?;
    complete(e, s, &t)?;
    Ok(m)
}

/// Preview then apply "rewind files to before this prompt"; fails unless every file was safe
/// and restored.
pub fn preview_apply<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    prompt: &MessageId,
    expect_files: usize,
) -> Result<()> {
    let target = TargetOptions {
        since: Some(prompt.clone()),
        ..TargetOptions::default()
    };
    let preview = e.preview_file_rewind(s, target.clone())?;
    if !preview.can_apply || preview.safe_files.len() != expect_files {
        return Err(format!(
            "preview cannot apply: {} safe, {} unsafe ({:?})",
            preview.safe_files.len(),
            preview.unsafe_files.len(),
            preview.unsafe_files.first()
        )
        .into());
    }
    let out = e.apply_file_rewind(
        s,
        ApplyOptions {
            target,
            policy: Policy::Block,
        },
    )?;
    if !out.applied || out.restored_files.len() != expect_files {
        return Err(format!("apply did not restore: {:?}", out.cause).into());
    }
    Ok(())
}
