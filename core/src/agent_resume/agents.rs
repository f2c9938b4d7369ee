//! Each agent's own way to resume at a point (versions checked: Claude Code 2.1.332, Qwen Code
//! 0.24, Gemini CLI 0.61).

use super::{AgentCopy, AgentPoint, AgentResume, Cut};
use crate::hash::ContentHash;

/// The resume of `point`'s agent session cut as `cut`; `prompt` goes into the command when given;
/// `salt` makes a copy's new session id.
pub(super) fn resume(
    point: &AgentPoint,
    cut: Cut,
    prompt: Option<&str>,
    salt: &str,
) -> AgentResume {
    match point.agent.as_str() {
        "claude-code" => claude(point, cut, prompt, salt),
        "qwen-code" => qwen(point, cut, prompt, salt),
        "gemini-cli" => gemini(point, cut, prompt, salt),
        other => AgentResume {
            agent: other.to_owned(),
            argv: Vec::new(),
            prompt_last: false,
            exact: false,
            note: format!("rewind knows no way to resume {other} at a point"),
            copy: None,
        },
    }
}

fn none(point: &AgentPoint, why: &str) -> AgentResume {
    AgentResume {
        agent: point.agent.clone(),
        argv: Vec::new(),
        prompt_last: false,
        exact: false,
        note: format!(
            "no command resumes session {} at the rewound point: {why}",
            point.session_id
        ),
        copy: None,
    }
}

/// Claude Code 2.1: `--resume ID --fork-session` copies the session under a new id (the original
/// stays as it is); `--resume-session-at UUID` keeps its history through that entry, in print
/// mode only, so the next prompt is the command's last argument. `--session-id UUID` (accepted
/// with `--resume` when `--fork-session` is given) names the new session in advance, so the
/// hook can bind it to the rewind session the rewind left (`salt` makes the id).
fn claude(point: &AgentPoint, cut: Cut, prompt: Option<&str>, salt: &str) -> AgentResume {
    let sid = point.session_id.as_str();
    let new = session_uuid(&[salt, sid, point.before.as_deref().unwrap_or("")]);
    let mut argv: Vec<String> = vec!["claude".into()];
    let (prompt_last, note) = match (cut, point.before.as_deref()) {
        (Cut::Before, Some(uuid)) => {
            argv.extend(
                [
                    "-p",
                    "--resume",
                    sid,
                    "--fork-session",
                    "--resume-session-at",
                    uuid,
                    "--session-id",
                    new.as_str(),
                ]
                .map(str::to_owned),
            );
            (
                prompt.is_none(),
                format!(
                    "answers the next prompt in a new Claude Code session forked from {sid} with \
                     its history through entry {uuid}, before the rewound prompt (Claude Code \
                     resumes at a point only in print mode; `claude --resume` continues the new \
                     session afterwards); session {sid} is unchanged"
                ),
            )
        }
        (Cut::Before, None) => (
            false,
            format!(
                "the point is before the first prompt of session {sid}: a new Claude Code \
                 session starts from nothing; session {sid} is unchanged"
            ),
        ),
        (Cut::Whole, _) => {
            argv.extend(
                [
                    "--resume",
                    sid,
                    "--fork-session",
                    "--session-id",
                    new.as_str(),
                ]
                .map(str::to_owned),
            );
            (
                false,
                format!(
                    "continues all of session {sid} in a new Claude Code session; session {sid} \
                     is unchanged"
                ),
            )
        }
    };
    argv.extend(prompt.map(str::to_owned));
    AgentResume {
        agent: point.agent.clone(),
        argv,
        prompt_last,
        exact: true,
        note,
        copy: None,
    }
}

/// `argv` with the prompt as Qwen Code and Gemini CLI take it (`-p PROMPT`), as their exact
/// resume: both resume whole sessions and answer a prompt given with `-p`.
fn whole_session_resume(
    point: &AgentPoint,
    mut argv: Vec<String>,
    prompt: Option<&str>,
    note: String,
    copy: Option<AgentCopy>,
) -> AgentResume {
    argv.extend(
        prompt
            .map(|p| ["-p".to_owned(), p.to_owned()])
            .into_iter()
            .flatten(),
    );
    AgentResume {
        agent: point.agent.clone(),
        argv,
        prompt_last: false,
        exact: true,
        note,
        copy,
    }
}

