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

struct Known {
    child: SessionId,
    messages: BTreeSet<MessageId>,
    turns: BTreeSet<TurnId>,
    parts: BTreeSet<PartId>,
    checkpoints: BTreeSet<CheckpointId>,
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
    let mut k = Known {
        child: b.child.id.clone(),
        messages: BTreeSet::new(),
        turns: BTreeSet::new(),
        parts: BTreeSet::new(),
        checkpoints: BTreeSet::new(),
    };
    for (i, m) in b.messages.iter().enumerate() {
        check(
            k.messages.insert(m.id.clone()),
            || format!("messages[{i}].id (duplicate)"),
            &m.id,
        )?;
        for (j, p) in m.parts.iter().enumerate() {
            check(
                k.parts.insert(p.id.clone()),
                || format!("messages[{i}].parts[{j}].id (duplicate)"),
                &p.id,
            )?;
        }
    }
    for (i, t) in b.turns.iter().enumerate() {
        check(
            k.turns.insert(t.id.clone()),
            || format!("turns[{i}].id (duplicate)"),
            &t.id,
        )?;
    }
    for (i, c) in b.checkpoints.iter().enumerate() {
        check(
            k.checkpoints.insert(c.id.clone()),
            || format!("checkpoints[{i}].id (duplicate)"),
            &c.id,
        )?;
    }
    check(
        b.child.parent_id.as_ref() != Some(&b.child.id),
        || "child.parentId".into(),
        &b.child.id,
    )?;
    for (i, m) in b.messages.iter().enumerate() {
        check(
            m.session_id == k.child,
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
    for (i, t) in b.turns.iter().enumerate() {
        check(
            t.session_id == k.child,
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
    for (i, c) in b.checkpoints.iter().enumerate() {
        check(
            c.session_id == k.child,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::{Limits, Ports};
    use crate::fork::build::{Source, build};
    use crate::load::SessionLog;
    use crate::model::SessionKind;
    use crate::record::{self, PromptOptions, ReplyOptions, SessionOptions};
    use crate::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A real bundle built from a two-message parent.
    fn bundle() -> Bundle {
        let (mut store, mut ws, clock, mut ids) = (
            MemStore::new(),
            MemWorkspace::new(),
            TickClock::default(),
            SeqIds::default(),
        );
        let mut p = Ports {
            store: &mut store,
            workspace: &mut ws,
            clock: &clock,
            ids: &mut ids,
            turn_control: None,
            limits: Limits::default(),
        };
        let s = record::create_session(&mut p, SessionOptions::default())
            .expect("session")
            .id;
        let t = record::prompt(
            &mut p,
            &s,
            PromptOptions {
                text: "hi".into(),
                payload: None,
            },
        )
        .expect("prompt");
        record::reply(
            &mut p,
            &s,
            ReplyOptions {
                turn_id: t.turn_id,
                text: "hello".into(),
                error: false,
                payload: None,
            },
        )
        .expect("reply");
        let log = SessionLog::load(p.store, &s).expect("log");
        let src = Source {
            parent: &log.session,
            messages: log.messages.iter().collect(),
            turns: &log.turns,
            checkpoints: Vec::new(),
            hide_from_ui: false,
        };
        build(&mut p, src, SessionKind::Fork, "Fork".into(), Vec::new())
    }

    #[test]
    fn a_built_bundle_is_child_local() {
        let b = bundle();
        assert_eq!(validate(&b), Ok(()));
        assert_eq!(
            b.messages[1].parent_id.as_ref(),
            Some(&b.messages[0].id),
            "the reply's parent is remapped"
        );
        assert!(b.messages.iter().all(|m| m.fork_origin.is_some()));
    }

    #[test]
    fn every_outside_reference_is_named() {
        let outside = MessageId::parse("msg_parent").expect("valid");
        type Tamper = Box<dyn Fn(&mut Bundle)>;
        let cases: Vec<(&str, Tamper)> = vec![
            (
                "messages[1].parentId",
                Box::new(|b| {
                    b.messages[1].parent_id = Some(MessageId::parse("msg_parent").expect("valid"));
                }),
            ),
            (
                "messages[0].sessionId",
                Box::new(|b| {
                    b.messages[0].session_id = SessionId::parse("ses_parent").expect("valid");
                }),
            ),
            (
                "messages[0].turnId",
                Box::new(|b| {
                    b.messages[0].turn_id = Some(TurnId::parse("trn_parent").expect("valid"));
                }),
            ),
            (
                "turns[0].promptId",
                Box::new(|b| b.turns[0].prompt_id = MessageId::parse("msg_parent").expect("valid")),
            ),
            (
                "messages[0].parts[0].toolCallIds",
                Box::new(|b| {
                    b.messages[0].parts[0]
                        .tool_call_ids
                        .push("call_parent".into());
                }),
            ),
            (
                "messages[1].id (duplicate)",
                Box::new(|b| b.messages[1].id = b.messages[0].id.clone()),
            ),
        ];
        for (field, tamper) in cases {
            let mut b = bundle();
            tamper(&mut b);
            let err = validate(&b).expect_err(field);
            assert_eq!(err.field, field);
        }
        let mut b = bundle();
        b.messages[1].parent_id = Some(outside);
        assert!(
            validate(&b)
                .expect_err("outside")
                .to_string()
                .contains("msg_parent")
        );
    }
}
