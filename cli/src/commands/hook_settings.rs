//! rewind's entries in an agent's settings (`hooks.<Event>: [{matcher?, hooks: [{type,
//! command}]}]`): put them in, take them out, and touch nothing else. A handler is rewind's when
//! its command is `<program> hook <agent>` and the program's file name is `rewind`, so an
//! install after the binary moved updates the old entry instead of adding a second one.

use crate::agents::{Agent, HookEvent};
use serde_json::{Map, Value};

/// The hook command for `agent`: the executable, shell-quoted when it needs it, then
/// ` hook <agent>`; `None` when no quoting keeps the path intact (see `quote`).
pub(super) fn command_for(exe: &str, agent: Agent) -> Option<String> {
    Some(format!("{} hook {agent}", quote(exe)?))
}

/// Put rewind's handler on every event of `agent`: an existing one (in a group with the right
/// matcher) is updated in place, others of ours on those events are dropped, missing ones are
/// appended as groups of their own. Ours on other events keep their place and get the new
/// command. Fails, changing nothing, when `hooks` or one of our events has a shape it cannot
/// merge into.
pub(super) fn install(
    root: &mut Map<String, Value>,
    agent: Agent,
    command: &str,
) -> Result<(), String> {
    if let Some(hooks) = root.get("hooks") {
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
    }
    let Value::Object(hooks) = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
    else {
        return Err("`hooks` is not an object".to_owned());
    };
    let mut placed = Vec::new();
    for (name, list) in hooks.iter_mut() {
        let Value::Array(groups) = list else { continue };
        match agent.events().iter().find(|e| e.name == name) {
            Some(event) => {
                if place(groups, event, agent, command) {
                    placed.push(event.name);
                }
            }
            None => update_elsewhere(groups, agent, command),
        }
    }
    for event in agent.events().iter().filter(|e| !placed.contains(&e.name)) {
        let list = hooks
            .entry(event.name)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(groups) = list {
            groups.push(new_group(event, command));
        }
    }
    Ok(())
}

/// Take every handler of ours out, from every event. A group we emptied goes, an event whose
/// list we emptied goes, and `hooks` goes when we emptied it. Returns the events we took
/// something from.
pub(super) fn remove(root: &mut Map<String, Value>, agent: Agent) -> Vec<String> {
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else {
        return Vec::new();
    };
    let mut touched = Vec::new();
    for (name, list) in hooks.iter_mut() {
        let Value::Array(groups) = list else { continue };
        let mut removed = false;
        groups.retain_mut(|group| {
            retain_handlers(group, |h| {
                let ours = is_our_handler(h, agent);
                removed |= ours;
                !ours
            })
        });
        if removed {
            touched.push(name.clone());
        }
    }
    hooks.retain(|name, list| !(touched.contains(name) && is_empty_list(list)));
    if !touched.is_empty() && hooks.is_empty() {
        root.retain(|key, _| key != "hooks");
    }
    touched
}

/// Whether `command` runs rewind's hook for `agent` (with or without `rewind hook`'s own
/// `--event NAME`, so a hand-written one is replaced instead of running twice).
pub(super) fn is_ours(command: &str, agent: Agent) -> bool {
    let suffix = format!(" hook {agent}");
    let Some(program) = without_event_option(command.trim()).strip_suffix(&suffix) else {
        return false;
    };
    let Some(program) = one_word(program.trim_end()) else {
        return false;
    };
    let name = program.rsplit(['/', '\\']).next().unwrap_or_default();
    name == "rewind" || name == "rewind.exe"
}

/// `command` without a trailing `--event NAME` or `--event=NAME`.
pub(super) fn without_event_option(command: &str) -> &str {
    let name = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let Some((head, last)) = command.rsplit_once(' ') else {
        return command;
    };
    if last.strip_prefix("--event=").is_some_and(name) {
        return head.trim_end();
    }
    match head.trim_end().rsplit_once(' ') {
        Some((rest, "--event")) if name(last) => rest.trim_end(),
        _ => command,
    }
}

/// The first group with our matcher keeps (or gets) our handler, with the new command; every
/// other handler of ours goes. Returns whether ours was kept.
fn place(groups: &mut Vec<Value>, event: &HookEvent, agent: Agent, command: &str) -> bool {
    let mut placed = false;
    groups.retain_mut(|group| {
        let same = matcher_is(group, event.matcher);
        retain_handlers(group, |h| {
            if !is_our_handler(h, agent) {
                return true;
            }
            if same && !placed {
                placed = true;
                set_command(h, command);
                return true;
            }
            false
        })
    });
    placed
}

