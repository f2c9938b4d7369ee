//! The line every conversation rewind, `both`, fork, side chat and edited prompt of an agent's
//! session ends with: the command that resumes the agent's own conversation at the same point
//! (`rewind_core::agent_resume`), or, where the agent offers no exact way, why there is none.

use crate::style::Style;
use rewind_core::agent_resume::AgentResume;

/// The human form: empty for a session no agent's hooks recorded.
pub(super) fn describe(style: &Style, resume: Option<&AgentResume>) -> String {
    let Some(r) = resume else {
        return String::new();
    };
    if r.argv.is_empty() {
        return format!("\nthe agent ({}): {}", r.agent, r.note);
    }
    let mut command = shell_words::join(&r.argv);
    if r.prompt_last {
        command.push_str(" '<your next prompt>'");
    }
    format!(
        "\nresume the agent there: {}\n  {}",
        style.hint(command),
        r.note
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_quoted_for_the_shell_and_a_missing_one_says_why() {
        let style = Style::new(false, 0);
        let r = AgentResume {
            agent: "claude-code".into(),
            argv: vec!["claude".into(), "-p".into(), "it's".into()],
            prompt_last: true,
            exact: true,
            note: "n".into(),
            copy: None,
        };
        let text = describe(&style, Some(&r));
        assert!(
            text.contains("claude -p 'it'\\''s' '<your next prompt>'"),
            "{text}"
        );
        let none = AgentResume {
            argv: Vec::new(),
            exact: false,
            note: "no way".into(),
            ..r
        };
        assert_eq!(
            describe(&style, Some(&none)),
            "\nthe agent (claude-code): no way"
        );
        assert_eq!(describe(&style, None), "");
    }
}