/// Qwen Code 0.24 resumes whole sessions only (`--resume ID`, `--fork-session`), from its chats
/// directory (`<id>.jsonl`, one record a line, each with its `sessionId`): a cut is a new file
/// there holding the records through the point under a new id, which `--resume` then opens.
fn qwen(point: &AgentPoint, cut: Cut, prompt: Option<&str>, salt: &str) -> AgentResume {
    let sid = point.session_id.as_str();
    let mut argv: Vec<String> = vec!["qwen".into()];
    let mut copy = None;
    let note = match (
        cut,
        point.before.as_deref(),
        point.transcript_path.as_deref(),
    ) {
        (Cut::Whole, _, _) => {
            argv.extend(["--resume", sid, "--fork-session"].map(str::to_owned));
            format!(
                "continues all of session {sid} in a new Qwen Code session; session {sid} is unchanged"
            )
        }
        (Cut::Before, None, _) => format!(
            "the point is before the first prompt of session {sid}: a new Qwen Code session starts \
             from nothing; session {sid} is unchanged"
        ),
        (Cut::Before, Some(_), None) => {
            return none(point, "the hook payload named no transcript file to copy");
        }
        (Cut::Before, Some(uuid), Some(from)) => {
            let new = session_uuid(&[salt, sid, uuid]);
            let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
            copy = Some(AgentCopy {
                from: from.to_owned(),
                to: format!("{dir}/{new}.jsonl"),
                through: Some(uuid.to_owned()),
                session_id: new.clone(),
            });
            argv.extend(["--resume".to_owned(), new.clone()]);
            format!(
                "opens session {new}, a copy of session {sid} through record {uuid}, before the \
                 rewound prompt, written beside it; session {sid} is unchanged"
            )
        }
    };
    whole_session_resume(point, argv, prompt, note, copy)
}

/// Gemini CLI 0.61 resumes whole sessions only (`--resume ID`, no fork), found by the
/// `sessionId` of a chat file's header among `~/.gemini/tmp/<project>/chats/session-*.jsonl`,
/// and appends the resumed turns to the file it resumed: so a cut, and a whole session too, is
/// a new chat file there under a new id (the original is never resumed, so never written).
/// Gemini names its files `session-<time>-<id's first 8 characters>`; the copy ends in the new
/// id's *last* 8 instead, because a resume also leaves an empty file named with the resumed
/// id's first 8, and Gemini's start-up cleanup deletes every file ending like an empty one.
/// (That cleanup would delete the original too, when the person's own earlier `--resume` of it
/// left such a file, google-gemini/gemini-cli#27368: `rewind init gemini-cli` turns it off.)
fn gemini(point: &AgentPoint, cut: Cut, prompt: Option<&str>, salt: &str) -> AgentResume {
    let sid = point.session_id.as_str();
    let through = match (cut, point.before.as_deref()) {
        (Cut::Whole, _) => None,
        (Cut::Before, Some(id)) => Some(id),
        (Cut::Before, None) => {
            let note = format!(
                "the point is before the first prompt of session {sid}: a new Gemini CLI \
                 session starts from nothing; session {sid} is unchanged"
            );
            return whole_session_resume(point, vec!["gemini".to_owned()], prompt, note, None);
        }
    };
    let Some(from) = point.transcript_path.as_deref() else {
        return none(point, "the hook payload named no transcript file to copy");
    };
    let (dir, name) = from.rsplit_once('/').unwrap_or(("", from));
    let stamp = name
        .strip_prefix("session-")
        .and_then(|n| n.strip_suffix(".jsonl").or_else(|| n.strip_suffix(".json")))
        .and_then(|n| n.rsplit_once('-'))
        .map(|(time, _)| time);
    let Some(stamp) = stamp else {
        return none(
            point,
            "its chat file is not named the way Gemini CLI names them",
        );
    };
    let new = session_uuid(&[salt, sid, through.unwrap_or("")]);
    let kept = match through {
        Some(id) => format!("through message {id}, before the rewound prompt"),
        None => "with all its messages".to_owned(),
    };
    let argv: Vec<String> = ["gemini", "--resume", new.as_str()]
        .map(str::to_owned)
        .into();
    let note = format!(
        "opens session {new}, a copy of session {sid} {kept}, written beside it; session {sid} \
         is unchanged"
    );
    let copy = AgentCopy {
        from: from.to_owned(),
        to: format!("{dir}/session-{stamp}-{}.jsonl", &new[new.len() - 8..]),
        through: through.map(str::to_owned),
        session_id: new,
    };
    whole_session_resume(point, argv, prompt, note, Some(copy))
}

/// A version-4-shaped UUID made from `parts` (the agents want UUIDs for session ids): the same
/// parts, the same id, so a replayed fork names the same copy.
pub(super) fn session_uuid(parts: &[&str]) -> String {
    let h = ContentHash::of(parts.join("\u{0}").as_bytes());
    let hex = h.as_str();
    let variant = match hex.as_bytes()[16] {
        b'0'..=b'3' => '8',
        b'4'..=b'7' => '9',
        b'8' | b'9' | b'a' | b'b' => 'a',
        _ => 'b',
    };
    format!(
        "{}-{}-4{}-{variant}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}
