//! The fork bundle: everything a child session consists of, with child-local ids for every
//! message, part, turn, tool call and checkpoint, and `validate`, which refuses any reference
//! that still points outside the child.

use crate::id::{CheckpointId, MessageId, PartId, SessionId, TurnId};
use crate::model::{Checkpoint, Message, Session, Turn};
use std::collections::BTreeSet;

/// A child session, complete and self-contained, ready to be committed in one transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    /// The child session row.
    pub child: Session,
    /// Its transcript (copied messages, then the fork notice and marker), by seq.
    pub messages: Vec<Message>,
    /// Its turns.
    pub turns: Vec<Turn>,
    /// Its inherited checkpoints (blobs are shared with the parent, not copied).
    pub checkpoints: Vec<Checkpoint>,
    /// The tool-call ids minted for the child.
    pub tool_call_ids: BTreeSet<String>,
}

/// A reference that does not stay inside the child.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("fork bundle field {field} references {id}, which is not in the child session")]
pub struct BundleError {
    /// Which field, e.g. `messages[3].parentId`.
    pub field: String,
    /// The id it points to.
    pub id: String,
}

/// Borrowed from the bundle: a fork at 50k messages would otherwise clone every id once more.
struct Known<'a> {
    child: &'a SessionId,
    messages: BTreeSet<&'a MessageId>,
    turns: BTreeSet<&'a TurnId>,
    parts: BTreeSet<&'a PartId>,
    checkpoints: BTreeSet<&'a CheckpointId>,
}

fn check(
    ok: bool,
    field: impl FnOnce() -> String,
    id: &dyn std::fmt::Display,
) -> Result<(), BundleError> {
    if ok {
        Ok(())
    } else {
        Err(BundleError {
            field: field(),
            id: id.to_string(),
        })
    }
}

/// Refuse a bundle in which anything points outside the child: another session, a message,
/// turn, part, tool call or checkpoint that is not itself in the bundle, or a duplicate id.
pub fn validate(b: &Bundle) -> Result<(), BundleError> {
    let k = known(b)?;
    check(
        b.child.parent_id.as_ref() != Some(&b.child.id),
        || "child.parentId".into(),
        &b.child.id,
    )?;
    messages(b, &k)?;
    turns(b, &k)?;
    checkpoints(b, &k)?;
    seqs(b)
}

/// Every id the bundle holds, refusing a duplicate.
fn known(b: &Bundle) -> Result<Known<'_>, BundleError> {
    let mut k = Known {
        child: &b.child.id,
        messages: BTreeSet::new(),
        turns: BTreeSet::new(),
        parts: BTreeSet::new(),
        checkpoints: BTreeSet::new(),
    };
    for (i, m) in b.messages.iter().enumerate() {
        check(
            k.messages.insert(&m.id),
            || format!("messages[{i}].id (duplicate)"),
            &m.id,
        )?;
        for (j, p) in m.parts.iter().enumerate() {
            check(
                k.parts.insert(&p.id),
                || format!("messages[{i}].parts[{j}].id (duplicate)"),
                &p.id,
            )?;
        }
    }
    for (i, t) in b.turns.iter().enumerate() {
        check(
            k.turns.insert(&t.id),
            || format!("turns[{i}].id (duplicate)"),
            &t.id,
        )?;
    }
    for (i, c) in b.checkpoints.iter().enumerate() {
        check(
            k.checkpoints.insert(&c.id),
            || format!("checkpoints[{i}].id (duplicate)"),
            &c.id,
        )?;
    }
    Ok(k)
}

/// Each message is the child's, and its turn, parent, compaction cover, message references
/// and tool calls are in the bundle.
fn messages(b: &Bundle, k: &Known<'_>) -> Result<(), BundleError> {
    for (i, m) in b.messages.iter().enumerate() {
        check(
            m.session_id == *k.child,
            || format!("messages[{i}].sessionId"),
            &m.session_id,
        )?;
        if let Some(t) = &m.turn_id {
            check(k.turns.contains(t), || format!("messages[{i}].turnId"), t)?;
        }
        if let Some(p) = &m.parent_id {
            check(
                k.messages.contains(p),
                || format!("messages[{i}].parentId"),
                p,
            )?;
        }
        if let Some(c) = m
            .compaction
            .as_ref()
            .and_then(|c| c.covers_through.as_ref())
        {
            check(
                k.messages.contains(c),
                || format!("messages[{i}].compaction.coversThrough"),
                c,
            )?;
        }
        for (j, part) in m.parts.iter().enumerate() {
            for r in &part.message_refs {
                check(
                    k.messages.contains(r),
                    || format!("messages[{i}].parts[{j}].messageRefs"),
                    r,
                )?;
            }
            for call in &part.tool_call_ids {
                check(
                    b.tool_call_ids.contains(call),
                    || format!("messages[{i}].parts[{j}].toolCallIds"),
                    call,
                )?;
            }
        }
    }
    Ok(())
}

/// Each turn is the child's, and its prompt and boundary messages are in the bundle.
fn turns(b: &Bundle, k: &Known<'_>) -> Result<(), BundleError> {
    for (i, t) in b.turns.iter().enumerate() {
        check(
            t.session_id == *k.child,
            || format!("turns[{i}].sessionId"),
            &t.session_id,
        )?;
        check(
            k.messages.contains(&t.prompt_id),
            || format!("turns[{i}].promptId"),
            &t.prompt_id,
        )?;
        if let Some(boundary) = &t.boundary {
            check(
                k.messages.contains(&boundary.boundary_message_id),
                || format!("turns[{i}].boundary.boundaryMessageId"),
                &boundary.boundary_message_id,
            )?;
            for id in &boundary.ordered_message_ids {
                check(
                    k.messages.contains(id),
                    || format!("turns[{i}].boundary.orderedMessageIds"),
                    id,
                )?;
            }
        }
    }
    Ok(())
}

/// Each checkpoint is the child's, and its turn, prompt, tool message and tool call are in
/// the bundle.
fn checkpoints(b: &Bundle, k: &Known<'_>) -> Result<(), BundleError> {
    for (i, c) in b.checkpoints.iter().enumerate() {
        check(
            c.session_id == *k.child,
            || format!("checkpoints[{i}].sessionId"),
            &c.session_id,
        )?;
        check(
            k.turns.contains(&c.turn_id),
            || format!("checkpoints[{i}].turnId"),
            &c.turn_id,
        )?;
        check(
            k.messages.contains(&c.prompt_id),
            || format!("checkpoints[{i}].promptId"),
            &c.prompt_id,
        )?;
        if let Some(m) = &c.tool_message_id {
            check(
                k.messages.contains(m),
                || format!("checkpoints[{i}].toolMessageId"),
                m,
            )?;
        }
        if let Some(call) = &c.tool_call_id {
            check(
                b.tool_call_ids.contains(call),
                || format!("checkpoints[{i}].toolCallId"),
                call,
            )?;
        }
    }
    Ok(())
}

/// No two messages or checkpoints share a seq.
fn seqs(b: &Bundle) -> Result<(), BundleError> {
    let mut seqs = BTreeSet::new();
    for (field, seq) in b
        .messages
        .iter()
        .map(|m| ("messages", m.seq))
        .chain(b.checkpoints.iter().map(|c| ("checkpoints", c.seq)))
    {
        check(
            seqs.insert(seq),
            || format!("{field}.seq (duplicate)"),
            &seq,
        )?;
    }
    Ok(())
}