/// Ours on an event rewind does not install (put there by hand): keep it, with the new command.
fn update_elsewhere(groups: &mut [Value], agent: Agent, command: &str) {
    for group in groups {
        let Some(Value::Array(handlers)) = group.get_mut("hooks") else {
            continue;
        };
        for h in handlers.iter_mut().filter(|h| is_our_handler(h, agent)) {
            set_command(h, command);
        }
    }
}

/// Keep the handlers of one group that `keep` says to; returns whether the group stays (it
/// goes only when this emptied it).
fn retain_handlers(group: &mut Value, mut keep: impl FnMut(&mut Value) -> bool) -> bool {
    let Some(Value::Array(handlers)) = group.get_mut("hooks") else {
        return true;
    };
    let before = handlers.len();
    handlers.retain_mut(|h| keep(h));
    !handlers.is_empty() || handlers.len() == before
}

fn is_our_handler(handler: &Value, agent: Agent) -> bool {
    handler
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| is_ours(c, agent))
}

/// Our handler's fields, leaving any the person added (a `timeout`) as they are.
fn set_command(handler: &mut Value, command: &str) {
    if let Value::Object(h) = handler {
        for (key, value) in [("type", "command"), ("command", command)] {
            if h.get(key).and_then(Value::as_str) != Some(value) {
                h.insert(key.to_owned(), Value::String(value.to_owned()));
            }
        }
    }
}

/// Whether a group's matcher is ours. Lifecycle events take none: no matcher, `""` and `"*"`
/// all mean every occurrence.
fn matcher_is(group: &Value, ours: Option<&str>) -> bool {
    let found = group.get("matcher");
    match ours {
        Some(m) => found.and_then(Value::as_str) == Some(m),
        None => match found {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.is_empty() || s == "*",
            Some(_) => false,
        },
    }
}

fn new_group(event: &HookEvent, command: &str) -> Value {
    let mut group = Map::new();
    if let Some(m) = event.matcher {
        group.insert("matcher".to_owned(), Value::String(m.to_owned()));
    }
    let mut handler = Map::new();
    handler.insert("type".to_owned(), Value::String("command".to_owned()));
    handler.insert("command".to_owned(), Value::String(command.to_owned()));
    group.insert(
        "hooks".to_owned(),
        Value::Array(vec![Value::Object(handler)]),
    );
    Value::Object(group)
}

fn is_empty_list(v: &Value) -> bool {
    v.as_array().is_some_and(Vec::is_empty)
}

/// "an array", "a string", … for messages.
pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A path as one shell word: as it is when every character is plain, else in single quotes
/// (POSIX `sh`, which all three agents run commands with), each `$` as `\$` outside them
/// (`'/a'\$'HOME/rewind'`): Gemini CLI 0.61 replaces `$GEMINI_CWD`, `$GEMINI_PROJECT_DIR`, …
/// in the command's text before the shell sees it, quotes or not (`expandCommand`), and none
/// follows a `$` that a quote follows. On Windows, double quotes, which cannot keep a `$` from
/// PowerShell: `None` then (the caller refuses).
fn quote(s: &str) -> Option<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        return Some(s.to_owned());
    }
    if cfg!(windows) {
        return (!s.contains(['$', '"', '`'])).then(|| format!("\"{s}\""));
    }
    let inner = s.replace('\'', r"'\''").replace('$', r"'\$'");
    Some(format!("'{inner}'"))
}

