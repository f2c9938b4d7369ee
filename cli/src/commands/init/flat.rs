//! Hook files whose events list their handlers directly, without Claude Code's `{matcher,
//! hooks: [...]}` groups: Cursor's `hooks.json` (`{"version": 1, "hooks": {"preToolUse":
//! [{"command", "matcher"}]}}`, https://cursor.com/docs/agent/hooks), Copilot's
//! `.github/hooks/*.json` (`{"version": 1, "hooks": {"PreToolUse": [{"type": "command", "bash",
//! "timeoutSec"}]}}`, github/docs cli-hooks-reference.md) and Windsurf's `hooks.json`
//! (`{"hooks": {"pre_write_code": [{"command", "show_output"}]}}`,
//! https://docs.windsurf.com/windsurf/cascade/hooks). An entry is rewind's when its command is
//! (see `hook_settings::is_ours`); the person's entries and keys stay as they are.

use crate::agents::{Agent, HookEvent};
use crate::commands::hook_settings::{is_ours, kind};
use serde_json::{Map, Value, json};

/// Which of the flat formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flat {
    Cursor,
    Copilot,
    Windsurf,
}

impl Flat {
    /// The entry's field holding the shell command.
    fn command_key(self) -> &'static str {
        match self {
            Self::Copilot => "bash",
            Self::Cursor | Self::Windsurf => "command",
        }
    }

    fn new_entry(self, event: &HookEvent, command: &str) -> Value {
        match self {
            Self::Cursor => match event.matcher {
                Some(m) => json!({ "command": command, "matcher": m }),
                None => json!({ "command": command }),
            },
            // Copilot's hooks take no matcher (every tool's event runs them); its default
            // timeout is 30 s.
            Self::Copilot => json!({ "type": "command", "bash": command }),
            Self::Windsurf => json!({ "command": command, "show_output": false }),
        }
    }

    /// The file's `version`, which Cursor and Copilot require.
    fn version(self) -> Option<u64> {
        (self != Self::Windsurf).then_some(1)
    }

    fn is_our_entry(self, entry: &Value, agent: Agent) -> bool {
        entry
            .get(self.command_key())
            .and_then(Value::as_str)
            .is_some_and(|c| is_ours(c, agent))
    }

    /// Whether `entry` has the matcher rewind gives `event` (Cursor only: the others have none).
    fn same_matcher(self, entry: &Value, event: &HookEvent) -> bool {
        self != Self::Cursor || entry.get("matcher").and_then(Value::as_str) == event.matcher
    }
}

/// Put rewind's entry on every event of `agent`: the first of ours with the right matcher is
/// updated in place, other ones of ours on that event go, a missing one is appended. Ours on
/// events rewind does not install get the new command. Returns the events installed.
pub(super) fn install(
    root: &mut Map<String, Value>,
    style: Flat,
    agent: Agent,
    command: &str,
) -> Result<Vec<String>, String> {
    check_shape(root, agent)?;
    if let Some(v) = style.version()
        && !root.contains_key("version")
    {
        // First, where the documented examples have it.
        let rest = std::mem::take(root);
        root.insert("version".to_owned(), json!(v));
        root.extend(rest);
    }
    let Value::Object(hooks) = root.entry("hooks").or_insert_with(|| json!({})) else {
        return Err("`hooks` is not an object".to_owned());
    };
    let key = style.command_key();
    let mut placed = Vec::new();
    for (name, list) in hooks.iter_mut() {
        let Value::Array(entries) = list else {
            continue;
        };
        let event = agent.events().iter().find(|e| e.name == name);
        let mut kept = false;
        entries.retain_mut(|entry| {
            if !style.is_our_entry(entry, agent) {
                return true;
            }
            let keep = match event {
                Some(e) => !kept && style.same_matcher(entry, e),
                None => true,
            };
            if keep {
                kept |= event.is_some();
                if entry[key] != command {
                    entry[key] = json!(command);
                }
            }
            keep
        });
        if kept {
            placed.push(name.clone());
        }
    }
    for event in agent.events() {
        if placed.iter().any(|p| p == event.name) {
            continue;
        }
        if let Value::Array(entries) = hooks.entry(event.name).or_insert_with(|| json!([])) {
            entries.push(style.new_entry(event, command));
        }
    }
    Ok(agent.events().iter().map(|e| e.name.to_owned()).collect())
}

