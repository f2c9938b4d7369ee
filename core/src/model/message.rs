use super::Millis;
use crate::id::{MessageId, PartId, SessionId, TurnId};
use serde::{Deserialize, Serialize};

/// Who speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person (or a synthetic stand-in for them).
    User,
    /// The agent.
    Assistant,
    /// The engine or host.
    System,
    /// A tool result.
    Tool,
}

/// What a message is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A user prompt; the only rewindable target.
    Prompt,
    /// An assistant reply.
    Reply,
    /// A tool call's result.
    ToolResult,
    /// A compaction summary.
    Summary,
    /// A notice from the engine (rewind, fork), usually hidden from the UI.
    Notice,
    /// A reminder for the model.
    Reminder,
    /// A visible timeline marker (e.g. "forked here").
    Timeline,
}

/// Whether a message is complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Done.
    Complete,
    /// Ended in an error.
    Error,
    /// Still being produced.
    Streaming,
}

/// Marks a compaction boundary: from this message on, the model sees the summary instead of the
/// history before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    /// The last message the summary covers.
    #[serde(default)]
    pub covers_through: Option<MessageId>,
}

/// Where a copied message came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkOrigin {
    /// The source session.
    pub session_id: SessionId,
    /// The source message.
    pub message_id: MessageId,
}

/// A piece of a message. The engine reads `text` and remaps the typed references when forking;
/// `payload` belongs to the host and is never interpreted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// Its id.
    pub id: PartId,
    /// Host-defined kind, e.g. `text`, `tool_call`.
    pub kind: String,
    /// Text content, when the part has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Opaque host data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<serde_json::Value>,
    /// Messages this part refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_refs: Vec<MessageId>,
    /// Tool-call ids this part refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_call_ids: Vec<String>,
}

/// One entry of a session's append-only transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Its id.
    pub id: MessageId,
    /// Its session.
    pub session_id: SessionId,
    /// Position in the session; strictly increasing, assigned at append.
    pub seq: u64,
    /// The turn it belongs to.
    #[serde(default)]
    pub turn_id: Option<TurnId>,
    /// Speaker.
    pub role: Role,
    /// Purpose.
    pub kind: MessageKind,
    /// Completion status.
    pub status: MessageStatus,
    /// Shown in the UI.
    pub visible_to_ui: bool,
    /// Sent to the model.
    pub visible_to_model: bool,
    /// The message this one answers.
    #[serde(default)]
    pub parent_id: Option<MessageId>,
    /// Set on a compaction summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Compaction>,
    /// Set on messages copied into a fork.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_origin: Option<ForkOrigin>,
    /// Content.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Opaque host data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<serde_json::Value>,
    /// When it was appended.
    pub created_at: Millis,
}

impl Message {
    /// A user prompt: the only kind of message a rewind can target.
    pub fn is_prompt(&self) -> bool {
        self.role == Role::User && self.kind == MessageKind::Prompt
    }

    /// The concatenated text of the message's text parts.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| p.text.as_deref())
            .collect::<Vec<_>>()
            .join("")
    }
}
