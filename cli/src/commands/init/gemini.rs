//! Gemini CLI's session cleanup, turned off where `rewind init gemini-cli` puts its hooks.
//!
//! Gemini CLI 0.61 deletes a session it resumed in a later minute as soon as another session
//! starts (google-gemini/gemini-cli#27368, open): `--resume` first opens a second chat file of
//! the resumed session holding only its header (`session-<this minute>-<id's first 8>.jsonl`,
//! `ChatRecordingService.initialize` before `resumeChat`), and the next start-up of another
//! session (`cleanupExpiredSessions`, on by default) takes that header-only file for a damaged
//! one and deletes every file ending in the same 8 characters whose session is not its own:
//! the real chat with it. Every resume rewind prints for Gemini CLI starts another session (a
//! copy under a new id), so with the cleanup on, rewinding a session resumed earlier would
//! delete the original. `general.sessionRetention.enabled: false` is the one setting that stops
//! it; a file that already says whether the cleanup is on is left as the person set it.

use serde_json::{Map, Value, json};

/// What `init` writes (and `--remove` takes out again: only this, exactly).
fn ours() -> Value {
    json!({ "enabled": false })
}

/// Turn the cleanup off in `root`, unless it already says whether it is on (or `general` is
/// not an object, which is Gemini's to complain about).
pub(super) fn keep_sessions(root: &mut Map<String, Value>) {
    let general = root
        .entry("general")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(general) = general else {
        return;
    };
    match general.get_mut("sessionRetention") {
        None => {
            general.insert("sessionRetention".into(), ours());
        }
        Some(Value::Object(r)) if !r.contains_key("enabled") => {
            r.insert("enabled".into(), Value::Bool(false));
        }
        Some(_) => {}
    }
}

/// `--remove`: take out what [`keep_sessions`] wrote when it is there as written, and a
/// `general` it leaves empty.
pub(super) fn forget(root: &mut Map<String, Value>) {
    let Some(Value::Object(general)) = root.get_mut("general") else {
        return;
    };
    if general.get("sessionRetention") != Some(&ours()) {
        return;
    }
    general.remove("sessionRetention");
    if general.is_empty() {
        root.remove("general");
    }
}

/// The note `init` prints about the cleanup, from the file it wrote.
pub(super) fn note(written: Option<&str>) -> Option<String> {
    let root: Value = serde_json::from_str(written?).ok()?;
    let enabled = root.pointer("/general/sessionRetention/enabled");
    Some(match enabled {
        Some(Value::Bool(false)) => "note: Gemini CLI's session cleanup is off in this file \
             (\"general\": {\"sessionRetention\": {\"enabled\": false}}): Gemini CLI 0.61 deletes \
             a session it resumed in a later minute as soon as another session starts \
             (google-gemini/gemini-cli#27368), and a resume rewind prints starts one"
            .to_owned(),
        _ => "note: this file keeps Gemini CLI's session cleanup on: Gemini CLI 0.61 then \
             deletes a session it resumed in a later minute as soon as another session starts \
             (google-gemini/gemini-cli#27368), a resume rewind prints included"
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().expect("object").clone()
    }

    #[test]
    fn the_cleanup_goes_off_unless_the_file_says_and_remove_takes_back_only_that() {
        let mut root = obj(json!({ "model": "x" }));
        keep_sessions(&mut root);
        assert_eq!(
            Value::Object(root.clone()),
            json!({ "model": "x", "general": { "sessionRetention": { "enabled": false } } })
        );
        forget(&mut root);
        assert_eq!(Value::Object(root), json!({ "model": "x" }));

        let mut root =
            obj(json!({ "general": { "vimMode": true, "sessionRetention": { "maxAge": "7d" } } }));
        keep_sessions(&mut root);
        assert_eq!(
            root["general"]["sessionRetention"],
            json!({ "maxAge": "7d", "enabled": false })
        );
        forget(&mut root); // not exactly ours: kept
        assert_eq!(root["general"]["sessionRetention"]["maxAge"], "7d");

        for said in [json!(true), json!(false)] {
            let start = json!({ "general": { "sessionRetention": { "enabled": said } } });
            let mut root = obj(start.clone());
            keep_sessions(&mut root);
            assert_eq!(Value::Object(root), start);
        }
        let mut odd = obj(json!({ "general": 3 }));
        keep_sessions(&mut odd);
        forget(&mut odd);
        assert_eq!(Value::Object(odd), json!({ "general": 3 }));
    }

    #[test]
    fn the_note_says_whether_the_cleanup_is_off() {
        let off = note(Some(
            r#"{"general":{"sessionRetention":{"enabled":false}}}"#,
        ));
        assert!(off.expect("note").contains("is off"));
        let on = note(Some(r#"{"general":{"sessionRetention":{"enabled":true}}}"#));
        assert!(on.expect("note").contains("keeps"));
        assert_eq!(note(None), None);
    }
}