/// Take every entry of ours out. An event whose list we emptied goes, and `hooks` goes when we
/// emptied it (and `version` with it when nothing else is left). Returns the events touched.
pub(super) fn remove(root: &mut Map<String, Value>, style: Flat, agent: Agent) -> Vec<String> {
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else {
        return Vec::new();
    };
    let mut touched = Vec::new();
    for (name, list) in hooks.iter_mut() {
        let Value::Array(entries) = list else {
            continue;
        };
        let before = entries.len();
        entries.retain(|e| !style.is_our_entry(e, agent));
        if entries.len() != before {
            touched.push(name.clone());
        }
    }
    hooks.retain(|name, list| {
        !(touched.contains(name) && list.as_array().is_some_and(Vec::is_empty))
    });
    if !touched.is_empty() && hooks.is_empty() {
        root.remove("hooks");
        if root.len() == 1 && root.get("version") == Some(&json!(1)) {
            root.clear();
        }
    }
    touched
}

fn check_shape(root: &Map<String, Value>, agent: Agent) -> Result<(), String> {
    let Some(hooks) = root.get("hooks") else {
        return Ok(());
    };
    let Value::Object(hooks) = hooks else {
        return Err(format!("`hooks` is {}, not an object", kind(hooks)));
    };
    for e in agent.events() {
        match hooks.get(e.name) {
            Some(Value::Array(_)) | None => {}
            Some(other) => {
                return Err(format!("`hooks.{}` is {}, not a list", e.name, kind(other)));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_entries_are_flat_with_their_matcher_and_the_persons_stay() {
        let mut root = json!({
            "hooks": { "stop": [{ "command": "say done" }, { "command": "/old/rewind hook cursor" }] },
            "version": 1
        });
        let map = root.as_object_mut().expect("object");
        install(map, Flat::Cursor, Agent::Cursor, "/new/rewind hook cursor").expect("install");
        let once = map.clone();
        install(map, Flat::Cursor, Agent::Cursor, "/new/rewind hook cursor").expect("again");
        assert_eq!(*map, once);
        assert_eq!(map["hooks"]["stop"][0]["command"], "say done");
        assert_eq!(
            map["hooks"]["stop"][1]["command"],
            "/new/rewind hook cursor"
        );
        let pre = &map["hooks"]["preToolUse"][0];
        assert_eq!(
            pre["matcher"],
            "Write|StrReplace|Delete|EditNotebook|MultiEdit|Edit"
        );
        assert!(
            map["hooks"]["beforeShellExecution"][0]
                .get("matcher")
                .is_none()
        );
        let touched = remove(map, Flat::Cursor, Agent::Cursor);
        assert_eq!(touched.len(), Agent::Cursor.events().len());
        assert_eq!(
            Value::Object(map.clone()),
            json!({ "hooks": { "stop": [{ "command": "say done" }] }, "version": 1 })
        );
    }

    #[test]
    fn copilot_entries_use_bash_and_a_fresh_file_goes_whole() {
        let mut map = Map::new();
        install(
            &mut map,
            Flat::Copilot,
            Agent::Copilot,
            "rewind hook copilot",
        )
        .expect("install");
        assert_eq!(map.keys().next().map(String::as_str), Some("version"));
        assert_eq!(
            map["hooks"]["PreToolUse"][0],
            json!({ "type": "command", "bash": "rewind hook copilot" })
        );
        remove(&mut map, Flat::Copilot, Agent::Copilot);
        assert!(map.is_empty());
    }

    #[test]
    fn shapes_it_cannot_merge_are_refused() {
        let mut root = json!({ "hooks": { "pre_write_code": {} } });
        let err = install(
            root.as_object_mut().expect("obj"),
            Flat::Windsurf,
            Agent::Windsurf,
            "x",
        );
        assert_eq!(
            err,
            Err("`hooks.pre_write_code` is an object, not a list".to_owned())
        );
    }
}
