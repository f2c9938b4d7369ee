//! Build a bundle from the parent's derived state: fresh child-local ids for everything, every
//! reference remapped (or dropped when it points outside the copied history), provenance kept
//! in `fork_origin`.

use super::bundle::Bundle;
use crate::ctx::Ports;
use crate::id::{MessageId, TurnId};
use crate::model::{
    Branch, Checkpoint, ForkOrigin, Message, MessageKind, Part, Role, Session, SessionKind,
    StableBoundary, Turn, TurnStatus,
};
use crate::record;
use std::collections::{BTreeMap, BTreeSet};

/// What to copy.
pub(crate) struct Source<'a> {
    pub(crate) parent: &'a Session,
    /// The history, in seq order.
    pub(crate) messages: Vec<&'a Message>,
    /// The parent's turns (those of copied messages are taken).
    pub(crate) turns: &'a [Turn],
    /// Inherited checkpoints, already filtered (undone changes removed).
    pub(crate) checkpoints: Vec<Checkpoint>,
    /// Side chats hide every copied message from the UI.
    pub(crate) hide_from_ui: bool,
}

/// A message appended after the copied history (notice, marker, reminder).
pub(crate) struct Tail {
    pub(crate) role: Role,
    pub(crate) kind: MessageKind,
    pub(crate) text: String,
    pub(crate) visible_to_ui: bool,
    pub(crate) visible_to_model: bool,
}

#[derive(Default)]
struct IdMap {
    messages: BTreeMap<MessageId, MessageId>,
    turns: BTreeMap<TurnId, TurnId>,
    calls: BTreeMap<String, String>,
}

impl IdMap {
    fn call(&mut self, p: &mut Ports<'_>, old: &str) -> String {
        self.calls
            .entry(old.to_owned())
            .or_insert_with(|| format!("call_{}", p.ids.next_suffix()))
            .clone()
    }
}

fn clone_message(
    p: &mut Ports<'_>,
    map: &mut IdMap,
    m: &Message,
    child: &Session,
    hide: bool,
) -> Message {
    let parts = m
        .parts
        .iter()
        .map(|part| Part {
            id: p.mint(),
            kind: part.kind.clone(),
            text: part.text.clone(),
            payload: part.payload.clone(),
            message_refs: part
                .message_refs
                .iter()
                .filter_map(|r| map.messages.get(r).cloned())
                .collect(),
            tool_call_ids: part.tool_call_ids.iter().map(|c| map.call(p, c)).collect(),
        })
        .collect();
    Message {
        id: map.messages[&m.id].clone(),
        session_id: child.id.clone(),
        seq: m.seq,
        turn_id: m.turn_id.as_ref().and_then(|t| map.turns.get(t).cloned()),
        parent_id: m
            .parent_id
            .as_ref()
            .and_then(|x| map.messages.get(x).cloned()),
        compaction: m.compaction.clone().map(|mut c| {
            c.covers_through = c.covers_through.and_then(|x| map.messages.get(&x).cloned());
            c
        }),
        fork_origin: Some(ForkOrigin {
            session_id: m.session_id.clone(),
            message_id: m.id.clone(),
        }),
        visible_to_ui: m.visible_to_ui && !hide,
        parts,
        // Named, not `..m.clone()`: that would clone every part's text once more, only to drop
        // it.
        role: m.role,
        kind: m.kind,
        status: m.status,
        visible_to_model: m.visible_to_model,
        payload: m.payload.clone(),
        created_at: m.created_at,
    }
}

fn clone_turn(map: &IdMap, t: &Turn, child: &Session) -> Option<Turn> {
    let boundary = t.boundary.as_ref().and_then(|b| {
        let ordered: Option<Vec<MessageId>> = b
            .ordered_message_ids
            .iter()
            .map(|id| map.messages.get(id).cloned())
            .collect();
        Some(StableBoundary {
            ordered_message_ids: ordered?,
            boundary_message_id: map.messages.get(&b.boundary_message_id)?.clone(),
            round_count: b.round_count,
        })
    });
    // A turn still running in the parent ends at the fork point in the child: nothing runs it
    // there, and it must not look like the child's work in progress.
    let (status, ended_at) = match t.status {
        TurnStatus::Running => (TurnStatus::Failed, Some(child.created_at)),
        done => (done, t.ended_at),
    };
    Some(Turn {
        id: map.turns.get(&t.id)?.clone(),
        session_id: child.id.clone(),
        prompt_id: map.messages.get(&t.prompt_id)?.clone(),
        boundary,
        status,
        ended_at,
        ..t.clone()
    })
}

