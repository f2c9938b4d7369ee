use super::Millis;
use crate::id::{MessageId, SessionId, TurnId};
use serde::{Deserialize, Serialize};

/// Where a turn stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    /// The agent is still working on it.
    Running,
    /// Finished; its stable boundary is recorded.
    Completed,
    /// Finished with an error.
    Failed,
}

/// The recorded shape of a completed turn, written before the turn is reported complete so a
/// fork at this turn always has a durable, checkable boundary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StableBoundary {
    /// The turn's messages in transcript order, prompt first.
    pub ordered_message_ids: Vec<MessageId>,
    /// The last completed assistant message.
    pub boundary_message_id: MessageId,
    /// Model rounds the turn took.
    pub round_count: u32,
}

/// One prompt and everything it produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// Its id.
    pub id: TurnId,
    /// Its session.
    pub session_id: SessionId,
    /// The user prompt that started it.
    pub prompt_id: MessageId,
    /// The prompt's seq, so range questions need no message lookup.
    pub prompt_seq: u64,
    /// Running, completed or failed.
    pub status: TurnStatus,
    /// Set once the turn completed.
    #[serde(default)]
    pub boundary: Option<StableBoundary>,
    /// When the prompt was recorded.
    pub started_at: Millis,
    /// When the turn ended.
    #[serde(default)]
    pub ended_at: Option<Millis>,
}
