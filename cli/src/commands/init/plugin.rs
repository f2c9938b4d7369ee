//! OpenCode's and Kilo Code's hooks are in-process plugins: rewind ships one
//! (`plugins/opencode/rewind.js` in the repository) and installs it as `rewind.js` in the
//! agent's plugin directory, with this binary's path written in. A `rewind.js` there that is not
//! rewind's plugin is the person's, and is refused rather than replaced.

use super::files::{self, Change};
use crate::agents::Agent;
use crate::commands::CliError;
use std::path::Path;

const TEMPLATE: &str = include_str!("../../../../plugins/opencode/rewind.js");
const MARK: &str = "// rewind's plugin for OpenCode and Kilo Code";

/// The plugin for `agent`, calling `exe` (the path itself: the plugin spawns it, no shell).
pub(super) fn render(exe: &str, agent: Agent) -> String {
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    TEMPLATE.replacen("\"@REWIND@\"", &quoted(exe), 1).replacen(
        "\"@AGENT@\"",
        &quoted(agent.as_str()),
        1,
    )
}

/// The change that puts (or takes) the plugin at `path`.
pub(super) fn plan(
    path: &Path,
    agent: Agent,
    exe: &str,
    remove: bool,
) -> Result<(Change, Vec<String>), CliError> {
    let before = files::read(path)?;
    if let Some(text) = &before
        && !text.starts_with(MARK)
    {
        return Err(files::refuse(
            path,
            "it is a plugin of yours, not rewind's; move it to another name, then run this \
             again",
        ));
    }
    let after = (!remove).then(|| render(exe, agent));
    let events = if remove && before.is_none() {
        Vec::new()
    } else {
        agent.events().iter().map(|e| e.name.to_owned()).collect()
    };
    let change = Change {
        path: path.to_path_buf(),
        before,
        after,
        owned: true,
        executable: false,
    };
    Ok((change, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_names_the_binary_and_the_agent() {
        let text = render("/opt/my \"tools\"/rewind", Agent::Kilo);
        assert!(text.starts_with(MARK));
        assert!(
            text.contains(r#"const REWIND = "/opt/my \"tools\"/rewind""#),
            "{text}"
        );
        assert!(text.contains(r#"const AGENT = "kilo""#));
        assert!(!text.contains("@REWIND@") && !text.contains("@AGENT@"));
    }
}