/// Build the bundle: copied history, inherited checkpoints, then the tail messages.
pub(crate) fn build(
    p: &mut Ports<'_>,
    src: Source<'_>,
    kind: SessionKind,
    title: String,
    tail: Vec<Tail>,
) -> Bundle {
    let child = Session {
        id: p.mint(),
        parent_id: Some(src.parent.id.clone()),
        kind,
        title,
        trace_id: src.parent.trace_id.clone(),
        workspace_label: src.parent.workspace_label.clone(),
        created_at: p.now(),
        branch: Branch::default(),
        generation: 0,
        rewound_to: None,
        agent: None,
        seq_high_water: 0,
    };
    let mut map = IdMap::default();
    for m in &src.messages {
        map.messages.insert(m.id.clone(), p.mint());
    }
    let copied_turns: BTreeSet<&TurnId> = src
        .messages
        .iter()
        .filter_map(|m| m.turn_id.as_ref())
        .collect();
    let turns: Vec<&Turn> = src
        .turns
        .iter()
        .filter(|t| copied_turns.contains(&t.id) && map.messages.contains_key(&t.prompt_id))
        .collect();
    for t in &turns {
        map.turns.insert(t.id.clone(), p.mint());
    }
    let mut messages: Vec<Message> = src
        .messages
        .iter()
        .map(|m| clone_message(p, &mut map, m, &child, src.hide_from_ui))
        .collect();
    let turns: Vec<Turn> = turns
        .iter()
        .filter_map(|t| clone_turn(&map, t, &child))
        .collect();
    let mut checkpoints = clone_checkpoints(p, &mut map, src.checkpoints, &child);
    renumber(&mut messages, &mut checkpoints);
    let mut next = messages.len() as u64 + checkpoints.len() as u64;
    for t in tail {
        next += 1;
        let mut m = record::new_message(p, &child.id, next, t.role, t.kind, t.text);
        m.visible_to_ui = t.visible_to_ui;
        m.visible_to_model = t.visible_to_model;
        messages.push(m);
    }
    Bundle {
        child,
        messages,
        turns,
        checkpoints,
        tool_call_ids: map.calls.into_values().collect(),
    }
}

/// The inherited checkpoints whose turn and prompt were copied, remapped into the child.
fn clone_checkpoints(
    p: &mut Ports<'_>,
    map: &mut IdMap,
    checkpoints: Vec<Checkpoint>,
    child: &Session,
) -> Vec<Checkpoint> {
    let mut out: Vec<Checkpoint> = Vec::new();
    for c in checkpoints {
        let (Some(turn_id), Some(prompt_id)) = (
            map.turns.get(&c.turn_id).cloned(),
            map.messages.get(&c.prompt_id).cloned(),
        ) else {
            continue;
        };
        let tool_call_id = c.tool_call_id.as_deref().map(|call| map.call(p, call));
        out.push(Checkpoint {
            id: p.mint(),
            session_id: child.id.clone(),
            turn_id,
            prompt_id,
            tool_message_id: c
                .tool_message_id
                .as_ref()
                .and_then(|m| map.messages.get(m).cloned()),
            tool_call_id,
            ..c
        });
    }
    out
}

/// Child-local seqs: messages and checkpoints keep their relative order, numbered from 1.
fn renumber(messages: &mut [Message], checkpoints: &mut [Checkpoint]) {
    let mut order: Vec<(u64, bool, usize)> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| (m.seq, false, i))
        .collect();
    order.extend(
        checkpoints
            .iter()
            .enumerate()
            .map(|(i, c)| (c.seq, true, i)),
    );
    order.sort();
    for (n, (_, is_checkpoint, i)) in order.into_iter().enumerate() {
        let seq = n as u64 + 1;
        if is_checkpoint {
            checkpoints[i].seq = seq;
        } else {
            messages[i].seq = seq;
        }
    }
}
