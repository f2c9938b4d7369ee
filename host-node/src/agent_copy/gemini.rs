//! A Gemini CLI 0.61 chat file cut at a message. The file is a log Gemini folds when it loads a
//! session (`loadConversationRecord`): a header line (`sessionId`, `projectHash`, times,
//! `kind`), message lines (`id`, `type`, …) where a later line with the same `id` replaces the
//! earlier one in its place, and `{"$set": {...}}` lines that replace header fields (`messages`:
//! the whole list). The copy is that fold cut after the message `through`, written the way
//! Gemini rewrites a file itself: the header (under the new session id), then one line a
//! message. Gemini finds a session by its header's `sessionId`, so the copy is a session of its
//! own; it keeps the header's `startTime` (Gemini orders sessions by it).

use rewind_core::agent_resume::AgentCopy;
use serde_json::{Map, Value};

/// The chat in `text` through message `copy.through` (all of it without one), under the new id.
pub(super) fn cut(text: &str, copy: &AgentCopy) -> Result<String, String> {
    let (mut header, messages) = fold(text, &copy.from)?;
    if !header.contains_key("projectHash") {
        return Err(format!(
            "{}: no chat header (sessionId, projectHash)",
            copy.from
        ));
    }
    header.insert("sessionId".into(), copy.session_id.clone().into());
    // The state of the whole session, not of the cut: Gemini makes it again.
    header.remove("memoryScratchpad");
    let mut kept = Vec::new();
    let mut found = copy.through.is_none();
    for m in messages {
        let last = copy.through.is_some()
            && m.get("id").and_then(Value::as_str) == copy.through.as_deref();
        kept.push(m);
        if last {
            found = true;
            break;
        }
    }
    if !found {
        let id = copy.through.as_deref().unwrap_or_default();
        return Err(format!("{} holds no message {id}", copy.from));
    }
    let mut out = line(&Value::Object(header))?;
    for m in &kept {
        out.push_str(&line(m)?);
    }
    Ok(out)
}

fn line(v: &Value) -> Result<String, String> {
    serde_json::to_string(v)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}

/// The header fields and the messages in order, as Gemini folds them.
fn fold(text: &str, from: &str) -> Result<(Map<String, Value>, Vec<Value>), String> {
    let mut header = Map::new();
    let mut messages: Vec<Value> = Vec::new();
    let put = |messages: &mut Vec<Value>, m: Value| {
        let id = m.get("id").cloned();
        match messages.iter_mut().find(|o| o.get("id") == id.as_ref()) {
            Some(o) => *o = m,
            None => messages.push(m),
        }
    };
    for (n, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(raw)
            .map_err(|e| format!("{from} line {}: not a record ({e})", n + 1))?;
        let Value::Object(mut o) = v else {
            return Err(format!("{from} line {}: not a record", n + 1));
        };
        // Gemini's own rewind (`/rewind`): the message named and every one after it are gone;
        // an id it does not hold empties the list, as Gemini's loader does.
        if let Some(Value::String(to)) = o.get("$rewindTo") {
            match messages
                .iter()
                .position(|m| m.get("id") == Some(&Value::from(to.as_str())))
            {
                Some(i) => messages.truncate(i),
                None => messages.clear(),
            }
            continue;
        }
        if let Some(Value::Object(set)) = o.remove("$set") {
            for (k, val) in set {
                if k == "messages" {
                    messages.clear();
                    for m in val.as_array().into_iter().flatten() {
                        put(&mut messages, m.clone());
                    }
                } else {
                    header.insert(k, val);
                }
            }
        } else if o.contains_key("id") && o.contains_key("type") {
            put(&mut messages, Value::Object(o));
        } else {
            if let Some(Value::Array(list)) = o.remove("messages") {
                for m in list {
                    put(&mut messages, m);
                }
            }
            header.extend(o);
        }
    }
    Ok((header, messages))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAT: &str = concat!(
        "{\"sessionId\":\"old\",\"projectHash\":\"p\",\"startTime\":\"t0\",\"kind\":\"main\"}\n",
        "{\"id\":\"u1\",\"type\":\"user\",\"content\":[{\"text\":\"one\"}]}\n",
        "{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"\"}\n",
        "{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"done one\"}\n",
        "{\"$set\":{\"lastUpdated\":\"t1\"}}\n",
        "{\"id\":\"u2\",\"type\":\"user\",\"content\":[{\"text\":\"two\"}]}\n",
        "{\"id\":\"g2\",\"type\":\"gemini\",\"content\":\"done two\"}\n",
    );

    fn copy(through: Option<&str>) -> AgentCopy {
        AgentCopy {
            from: "/c/session-x-old.jsonl".into(),
            to: "/c/session-x-new.jsonl".into(),
            through: through.map(str::to_owned),
            session_id: "new".into(),
        }
    }

    #[test]
    fn the_copy_is_the_folded_chat_through_the_message_under_the_new_id() {
        assert_eq!(
            cut(CHAT, &copy(Some("g1"))).expect("cut"),
            concat!(
                "{\"sessionId\":\"new\",\"projectHash\":\"p\",\"startTime\":\"t0\",\"kind\":\"main\",\"lastUpdated\":\"t1\"}\n",
                "{\"id\":\"u1\",\"type\":\"user\",\"content\":[{\"text\":\"one\"}]}\n",
                "{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"done one\"}\n",
            )
        );
        let whole = cut(CHAT, &copy(None)).expect("whole");
        assert_eq!(whole.lines().count(), 5, "{whole}");
        assert!(whole.ends_with("\"done two\"}\n"));
    }

    #[test]
    fn a_rewritten_list_replaces_the_messages() {
        let chat = format!(
            "{CHAT}{{\"$set\":{{\"messages\":[{{\"id\":\"u1\",\"type\":\"user\",\"content\":\"one\"}}]}}}}\n"
        );
        let out = cut(&chat, &copy(None)).expect("cut");
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(
            cut(&chat, &copy(Some("g2")))
                .expect_err("gone")
                .contains("no message g2")
        );
    }

    #[test]
    fn a_rewind_gemini_made_itself_drops_the_message_and_those_after_it() {
        // `/rewind` to u2, then a new prompt: the copy is what Gemini would load.
        let chat = format!(
            "{CHAT}{{\"$rewindTo\":\"u2\"}}\n{{\"id\":\"u3\",\"type\":\"user\",\"content\":\"three\"}}\n"
        );
        let out = cut(&chat, &copy(None)).expect("cut");
        let ids: Vec<&str> = out.lines().skip(1).map(|l| &l[7..9]).collect();
        assert_eq!(ids, ["u1", "g1", "u3"], "{out}");
        assert!(
            cut(&chat, &copy(Some("g2"))).is_err(),
            "g2 was rewound away"
        );
        // An id the file does not hold: Gemini empties the list.
        let gone = format!("{CHAT}{{\"$rewindTo\":\"zz\"}}\n");
        assert_eq!(cut(&gone, &copy(None)).expect("cut").lines().count(), 1);
    }

    #[test]
    fn a_file_that_is_not_a_chat_is_refused() {
        assert!(
            cut("{\"id\":\"u1\",\"type\":\"user\"}\n", &copy(None))
                .expect_err("no header")
                .contains("no chat header")
        );
        assert!(
            cut("{oops\n", &copy(None))
                .expect_err("bad")
                .contains("line 1")
        );
    }
}
