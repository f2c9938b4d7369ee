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
