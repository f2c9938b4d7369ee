//! Codex's hooks written inline in `config.toml` (https://developers.openai.com/codex/hooks):
//! `[[hooks.PreToolUse]]` is one `{matcher, hooks}` group and `[[hooks.PreToolUse.hooks]]` one
//! handler, the same vocabulary as `hooks.json`. `toml_edit` keeps the rest of the person's
//! file (comments, order, spacing) as it is. `[hooks.state]` is Codex's own (trust and
//! enablement), not an event.

use crate::agents::{Agent, HookEvent};
use crate::commands::hook_settings::is_ours;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

/// Whether the file has hooks of its own, so that rewind's go there too (Codex warns when one
/// config layer has both `hooks.json` and inline hooks).
pub(super) fn has_hooks(doc: &DocumentMut) -> bool {
    doc.get("hooks")
        .and_then(Item::as_table_like)
        .is_some_and(|t| t.iter().any(|(k, _)| k != "state"))
}

/// Put rewind's handler on every event of `agent`, as `hook_settings::install` does in JSON.
pub(super) fn install(doc: &mut DocumentMut, agent: Agent, command: &str) -> Result<(), String> {
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_mut()
        .ok_or("`hooks` is not a table")?;
    hooks.set_implicit(true);
    for e in agent.events() {
        if let Some(item) = hooks.get(e.name)
            && !item.is_array_of_tables()
        {
            return Err(format!(
                "`hooks.{}` is not written as [[hooks.{}]] tables",
                e.name, e.name
            ));
        }
    }
    for (name, item) in hooks.iter_mut() {
        let Some(groups) = item.as_array_of_tables_mut() else {
            continue;
        };
        let event = agent.events().iter().find(|e| e.name == name.get());
        let mut placed = false;
        for group in groups.iter_mut() {
            let same = event.is_some_and(|e| matcher_is(group, e));
            let Some(handlers) = group
                .get_mut("hooks")
                .and_then(Item::as_array_of_tables_mut)
            else {
                continue;
            };
            handlers.retain(|h| {
                if !is_our_handler(h, agent) {
                    return true;
                }
                let keep = event.is_none() || (same && !placed);
                placed |= keep && event.is_some();
                keep
            });
            for h in handlers.iter_mut().filter(|h| is_our_handler(h, agent)) {
                if h.get("command").and_then(Item::as_str) != Some(command) {
                    h["command"] = value(command);
                }
            }
        }
        groups.retain(|g| !is_emptied(g));
        if placed {
            continue;
        }
        if let Some(e) = event {
            groups.push(new_group(e, command));
        }
    }
    for e in agent.events() {
        if !hooks.contains_key(e.name) {
            let mut groups = ArrayOfTables::new();
            groups.push(new_group(e, command));
            hooks.insert(e.name, Item::ArrayOfTables(groups));
        }
    }
    Ok(())
}

/// Take every handler of ours out; emptied groups, events and `hooks` go. Returns the events
/// touched.
pub(super) fn remove(doc: &mut DocumentMut, agent: Agent) -> Vec<String> {
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) else {
        return Vec::new();
    };
    let mut touched = Vec::new();
    for (name, item) in hooks.iter_mut() {
        let Some(groups) = item.as_array_of_tables_mut() else {
            continue;
        };
        let mut removed = false;
        for group in groups.iter_mut() {
            if let Some(handlers) = group
                .get_mut("hooks")
                .and_then(Item::as_array_of_tables_mut)
            {
                let before = handlers.len();
                handlers.retain(|h| !is_our_handler(h, agent));
                removed |= handlers.len() != before;
            }
        }
        if removed {
            groups.retain(|g| !is_emptied(g));
            touched.push(name.get().to_owned());
        }
    }
    hooks.retain(|name, item| {
        !(touched.iter().any(|t| t == name)
            && item.as_array_of_tables().is_some_and(|g| g.is_empty()))
    });
    if !touched.is_empty() && hooks.is_empty() {
        doc.remove("hooks");
    }
    touched
}

fn is_our_handler(handler: &Table, agent: Agent) -> bool {
    handler
        .get("command")
        .and_then(Item::as_str)
        .is_some_and(|c| is_ours(c, agent))
}

/// A group whose handler list is there and empty (rewind took its last one out).
fn is_emptied(group: &Table) -> bool {
    group
        .get("hooks")
        .and_then(Item::as_array_of_tables)
        .is_some_and(|h| h.is_empty())
}

fn matcher_is(group: &Table, event: &HookEvent) -> bool {
    let found = group.get("matcher").and_then(Item::as_str);
    match event.matcher {
        Some(m) => found == Some(m),
        None => found.is_none_or(|s| s.is_empty() || s == "*"),
    }
}

fn new_group(event: &HookEvent, command: &str) -> Table {
    let mut group = Table::new();
    if let Some(m) = event.matcher {
        group.insert("matcher", value(m));
    }
    let mut handler = Table::new();
    handler.insert("type", value("command"));
    handler.insert("command", value(command));
    let mut handlers = ArrayOfTables::new();
    handlers.push(handler);
    group.insert("hooks", Item::ArrayOfTables(handlers));
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    const THEIRS: &str = "# my Codex settings\nmodel = \"gpt-5\" # the big one\n\n\
        [[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"say done\"\n\n\
        [hooks.state]\nx = 1\n";

    #[test]
    fn install_keeps_the_persons_file_and_remove_gives_it_back() {
        let mut doc: DocumentMut = THEIRS.parse().expect("toml");
        assert!(has_hooks(&doc));
        install(&mut doc, Agent::Codex, "/usr/bin/rewind hook codex").expect("install");
        let once = doc.to_string();
        assert!(
            once.starts_with("# my Codex settings\nmodel = \"gpt-5\" # the big one\n"),
            "{once}"
        );
        let mut again: DocumentMut = once.parse().expect("toml");
        install(&mut again, Agent::Codex, "/usr/bin/rewind hook codex").expect("again");
        assert_eq!(again.to_string(), once);
        let stop = doc["hooks"]["Stop"].as_array_of_tables().expect("groups");
        assert_eq!(stop.len(), 2);
        let pre = &doc["hooks"]["PreToolUse"]
            .as_array_of_tables()
            .expect("groups")
            .get(0);
        assert_eq!(
            pre.and_then(|g| g["matcher"].as_str()),
            Some("Bash|apply_patch")
        );
        let touched = remove(&mut again, Agent::Codex);
        assert_eq!(touched.len(), Agent::Codex.events().len());
        assert_eq!(again.to_string(), THEIRS);
    }

    #[test]
    fn a_file_without_hooks_gets_its_own_and_inline_arrays_are_refused() {
        let doc: DocumentMut = "[hooks.state]\n".parse().expect("toml");
        assert!(!has_hooks(&doc));
        let mut doc: DocumentMut = "hooks.Stop = []\n".parse().expect("toml");
        assert!(install(&mut doc, Agent::Codex, "rewind hook codex").is_err());
    }
}
