//! The agent session a printed resume will run as, bound in advance to the rewind session the
//! rewind left (the rewound session, or the fork). The agent's next hook events carry that new
//! agent session id; the hook asks [`expected`] before it would start a new rewind session, so
//! the resumed conversation goes on recording where the rewind put it.
//!
//! One small file per expected agent session, `agent-resumed/<agent>--<id>` beside the database,
//! holding the rewind session id: made whole under a temporary name and renamed into place. Ids
//! are fresh per rewind (chosen by the resume), so two rewinds never write the same file.

use rewind_core::agent_resume::AgentResume;
use rewind_core::id::SessionId;
use rewind_core::rewind::Outcome as RewindOutcome;
use serde::Deserialize as _;
use std::path::{Path, PathBuf};

/// The agent session id the resume's command runs as, when it is chosen in advance: a copy's
/// new id (Qwen Code, Gemini CLI) or Claude Code's `--session-id`.
pub fn resumed_as(r: &AgentResume) -> Option<&str> {
    if r.argv.is_empty() {
        return None;
    }
    if let Some(copy) = &r.copy {
        return Some(copy.session_id.as_str());
    }
    let at = r.argv.iter().position(|a| a == "--session-id")?;
    r.argv.get(at + 1).map(String::as_str)
}

fn file(db: &Path, agent: &str, agent_session: &str) -> Option<PathBuf> {
    let safe = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if !safe(agent) || !safe(agent_session) {
        return None;
    }
    let dir = db.parent().unwrap_or(Path::new("."));
    Some(
        dir.join("agent-resumed")
            .join(format!("{agent}--{agent_session}")),
    )
}

/// Bind the agent session `resume` will run as to `session`. Best effort: a resume whose binding
/// cannot be kept still resumes; its events then start a new rewind session, as before.
pub fn expect(db: &Path, resume: Option<&AgentResume>, session: &SessionId) {
    let Some(r) = resume else { return };
    let Some(id) = resumed_as(r) else { return };
    let Some(to) = file(db, &r.agent, id) else {
        return;
    };
    let Some(dir) = to.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(".tmp-{}-{id}", std::process::id()));
    if std::fs::write(&tmp, session.as_str()).is_ok() && std::fs::rename(&tmp, &to).is_ok() {
        return;
    }
    let _ = std::fs::remove_file(&tmp);
}

/// [`expect`] for whichever rewind `rewind` did (the picker's).
pub fn expect_rewind(db: &Path, out: &RewindOutcome, session: &SessionId) {
    let resume = match out {
        RewindOutcome::Conversation(o) => o.agent_resume.as_deref(),
        RewindOutcome::Both(o) => o.agent_resume.as_deref(),
        RewindOutcome::Workspace(_) => None,
    };
    expect(db, resume, session);
}

/// [`expect`] for an RPC answer (`rewind serve`): the `agentResume` it carries (at its top, or
/// one level down, as `rewind`'s outcome has it), bound to the fork's `childId` when there is
/// one, else to `session`, the session the call named.
pub fn expect_answer(db: &Path, session: Option<&str>, answer: &serde_json::Value) {
    let resume = answer.get("agentResume").or_else(|| {
        let inner = answer.as_object()?.values();
        inner.filter_map(|v| v.get("agentResume")).next()
    });
    let Some(resume) = resume.and_then(|r| AgentResume::deserialize(r).ok()) else {
        return;
    };
    let target = answer.get("childId").and_then(|c| c.as_str()).or(session);
    if let Some(id) = target.and_then(|t| SessionId::parse(t).ok()) {
        expect(db, Some(&resume), &id);
    }
}

/// The rewind session a rewind bound `agent_session` of `agent` to, if one did.
pub fn expected(db: &Path, agent: &str, agent_session: &str) -> Option<SessionId> {
    let text = std::fs::read_to_string(file(db, agent, agent_session)?).ok()?;
    SessionId::parse(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rewind_core::agent_resume::AgentCopy;

    fn resume(argv: &[&str], copy: Option<&str>) -> AgentResume {
        AgentResume {
            agent: "claude-code".into(),
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            prompt_last: false,
            exact: true,
            note: String::new(),
            copy: copy.map(|id| AgentCopy {
                from: "a".into(),
                to: "b".into(),
                through: None,
                session_id: id.into(),
            }),
        }
    }

    #[test]
    fn a_chosen_id_is_bound_and_found_and_nothing_else_is() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("rewind.db");
        let s = SessionId::parse("ses_1").expect("id");
        let claude = resume(&["claude", "--resume", "x", "--session-id", "new-1"], None);
        expect(&db, Some(&claude), &s);
        assert_eq!(expected(&db, "claude-code", "new-1"), Some(s));
        assert_eq!(expected(&db, "claude-code", "x"), None);
        assert_eq!(expected(&db, "claude-code", "../x"), None);
        let copied = resume(&["qwen", "--resume", "c-2"], Some("c-2"));
        assert_eq!(resumed_as(&copied), Some("c-2"));
        assert_eq!(resumed_as(&resume(&[], Some("c-2"))), None);
        assert_eq!(resumed_as(&resume(&["claude"], None)), None);
    }

    #[test]
    fn an_rpc_answer_binds_to_the_fork_or_to_the_session_called() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("rewind.db");
        let r =
            serde_json::to_value(resume(&["qwen", "--resume", "c-3"], Some("c-3"))).expect("json");
        let fork = serde_json::json!({ "childId": "ses_child", "agentResume": r });
        expect_answer(&db, Some("ses_parent"), &fork);
        assert_eq!(
            expected(&db, "claude-code", "c-3").map(|s| s.to_string()),
            Some("ses_child".into())
        );
        let r =
            serde_json::to_value(resume(&["qwen", "--resume", "c-4"], Some("c-4"))).expect("json");
        let rewound = serde_json::json!({ "conversation": { "agentResume": r } });
        expect_answer(&db, Some("ses_parent"), &rewound);
        assert_eq!(
            expected(&db, "claude-code", "c-4").map(|s| s.to_string()),
            Some("ses_parent".into())
        );
    }
}