/// The text of `s` when it is exactly one shell word (quotes and backslashes resolved), else
/// `None` (`cd x && rewind` is not a program).
pub(super) fn one_word(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => out.push(chars.next()?),
                    c => out.push(c),
                }
            },
            '\\' => out.push(chars.next()?),
            c if c.is_whitespace() || "&|;<>()$`".contains(c) => return None,
            c => out.push(c),
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quoting_round_trips_through_recognition() {
        for exe in [
            "/usr/local/bin/rewind",
            "/opt/my tools/rewind",
            "/home/o'brien/bin/rewind",
            "/tmp/$x/rewind",
        ] {
            let cmd = command_for(exe, Agent::ClaudeCode).expect("quotable");
            assert!(is_ours(&cmd, Agent::ClaudeCode), "{cmd}");
            assert!(!is_ours(&cmd, Agent::GeminiCli), "{cmd}");
            let q = quote(exe).expect("quotable");
            assert_eq!(one_word(&q).as_deref(), Some(exe));
        }
        let q = |s| quote(s).expect("quotable");
        assert_eq!(q("/usr/bin/rewind"), "/usr/bin/rewind");
        // No `$NAME` left for Gemini CLI to substitute.
        assert_eq!(q("/a$GEMINI_CWD/rewind"), r"'/a'\$'GEMINI_CWD/rewind'");
    }

    #[test]
    fn only_rewind_programs_count() {
        let a = Agent::QwenCode;
        assert!(is_ours("rewind hook qwen-code", a));
        assert!(is_ours("\"/x y/rewind\" hook qwen-code ", a));
        assert!(!is_ours("/usr/bin/not-rewind hook qwen-code", a));
        assert!(!is_ours("cd /x && rewind hook qwen-code", a));
        assert!(is_ours("/usr/bin/rewind hook qwen-code --event Stop", a));
        assert!(is_ours("/usr/bin/rewind hook qwen-code --event=Stop", a));
        assert!(!is_ours("/usr/bin/rewind hook qwen-code --event", a));
        assert!(!is_ours("/usr/bin/rewind hook qwen-code --event $(x)", a));
        assert!(!is_ours("/usr/bin/rewind hook qwen-code; rm x", a));
        assert!(!is_ours("/usr/bin/rewind hook claude-code", a));
    }

    #[test]
    fn install_updates_in_place_and_remove_leaves_the_rest() {
        let a = Agent::ClaudeCode;
        let mut root = json!({
            "hooks": {
                "Stop": [{ "hooks": [
                    { "type": "command", "command": "/old/rewind hook claude-code", "timeout": 9 },
                    { "type": "command", "command": "notify" }
                ] }],
                "PreToolUse": [{ "matcher": "*", "hooks": [
                    { "type": "command", "command": "/old/rewind hook claude-code" }
                ] }]
            },
            "z": 1
        });
        let map = root.as_object_mut().expect("object");
        install(map, a, "/new/rewind hook claude-code").expect("install");
        let once = map.clone();
        install(map, a, "/new/rewind hook claude-code").expect("again");
        assert_eq!(*map, once);
        let stop = &map["hooks"]["Stop"][0]["hooks"];
        assert_eq!(stop[0]["command"], "/new/rewind hook claude-code");
        assert_eq!(stop[0]["timeout"], 9);
        assert_eq!(stop[1]["command"], "notify");
        // The wildcard group held only ours and went; ours came back with our matcher.
        let pre = map["hooks"]["PreToolUse"].as_array().expect("list");
        assert_eq!(pre.len(), 1);
        assert_eq!(
            pre[0]["matcher"],
            "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell"
        );
        let keys: Vec<&str> = map["hooks"]
            .as_object()
            .expect("obj")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "Stop",
                "PreToolUse",
                "SessionStart",
                "UserPromptSubmit",
                "PostToolUse",
                "PostToolUseFailure",
                "StopFailure"
            ]
        );

        let touched = remove(map, a);
        assert_eq!(touched.len(), 7);
        assert_eq!(
            serde_json::Value::Object(map.clone()),
            json!({ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "notify" }] }] }, "z": 1 })
        );
        assert!(remove(map, a).is_empty());
    }

    #[test]
    fn shapes_it_cannot_merge_are_refused() {
        let mut root = json!({ "hooks": [] });
        let err = install(
            root.as_object_mut().expect("obj"),
            Agent::GeminiCli,
            "rewind hook gemini-cli",
        );
        assert_eq!(err, Err("`hooks` is an array, not an object".to_owned()));
        let mut root = json!({ "hooks": { "enabled": true, "AfterTool": {} } });
        let err = install(root.as_object_mut().expect("obj"), Agent::GeminiCli, "x");
        assert_eq!(
            err,
            Err("`hooks.AfterTool` is an object, not a list".to_owned())
        );
        // Gemini's `hooks.enabled` (0.24–0.25) is not an event: left alone.
        let mut root = json!({ "hooks": { "enabled": true, "disabled": ["a"] } });
        install(root.as_object_mut().expect("obj"), Agent::GeminiCli, "x").expect("merges");
        assert_eq!(root["hooks"]["enabled"], true);
        assert_eq!(root["hooks"]["disabled"], json!(["a"]));
    }
}
