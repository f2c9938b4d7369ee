//! The command that resumes an agent's own conversation at a rewound point. A rewind moves
//! rewind's cursor; the agent keeps its own history, so for a session an agent's hooks recorded
//! (`Session.agent`) every conversation rewind, `both`, fork, side chat and edited prompt also
//! says how to continue *that* conversation in the agent from the same point. The hook keeps
//! with each prompt where the agent's history stood just before it ([`AgentPoint`], in the
//! prompt's payload); this module turns that into an argv. Pure: it names files, never touches
//! them, and never plans a change to the agent's own files (a resume forks or copies).

mod agents;
#[cfg(test)]
mod tests;

use crate::model::{Message, Session};
use serde::{Deserialize, Serialize};

/// The key of a prompt's payload under which the hook keeps its [`AgentPoint`].
pub const PAYLOAD_KEY: &str = "agentPoint";

/// Where an agent's own history stood when a prompt was submitted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentPoint {
    /// The agent (`claude-code`, `qwen-code`, `gemini-cli`).
    pub agent: String,
    /// The agent's session id.
    pub session_id: String,
    /// The agent's transcript file, as its hook payload names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// The agent's id of the last entry of its transcript before the prompt; none before the
    /// first prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
}

impl AgentPoint {
    /// The point a prompt's payload keeps, when it keeps one that decodes.
    pub fn of(prompt: &Message) -> Option<Self> {
        let v = prompt.payload.as_ref()?.get(PAYLOAD_KEY)?;
        serde_json::from_value(v.clone()).ok()
    }

    /// A prompt payload holding this point.
    pub fn payload(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        map.insert(
            PAYLOAD_KEY.to_owned(),
            serde_json::to_value(self).unwrap_or_default(),
        );
        serde_json::Value::Object(map)
    }
}

/// A new file the host must write before the command runs (the agent's history up to the point,
/// under a new session id): the original file is only read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCopy {
    /// The agent's file to read.
    pub from: String,
    /// The new file to create (it must not exist).
    pub to: String,
    /// Keep the records through the one with this id (none: all of them, the whole session).
    pub through: Option<String>,
    /// The new session id the copy's records carry.
    pub session_id: String,
}

/// How to resume the agent's conversation at the rewound point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentResume {
    /// The agent.
    pub agent: String,
    /// The command, program first; empty when the agent offers no exact way.
    pub argv: Vec<String>,
    /// The next prompt goes after `argv` as one more argument (the agent resumes at a point only
    /// while answering a prompt).
    pub prompt_last: bool,
    /// The command resumes exactly at the point; false: `note` says what it cannot do.
    pub exact: bool,
    /// What the command does, or why there is none, in a sentence.
    pub note: String,
    /// The file the host writes first, when the agent resumes from a copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy: Option<AgentCopy>,
}

/// Where in the agent's history the resumed conversation ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Just before the prompt the point was recorded with.
    Before,
    /// After everything the agent session holds.
    Whole,
}

/// The resume of a conversation rewound to before `prompt` (conversation, both, an edited
/// prompt: `prompt_text` is the new prompt, put in the command). `salt`, unique to the rewind
/// (its operation id), makes the new agent session id of a copy. None: the session is not an
/// agent's. A prompt that keeps no point (recorded before rewind kept them) gets no command and
/// says so.
pub fn before(
    session: &Session,
    prompt: &Message,
    prompt_text: Option<&str>,
    salt: &str,
) -> Option<Box<AgentResume>> {
    let bound = session.agent.as_ref()?;
    Some(Box::new(match AgentPoint::of(prompt) {
        Some(point) => agents::resume(&point, Cut::Before, prompt_text, salt),
        None => unknown(&bound.agent),
    }))
}

/// The resume of the whole agent session `prompt` was recorded in (an undone conversation
/// rewind brings that conversation back). None: the session is not an agent's.
pub fn whole(session: &Session, prompt: &Message, salt: &str) -> Option<Box<AgentResume>> {
    let bound = session.agent.as_ref()?;
    Some(Box::new(match AgentPoint::of(prompt) {
        Some(point) => agents::resume(&point, Cut::Whole, None, salt),
        None => unknown(&bound.agent),
    }))
}

/// The resume when the records do not say where the agent's history stood.
fn unknown(agent: &str) -> AgentResume {
    AgentResume {
        agent: agent.to_owned(),
        argv: Vec::new(),
        prompt_last: false,
        exact: false,
        note: "the prompt was recorded without the agent's position in its own history (an \
               older rewind, or not by its hook): no command resumes the agent at this point"
            .to_owned(),
        copy: None,
    }
}

/// The resume of a conversation that keeps the session's messages through `last_seq` (a fork, a
/// side chat), given all of the session's `messages`: cut before the first recorded prompt after
/// it (on any branch: the agent's own history is linear, whatever rewind's cursor did), or the
/// whole agent session when none came after. `salt`: unique to the fork (the child's id).
pub fn through(
    session: &Session,
    messages: &[Message],
    last_seq: u64,
    salt: &str,
) -> Option<Box<AgentResume>> {
    let bound = session.agent.as_ref()?;
    let prompts = || messages.iter().filter(|m| m.is_prompt());
    let after = prompts()
        .filter(|m| m.seq > last_seq)
        .min_by_key(|m| m.seq)
        .and_then(AgentPoint::of);
    if let Some(point) = after {
        return Some(Box::new(agents::resume(&point, Cut::Before, None, salt)));
    }
    let last = prompts()
        .filter(|m| m.seq <= last_seq)
        .max_by_key(|m| m.seq)
        .and_then(AgentPoint::of);
    Some(Box::new(match last {
        Some(point) => agents::resume(&point, Cut::Whole, None, salt),
        None => unknown(&bound.agent),
    }))
}
