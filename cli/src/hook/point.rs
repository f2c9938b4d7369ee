//! Where the agent's own history stands when a prompt comes: its session, its transcript file
//! (the payload's `transcript_path`) and the id of the transcript's last entry before the
//! prompt, kept with the prompt so that a later rewind can say how to resume the agent at it
//! (`rewind_core::agent_resume`). The transcripts are the agents' internal JSONL files: Claude
//! Code 2.1 and Qwen Code 0.24 give every entry a `uuid` (a prompt's `parentUuid` is the entry
//! before it), Gemini CLI 0.61 an `id`. Read bounded, like every hook read: only a regular
//! file, only its tail; what cannot be known is no point (and a note), never a guess.

use super::event::{Agent, Payload};
use super::payload::Host;
use super::root::Place;
use rewind_core::agent_resume::AgentPoint;
use rewind_host::disk::{Bounded, read_tail};

/// The point to keep with the prompt `prompt`, or none (noted) when the transcript cannot say.
pub(super) fn point(place: &Place, p: &Payload, prompt: &str) -> Option<AgentPoint> {
    // Only the three agents whose resume rewind knows keep transcripts it can read; another
    // host running the same install (VS Code, `cn`, Cursor) or another agent has no point to
    // keep, and that is no problem to report.
    let resumable = matches!(
        place.agent,
        Agent::ClaudeCode | Agent::QwenCode | Agent::GeminiCli
    );
    if !resumable || p.host.is_some_and(|h| h != Host::Installed) {
        return None;
    }
    let session_id = p.session_id.clone()?;
    let Some(path) = p.transcript_path.as_ref() else {
        place.note(
            "the prompt's payload names no transcript_path: a rewind to it cannot say how to \
             resume the agent"
                .into(),
        );
        return None;
    };
    let before = match read_tail(path, place.limits.max_transcript, true) {
        // Not written yet: the agent writes its transcript with the first prompt.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!(
            "cannot read transcript_path {}: {e}",
            path.display()
        )),
        Ok(Bounded::Bytes { bytes, size }) => {
            let whole = u64::try_from(bytes.len()).is_ok_and(|n| n == size);
            match last_entry(&bytes, prompt) {
                Some(found) => Ok(found),
                None if whole => Ok(None),
                None => Err(format!(
                    "transcript_path {}: no entry in its last {} bytes",
                    path.display(),
                    bytes.len()
                )),
            }
        }
        Ok(Bounded::NotRegular(what)) => Err(format!(
            "transcript_path {} is {what}, not a regular file",
            path.display()
        )),
        Ok(Bounded::TooLarge(size)) => Err(format!(
            "transcript_path {}: {size} bytes, not read",
            path.display()
        )),
    };
    match before {
        Ok(before) => Some(AgentPoint {
            agent: place.agent.as_str().to_owned(),
            session_id,
            transcript_path: Some(path.display().to_string()),
            before,
        }),
        Err(why) => {
            place.note(format!(
                "{why}: a rewind to this prompt cannot say how to resume the agent"
            ));
            None
        }
    }
}

/// `Some(id)`: the last entry's id before the prompt; `Some(None)`: the prompt is the first
/// entry; `None`: no entry found in these bytes (a tail may begin inside a line, passed over).
fn last_entry(bytes: &[u8], prompt: &str) -> Option<Option<String>> {
    let text = String::from_utf8_lossy(bytes);
    let entry = text.lines().rev().find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let id = v.get("uuid").or_else(|| v.get("id"))?.as_str()?.to_owned();
        Some((id, v))
    })?;
    let (id, v) = entry;
    // The agent may have written the prompt before its hook ran: the point is before it.
    if is_the_prompt(&v, prompt) {
        return Some(
            v.get("parentUuid")
                .and_then(|p| p.as_str())
                .map(str::to_owned),
        );
    }
    Some(Some(id))
}

/// Whether a transcript entry is the person's prompt `prompt` itself.
fn is_the_prompt(v: &serde_json::Value, prompt: &str) -> bool {
    if v.get("type").and_then(|t| t.as_str()) != Some("user") {
        return false;
    }
    let message = v.get("message");
    // Claude Code: `content`, a string or text blocks; Qwen Code: Gemini-style `parts`.
    let content = message.and_then(|m| m.get("content").or_else(|| m.get("parts")));
    match content {
        Some(serde_json::Value::String(s)) => s == prompt,
        Some(serde_json::Value::Array(parts)) => parts
            .iter()
            .any(|c| c.get("text").and_then(|t| t.as_str()) == Some(prompt)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::last_entry;

    #[test]
    fn the_last_entry_before_the_prompt_is_the_point() {
        let t = concat!(
            "{\"type\":\"queue-operation\"}\n",
            "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"content\":\"one\"}}\n",
            "{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\"}\n",
            "{\"type\":\"last-prompt\"}\n",
        );
        assert_eq!(last_entry(t.as_bytes(), "two"), Some(Some("a1".into())));
        let with_prompt = format!(
            "{t}{}",
            "{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"a1\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"two\"}]}}\n"
        );
        assert_eq!(
            last_entry(with_prompt.as_bytes(), "two"),
            Some(Some("a1".into()))
        );
        let first = "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"content\":\"one\"}}\n";
        assert_eq!(last_entry(first.as_bytes(), "one"), Some(None));
        assert_eq!(last_entry(b"{\"type\":\"queue-operation\"}\n", "x"), None);
        assert_eq!(last_entry(b"d\":1}\n", "x"), None);
    }
}
