use super::{Error, append, live_turn};
use crate::batch::{Batch, Write};
use crate::ctx::Ports;
use crate::id::{MessageId, SessionId, TurnId};
use crate::load::{self, encode};
use crate::model::{Compaction, Message, MessageKind, MessageStatus, Part, Role, Turn, TurnStatus};
use serde::{Deserialize, Serialize};

/// Options of [`prompt`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptOptions {
    /// What the person asked.
    pub text: String,
    /// Opaque host data kept with the message.
    #[serde(default)]
    pub payload: Option<serde_json::Value>,
}

/// What [`prompt`] recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptOutcome {
    /// The new turn.
    pub turn_id: TurnId,
    /// The prompt message (the turn's rewind target).
    pub message_id: MessageId,
    /// Its position.
    pub seq: u64,
}

/// Options of [`reply`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplyOptions {
    /// The turn the reply belongs to.
    pub turn_id: TurnId,
    /// The reply text.
    pub text: String,
    /// The reply ended in an error. When it is the turn's final reply, `complete_turn` writes
    /// no stable boundary, so a fork at the turn never lands on a failed answer.
    #[serde(default)]
    pub error: bool,
    /// Opaque host data.
    #[serde(default)]
    pub payload: Option<serde_json::Value>,
}

/// Options of [`notice`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NoticeOptions {
    /// The turn it belongs to, if any.
    #[serde(default)]
    pub turn_id: Option<TurnId>,
    /// The notice text.
    pub text: String,
    /// Shown in the UI (default: hidden).
    #[serde(default)]
    pub visible_to_ui: bool,
    /// Sent to the model (default: sent).
    #[serde(default = "yes")]
    pub visible_to_model: bool,
}

fn yes() -> bool {
    true
}

/// Options of [`compaction`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactionOptions {
    /// The turn during which the compaction happened, if any.
    #[serde(default)]
    pub turn_id: Option<TurnId>,
    /// The summary the model sees instead of the earlier history.
    pub text: String,
}

/// What a message-appending verb recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageOutcome {
    /// The new message.
    pub message_id: MessageId,
    /// Its position.
    pub seq: u64,
}

fn text_part(p: &mut Ports<'_>, text: String) -> Part {
    Part {
        id: p.mint(),
        kind: "text".into(),
        text: Some(text),
        payload: None,
        message_refs: Vec::new(),
        tool_call_ids: Vec::new(),
    }
}

/// A message skeleton; callers set what differs.
pub(crate) fn new_message(
    p: &mut Ports<'_>,
    session: &SessionId,
    seq: u64,
    role: Role,
    kind: MessageKind,
    text: String,
) -> Message {
    let part = text_part(p, text);
    Message {
        id: p.mint(),
        session_id: session.clone(),
        seq,
        turn_id: None,
        role,
        kind,
        status: MessageStatus::Complete,
        visible_to_ui: true,
        visible_to_model: true,
        parent_id: None,
        compaction: None,
        fork_origin: None,
        parts: vec![part],
        payload: None,
        created_at: p.now(),
    }
}

pub(crate) fn push_message(batch: &mut Batch, m: &Message) {
    batch.push(Write::AppendMessage {
        session: m.session_id.clone(),
        seq: m.seq,
        message: m.id.clone(),
        body: encode(m),
        boundary: m.compaction.is_some(),
    });
}

/// Record a user prompt; it starts a new turn.
pub fn prompt(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: PromptOptions,
) -> Result<PromptOutcome, Error> {
    if opts.text.trim().is_empty() {
        return Err(Error::InvalidInput("prompt text must not be empty".into()));
    }
    load::session(p.store, session)?;
    append(p, session, |p, seq| {
        let mut m = new_message(
            p,
            session,
            seq,
            Role::User,
            MessageKind::Prompt,
            opts.text.clone(),
        );
        m.payload.clone_from(&opts.payload);
        let turn = Turn {
            id: p.mint(),
            session_id: session.clone(),
            prompt_id: m.id.clone(),
            prompt_seq: seq,
            status: TurnStatus::Running,
            boundary: None,
            started_at: m.created_at,
            ended_at: None,
        };
        m.turn_id = Some(turn.id.clone());
        let mut batch = Batch::new();
        push_message(&mut batch, &m);
        batch.push(Write::PutTurn {
            session: session.clone(),
            turn: turn.id.clone(),
            seq,
            body: encode(&turn),
        });
        Ok((
            batch,
            PromptOutcome {
                turn_id: turn.id,
                message_id: m.id,
                seq,
            },
        ))
    })
}

/// Record an assistant reply in a live turn.
pub fn reply(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: ReplyOptions,
) -> Result<MessageOutcome, Error> {
    let s = load::session(p.store, session)?;
    let turn = live_turn(p, &s, &opts.turn_id)?;
    append(p, session, |p, seq| {
        let mut m = new_message(
            p,
            session,
            seq,
            Role::Assistant,
            MessageKind::Reply,
            opts.text.clone(),
        );
        m.turn_id = Some(turn.id.clone());
        m.parent_id = Some(turn.prompt_id.clone());
        m.status = if opts.error {
            MessageStatus::Error
        } else {
            MessageStatus::Complete
        };
        m.payload.clone_from(&opts.payload);
        let mut batch = Batch::new();
        push_message(&mut batch, &m);
        Ok((
            batch,
            MessageOutcome {
                message_id: m.id,
                seq,
            },
        ))
    })
}

/// Record a notice from the host or engine (hidden from the UI and sent to the model by default).
pub fn notice(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: NoticeOptions,
) -> Result<MessageOutcome, Error> {
    let s = load::session(p.store, session)?;
    if let Some(t) = &opts.turn_id {
        live_turn(p, &s, t)?;
    }
    append(p, session, |p, seq| {
        let mut m = new_message(
            p,
            session,
            seq,
            Role::System,
            MessageKind::Notice,
            opts.text.clone(),
        );
        m.turn_id.clone_from(&opts.turn_id);
        m.visible_to_ui = opts.visible_to_ui;
        m.visible_to_model = opts.visible_to_model;
        let mut batch = Batch::new();
        push_message(&mut batch, &m);
        Ok((
            batch,
            MessageOutcome {
                message_id: m.id,
                seq,
            },
        ))
    })
}

/// Record a compaction summary: from it on, the model sees the summary instead of the history
/// before it. A conversation rewind to before it rebuilds the full kept prefix.
pub fn compaction(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: CompactionOptions,
) -> Result<MessageOutcome, Error> {
    let s = load::session(p.store, session)?;
    if let Some(t) = &opts.turn_id {
        live_turn(p, &s, t)?;
    }
    // The summary covers everything on the branch so far: the newest active message.
    let covers_through = crate::window::latest_active(p.store, &s, u64::MAX, |_| true)
        .map_err(load::Error::Host)?
        .map(|m| m.id);
    append(p, session, |p, seq| {
        let mut m = new_message(
            p,
            session,
            seq,
            Role::Assistant,
            MessageKind::Summary,
            opts.text.clone(),
        );
        m.turn_id.clone_from(&opts.turn_id);
        m.compaction = Some(Compaction {
            covers_through: covers_through.clone(),
        });
        let mut batch = Batch::new();
        push_message(&mut batch, &m);
        Ok((
            batch,
            MessageOutcome {
                message_id: m.id,
                seq,
            },
        ))
    })
}
