//! The bytes after a Claude Code file tool, from what its transcript keeps.

use serde_json::Value;

/// A finished tool call as the transcript keeps it.
pub(super) struct Call<'a> {
    pub(super) prompt: &'a str,
    pub(super) id: &'a str,
    pub(super) tool: &'a str,
    pub(super) input: &'a Value,
    pub(super) result: &'a Value,
}

/// The file's bytes after the call: `Write`'s content, or the replacements of `Edit` /
/// `MultiEdit` applied to the bytes before, each of which must match exactly once (or be a
/// replace-all that matches): anything else is not exact.
pub(super) fn after(c: &Call<'_>, before: Option<&[u8]>) -> Result<Vec<u8>, String> {
    if c.tool == "Write" {
        return c
            .result
            .get("content")
            .or_else(|| c.input.get("content"))
            .and_then(Value::as_str)
            .map(|s| s.as_bytes().to_vec())
            .ok_or_else(|| "the Write keeps no content".to_owned());
    }
    let edits: Vec<&Value> = match c.tool {
        "MultiEdit" => c
            .input
            .get("edits")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default(),
        _ => vec![c.input],
    };
    let mut text = match before {
        None => String::new(),
        Some(b) => std::str::from_utf8(b)
            .map_err(|_| "the file before the edit is not UTF-8 text".to_owned())?
            .to_owned(),
    };
    for e in edits {
        let get = |k: &str| e.get(k).and_then(Value::as_str);
        let (Some(old), Some(new)) = (get("old_string"), get("new_string")) else {
            return Err(format!("the {} keeps no old_string / new_string", c.tool));
        };
        let all = e.get("replace_all") == Some(&Value::Bool(true));
        if old.is_empty() {
            if before.is_some() && !text.is_empty() {
                return Err("an edit with an empty old_string on an existing file".into());
            }
            text = new.to_owned();
            continue;
        }
        match (text.matches(old).count(), all) {
            (0, _) => return Err("the edit's old_string is not in the file before it".into()),
            (1, _) | (_, true) => text = text.replace(old, new),
            (_, false) => return Err("the edit's old_string matches more than once".into()),
        }
    }
    Ok(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::{Call, after};
    use serde_json::{Value, json};

    fn edit(tool: &str, input: Value, before: Option<&str>) -> Result<String, String> {
        let result = Value::Null;
        let c = Call {
            prompt: "p",
            id: "t",
            tool,
            input: &input,
            result: &result,
        };
        after(&c, before.map(str::as_bytes)).map(|b| String::from_utf8(b).expect("utf-8"))
    }

    #[test]
    fn an_edit_that_matches_once_is_exact() {
        let input = json!({"old_string": "b", "new_string": "B"});
        assert_eq!(
            edit("Edit", input, Some("a\nb\nc\n")).as_deref(),
            Ok("a\nB\nc\n")
        );
    }

    #[test]
    fn an_edit_that_matches_twice_or_not_at_all_is_not_exact() {
        let twice = json!({"old_string": "x", "new_string": "y"});
        assert!(edit("Edit", twice, Some("x x")).is_err());
        let missing = json!({"old_string": "q", "new_string": "y"});
        assert!(edit("Edit", missing, Some("x")).is_err());
        let all = json!({"old_string": "x", "new_string": "y", "replace_all": true});
        assert_eq!(edit("Edit", all, Some("x x")).as_deref(), Ok("y y"));
    }

    #[test]
    fn multi_edit_applies_in_order_and_an_empty_old_string_creates() {
        let input = json!({"edits": [{"old_string": "a", "new_string": "b"},
                                     {"old_string": "b", "new_string": "c"}]});
        assert_eq!(edit("MultiEdit", input, Some("a")).as_deref(), Ok("c"));
        let create = json!({"old_string": "", "new_string": "new\n"});
        assert_eq!(edit("Edit", create, None).as_deref(), Ok("new\n"));
        let onto = json!({"old_string": "", "new_string": "new\n"});
        assert!(edit("Edit", onto, Some("there")).is_err());
    }

    #[test]
    fn a_file_that_is_not_text_cannot_be_edited_exactly() {
        let input = json!({"old_string": "a", "new_string": "b"});
        let result = Value::Null;
        let c = Call {
            prompt: "p",
            id: "t",
            tool: "Edit",
            input: &input,
            result: &result,
        };
        assert!(after(&c, Some(&[0xff, b'a'])).is_err());
    }
}
