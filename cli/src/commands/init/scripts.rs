//! Cline's hooks: one executable per event in a hooks directory, named after the event
//! (cline/cline@21cb8d2 sdk/packages/core/src/hooks/hook-file-config.ts; the interpreter comes
//! from the shebang). rewind's is a two-line `sh` script that hands the payload on stdin to
//! `rewind hook cline`. A file of that name that is not rewind's is the person's: Cline runs one
//! file per event, so rewind refuses rather than replace it.

use super::files::{self, Change};
use crate::agents::Agent;
use crate::commands::CliError;
use crate::commands::hook_settings::is_ours;
use std::path::Path;

const HEADER: &str = "#!/bin/sh\n# rewind's hook: `rewind init cline --remove` takes it out.\n";

/// The script for one event.
fn script(command: &str) -> String {
    format!("{HEADER}exec {command}\n")
}

/// Whether the file is one rewind wrote (for any rewind binary).
fn is_our_script(text: &str, agent: Agent) -> bool {
    text.starts_with("#!/bin/sh\n")
        && text
            .lines()
            .filter_map(|l| l.strip_prefix("exec "))
            .any(|c| is_ours(c, agent))
}

/// The changes that put (or, with `remove`, take) rewind's script for each event in `dir`.
pub(super) fn plan(
    dir: &Path,
    agent: Agent,
    command: &str,
    remove: bool,
) -> Result<(Vec<Change>, Vec<String>), CliError> {
    let mut changes = Vec::new();
    let mut events = Vec::new();
    for e in agent.events() {
        let path = dir.join(e.name);
        let before = files::read(&path)?;
        if let Some(text) = &before
            && !is_our_script(text, agent)
        {
            if remove {
                continue;
            }
            return Err(files::refuse(
                &path,
                &format!(
                    "it is a hook of yours, and Cline runs one file per event; add the line \
                     `{command}` to it (it reads the event on stdin) instead"
                ),
            ));
        }
        let after = if remove { None } else { Some(script(command)) };
        if remove && before.is_none() {
            continue;
        }
        events.push(e.name.to_owned());
        changes.push(Change {
            path,
            before,
            after,
            owned: true,
            executable: true,
        });
    }
    Ok((changes, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_recognised_whatever_the_binary() {
        let a = Agent::Cline;
        assert!(is_our_script(&script("/opt/x/rewind hook cline"), a));
        assert!(is_our_script(&script("'/my tools/rewind' hook cline"), a));
        assert!(!is_our_script(&script("/opt/x/rewind hook cursor"), a));
        assert!(!is_our_script("#!/usr/bin/env python3\nprint(1)\n", a));
    }
}
