//! The JSON settings files (every agent's but Codex's `config.toml`, Cline's scripts and the
//! OpenCode plugin): parsed as an object with its key order kept, changed, written back
//! pretty-printed. A file whose content did not change is not rewritten.

use super::files::{self, Change};
use crate::commands::CliError;
use crate::commands::hook_settings;
use serde_json::{Map, Value};
use std::path::Path;

/// The settings as a JSON object; an empty file counts as `{}`.
pub(super) fn parse(path: &Path, text: &str) -> Result<Map<String, Value>, CliError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(files::refuse(
            path,
            &format!("it is {}, not a JSON object", hook_settings::kind(&other)),
        )),
        Err(e) => Err(files::refuse(
            path,
            &format!("it is not valid JSON ({e}); rewind edits plain JSON only, without comments"),
        )),
    }
}

/// Pretty-printed with 2 spaces and a trailing newline.
pub(super) fn render(root: &Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(root).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// Read `path`, let `edit` change the object (it returns the events it touched), and say what
/// the file becomes. `edit`'s error is why the file cannot be merged into.
pub(super) fn edit(
    path: &Path,
    edit: impl FnOnce(&mut Map<String, Value>) -> Result<Vec<String>, String>,
) -> Result<(Change, Vec<String>), CliError> {
    let before = files::read(path)?;
    let mut root = match &before {
        Some(text) => parse(path, text)?,
        None => Map::new(),
    };
    let original = root.clone();
    let events = edit(&mut root).map_err(|why| {
        files::refuse(path, &format!("{why}; fix it by hand, then run this again"))
    })?;
    let after = match &before {
        Some(text) if root == original => Some(text.clone()),
        None if root.is_empty() => None,
        _ => Some(render(&root)),
    };
    Ok((Change::shared(path.to_path_buf(), before, after), events))
}
