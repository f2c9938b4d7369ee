//! `MessageGlance`: a message decoded only as far as counting needs, for reads that must judge
//! every row of a session (`rewind resume`'s summary) but keep none of its content.
//!
//! It accepts and rejects exactly the bodies [`Message`](super::Message) does, with the same
//! error text: every field has the same name, default and type, except that strings of content
//! are checked (a JSON string, escapes valid) without being copied out. A row that fails here is
//! a diagnostic word for word as a full decode would report it. The test below holds the two
//! decoders to that on valid, damaged and mistyped bodies.

use super::{Compaction, ForkOrigin, MessageKind, MessageStatus, Millis, Role};
use crate::id::{MessageId, PartId, SessionId, TurnId};
use serde::Deserialize;
use std::fmt;

/// A JSON string, checked but not kept: what `String` accepts, without the allocation.
#[derive(Debug)]
pub(crate) struct Text;

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // `String`'s words, so a mistyped field reads the same.
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Text, E> {
                Ok(Text)
            }
            fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Text, E> {
                match std::str::from_utf8(b) {
                    Ok(_) => Ok(Text),
                    Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(b), &self)),
                }
            }
        }
        d.deserialize_string(V)
    }
}

/// [`Part`](super::Part), its strings checked, not kept. Named as it is: the derived decoder
/// names the type in some errors ("expected struct Part").
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Decoded to be judged, never read.
struct Part {
    id: PartId,
    kind: Text,
    #[serde(default)]
    text: Option<Text>,
    // Kept as `Value`: any other type could judge some JSON differently.
    #[serde(default)]
    payload: Option<serde_json::Value>,
    #[serde(default)]
    message_refs: Vec<MessageId>,
    #[serde(default)]
    tool_call_ids: Vec<Text>,
}

/// [`Message`](super::Message) as far as counting needs (see the module), under the same name
/// for the same reason.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Fields decoded only to be judged are never read.
pub(crate) struct Message {
    pub(crate) id: MessageId,
    session_id: SessionId,
    pub(crate) seq: u64,
    #[serde(default)]
    turn_id: Option<TurnId>,
    pub(crate) role: Role,
    pub(crate) kind: MessageKind,
    status: MessageStatus,
    visible_to_ui: bool,
    pub(crate) visible_to_model: bool,
    #[serde(default)]
    parent_id: Option<MessageId>,
    #[serde(default)]
    pub(crate) compaction: Option<Compaction>,
    #[serde(default)]
    fork_origin: Option<ForkOrigin>,
    #[serde(default)]
    parts: Vec<Part>,
    #[serde(default)]
    payload: Option<serde_json::Value>,
    created_at: Millis,
}

impl Message {
    /// As [`Message::is_prompt`](super::Message::is_prompt).
    pub(crate) fn is_prompt(&self) -> bool {
        self.role == Role::User && self.kind == MessageKind::Prompt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Message as Full;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const GOOD: &str = r#"{"id":"msg_a","sessionId":"ses_s","seq":3,"turnId":"trn_t","role":"user","kind":"prompt","status":"complete","visibleToUi":true,"visibleToModel":false,"parentId":null,"compaction":{"coversThrough":"msg_b"},"forkOrigin":{"sessionId":"ses_p","messageId":"msg_c"},"parts":[{"id":"prt_1","kind":"text","text":"a\nb \u00e9","payload":{"x":[1,2.5,null]},"messageRefs":["msg_d"],"toolCallIds":["call_1"]}],"payload":[true],"createdAt":-5,"extra":1}"#;

    /// Both decoders on one body: both accept it, or both reject it with the same words.
    fn same(body: &str) {
        let full = serde_json::from_str::<Full>(body).map(|m| {
            let is_prompt = m.is_prompt();
            (m.id, m.seq, is_prompt, m.visible_to_model, m.compaction)
        });
        let glance = serde_json::from_str::<Message>(body).map(|m| {
            let is_prompt = m.is_prompt();
            (m.id, m.seq, is_prompt, m.visible_to_model, m.compaction)
        });
        match (full, glance) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{body}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{body}"),
            (a, b) => panic!("{body}: the full decode gave {a:?}, the glance {b:?}"),
        }
    }

    #[test]
    fn a_glance_judges_every_body_as_the_full_decode_does() {
        same(GOOD);
        assert!(serde_json::from_str::<Message>(GOOD).is_ok());
        // Every field in turn given a wrong value, and every field in turn left out.
        let fields = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(GOOD)
            .expect("object");
        let wrong = [
            serde_json::json!(7),
            serde_json::json!("x"),
            serde_json::json!(null),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!(true),
            serde_json::json!("msg_bad id"),
            serde_json::json!(-1),
            serde_json::json!([{"id": "prt_1", "kind": 5}]),
            serde_json::json!([{"id": "prt_1", "kind": "t", "text": 5}]),
            serde_json::json!([{"id": "prt_1", "kind": "t", "toolCallIds": [1]}]),
            serde_json::json!([{"id": "nope", "kind": "t"}]),
            serde_json::json!([{"kind": "t"}]),
        ];
        for key in fields.keys() {
            let mut without = fields.clone();
            without.remove(key);
            same(&serde_json::Value::Object(without).to_string());
            for w in &wrong {
                let mut changed = fields.clone();
                changed.insert(key.clone(), w.clone());
                same(&serde_json::Value::Object(changed).to_string());
            }
        }
        // Damaged text: cut anywhere, a bad escape, a duplicate field, not an object at all.
        for cut in 0..GOOD.len() {
            if GOOD.is_char_boundary(cut) {
                same(&GOOD[..cut]);
            }
        }
        same(&GOOD.replace("a\\nb", "a\\qb"));
        same(&GOOD.replace("\"seq\":3", "\"seq\":3,\"seq\":4"));
        same(&GOOD.replace("\"kind\":\"text\"", "\"kind\":\"text\",\"kind\":\"t\""));
        for body in ["[]", "null", "\"msg_a\"", "{}", ""] {
            same(body);
        }
    }
}
