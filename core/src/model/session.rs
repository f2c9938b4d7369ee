use super::Millis;
use crate::id::{MessageId, SessionId, TraceId};
use serde::{Deserialize, Serialize};

/// How a session came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    /// Started by a person.
    Interactive,
    /// Forked from another session at a message, checkpoint or turn.
    Fork,
    /// A side conversation about the parent, which must not change the workspace unasked.
    SideChat,
}

impl SessionKind {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Interactive => "interactive",
            Self::Fork => "fork",
            Self::SideChat => "side_chat",
        }
    }
}

/// An agent's own session, as its hooks name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSession {
    /// The agent (`claude-code`, `gemini-cli`, `qwen-code`, …).
    pub agent: String,
    /// The agent's session id.
    pub session_id: String,
}

/// A session and its branch cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Its id.
    pub id: SessionId,
    /// The session it was forked from.
    #[serde(default)]
    pub parent_id: Option<SessionId>,
    /// Interactive, fork or side chat.
    pub kind: SessionKind,
    /// Human title.
    pub title: String,
    /// Shared by a session and all its forks.
    pub trace_id: TraceId,
    /// Free label of the workspace the session works in (the host decides what it means).
    #[serde(default)]
    pub workspace_label: Option<String>,
    /// When it was created.
    pub created_at: Millis,
    /// The active branch: which `seq`s of the transcript are selected.
    pub branch: Branch,
    /// Bumped by every conversation rewind; a compare-and-swap precondition of the commit.
    pub generation: u64,
    /// The prompt the last conversation rewind went back to (the effective, not the requested, id).
    #[serde(default)]
    pub rewound_to: Option<MessageId>,
    /// The agent session this session records, when an agent's hooks made it (`rewind hook`):
    /// the next event of that agent session finds it here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSession>,
    /// The highest seq the session ever used. It only grows: gc deleting the newest rows, a
    /// rewind or a fork never lets a seq be handed out twice.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq_high_water: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Session {
    /// The last seq used, given the highest seq still stored: never below the high-water mark,
    /// nor below the start of the open range the active branch appends to (rows gc removed
    /// cannot pull the next seq back into a gap the branch skips).
    pub fn last_seq(&self, stored_last: u64) -> u64 {
        let tail = self
            .branch
            .ranges
            .last()
            .filter(|r| r.end.is_none())
            .map_or(0, |r| r.start.saturating_sub(1));
        stored_last.max(self.seq_high_water).max(tail)
    }
}

/// A half-open range `[start, end)` of sequence numbers; `end: None` means "and everything after".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeqRange {
    /// First selected seq.
    pub start: u64,
    /// First seq no longer selected, or open.
    #[serde(default)]
    pub end: Option<u64>,
}

impl SeqRange {
    /// Whether `seq` lies in the range.
    pub fn contains(&self, seq: u64) -> bool {
        seq >= self.start && self.end.is_none_or(|end| seq < end)
    }
}

/// The active branch as a short list of ranges: O(number of rewinds), not O(messages).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branch {
    /// Sorted, disjoint ranges.
    pub ranges: Vec<SeqRange>,
}

impl Default for Branch {
    fn default() -> Self {
        Self {
            ranges: vec![SeqRange {
                start: 0,
                end: None,
            }],
        }
    }
}

impl Branch {
    /// Whether the transcript entry with this seq is on the branch.
    pub fn contains(&self, seq: u64) -> bool {
        self.ranges.iter().any(|r| r.contains(seq))
    }

    /// The branch after rewinding to before `target_seq` when the last seq in the session is
    /// `last_seq`: `(ranges ∩ [0, target_seq)) ∪ [last_seq + 1, ∞)`. Everything appended later
    /// belongs to the new branch; the old branch stays stored but unselected.
    #[must_use]
    pub fn rewound(&self, target_seq: u64, last_seq: u64) -> Self {
        let mut ranges: Vec<SeqRange> = self
            .ranges
            .iter()
            .filter(|r| r.start < target_seq)
            .map(|r| SeqRange {
                start: r.start,
                end: Some(r.end.map_or(target_seq, |e| e.min(target_seq))),
            })
            .filter(|r| r.end.is_some_and(|e| e > r.start))
            .collect();
        let tail = last_seq + 1;
        match ranges.last_mut() {
            Some(last) if last.end == Some(tail) => last.end = None,
            _ => ranges.push(SeqRange {
                start: tail,
                end: None,
            }),
        }
        Self { ranges }
    }
}
