use super::*;
use crate::id::{MessageId, SessionId, TraceId};
use crate::model::{AgentSession, Branch, MessageKind, MessageStatus, Role, SessionKind};

fn point(agent: &str, before: Option<&str>) -> AgentPoint {
    AgentPoint {
        agent: agent.into(),
        session_id: "sess-1".into(),
        transcript_path: Some("/t/sess-1.jsonl".into()),
        before: before.map(str::to_owned),
    }
}

fn session(agent: bool) -> Session {
    Session {
        id: SessionId::parse("ses_1").expect("valid"),
        parent_id: None,
        kind: SessionKind::Interactive,
        title: "t".into(),
        trace_id: TraceId::parse("trc_1").expect("valid"),
        workspace_label: None,
        created_at: 0,
        branch: Branch::default(),
        generation: 0,
        rewound_to: None,
        agent: agent.then(|| AgentSession {
            agent: "claude-code".into(),
            session_id: "sess-1".into(),
        }),
        seq_high_water: 0,
    }
}

fn prompt(payload: Option<serde_json::Value>) -> Message {
    Message {
        id: MessageId::parse("msg_1").expect("valid"),
        session_id: SessionId::parse("ses_1").expect("valid"),
        seq: 3,
        turn_id: None,
        role: Role::User,
        kind: MessageKind::Prompt,
        status: MessageStatus::Complete,
        visible_to_ui: true,
        visible_to_model: true,
        parent_id: None,
        compaction: None,
        fork_origin: None,
        parts: Vec::new(),
        payload,
        created_at: 0,
    }
}

#[test]
fn a_point_round_trips_through_the_prompt_payload() {
    let p = point("claude-code", Some("u-2"));
    assert_eq!(AgentPoint::of(&prompt(Some(p.payload()))), Some(p));
    assert_eq!(AgentPoint::of(&prompt(None)), None);
    let foreign = serde_json::json!({"agentPoint": {"agent": 3}});
    assert_eq!(AgentPoint::of(&prompt(Some(foreign))), None);
}

#[test]
fn claude_code_resumes_a_fork_cut_before_the_prompt() {
    let r = agents::resume(&point("claude-code", Some("u-2")), Cut::Before, None, "op");
    let argv = [
        "claude",
        "-p",
        "--resume",
        "sess-1",
        "--fork-session",
        "--resume-session-at",
        "u-2",
        "--session-id",
    ];
    assert_eq!(r.argv[..8], argv);
    // The new session's id is chosen here, the same for the same rewind.
    let again = agents::resume(&point("claude-code", Some("u-2")), Cut::Before, None, "op");
    assert_eq!(r.argv, again.argv);
    assert_eq!(r.argv[8].len(), 36);
    assert!(r.exact && r.prompt_last && r.copy.is_none());
    let edited = agents::resume(
        &point("claude-code", Some("u-2")),
        Cut::Before,
        Some("hi"),
        "op",
    );
    assert_eq!(edited.argv.last().map(String::as_str), Some("hi"));
    assert!(!edited.prompt_last);
}

#[test]
fn before_the_first_prompt_claude_code_starts_afresh_and_whole_forks_all() {
    let first = agents::resume(&point("claude-code", None), Cut::Before, None, "op");
    assert_eq!(first.argv, ["claude"]);
    assert!(first.exact && !first.prompt_last);
    let whole = agents::resume(&point("claude-code", Some("u")), Cut::Whole, None, "op");
    assert_eq!(
        whole.argv[..5],
        [
            "claude",
            "--resume",
            "sess-1",
            "--fork-session",
            "--session-id"
        ]
    );
}

#[test]
fn an_agent_without_a_way_gets_no_command_and_says_so() {
    let r = agents::resume(&point("other", Some("u")), Cut::Before, None, "op");
    assert!(r.argv.is_empty() && !r.exact);
    assert!(!r.note.is_empty());
}

fn gemini_point(file: &str, before: Option<&str>) -> AgentPoint {
    AgentPoint {
        transcript_path: Some(format!("/c/chats/{file}")),
        ..point("gemini-cli", before)
    }
}

#[test]
fn gemini_resumes_a_new_chat_file_cut_at_the_point_named_beside_the_original() {
    let p = gemini_point("session-2026-12-02T09-35-62dce68b.jsonl", Some("g1"));
    let r = agents::resume(&p, Cut::Before, Some("next"), "op");
    let copy = r.copy.clone().expect("a copy");
    assert!(r.exact && !r.prompt_last);
    assert_eq!(
        r.argv,
        ["gemini", "--resume", copy.session_id.as_str(), "-p", "next"]
    );
    assert_eq!(
        copy.from,
        "/c/chats/session-2026-12-02T09-35-62dce68b.jsonl"
    );
    assert_eq!(
        copy.to,
        format!(
            "/c/chats/session-2026-12-02T09-35-{}.jsonl",
            &copy.session_id[28..]
        )
    );
    assert_eq!(copy.through.as_deref(), Some("g1"));
    assert_ne!(copy.session_id, "sess-1");
    // The whole session (a side chat) is a copy too: resuming the original would write to it.
    let whole = agents::resume(&p, Cut::Whole, None, "op")
        .copy
        .expect("a copy");
    assert_eq!(whole.through, None);
    assert_ne!(whole.session_id, copy.session_id);
    // Before the first prompt: a new session, nothing copied.
    let first = agents::resume(
        &gemini_point("session-x-62dce68b.json", None),
        Cut::Before,
        None,
        "op",
    );
    assert!(first.exact && first.copy.is_none() && first.argv == ["gemini"]);
    // A file not named like Gemini's: no command.
    let odd = agents::resume(
        &gemini_point("chat.jsonl", Some("g1")),
        Cut::Before,
        None,
        "op",
    );
    assert!(odd.argv.is_empty() && !odd.exact && odd.copy.is_none());
}

#[test]
fn only_an_agents_session_with_a_point_gets_a_resume() {
    let p = prompt(Some(point("claude-code", Some("u")).payload()));
    assert!(before(&session(true), &p, None, "op").is_some());
    assert!(before(&session(false), &p, None, "op").is_none());
    let unknown = before(&session(true), &prompt(None), None, "op").expect("valid");
    assert!(unknown.argv.is_empty() && !unknown.exact);
}

#[test]
fn a_fork_cuts_before_the_next_prompt_or_keeps_the_whole_session() {
    let at = |seq: u64, before: &str| Message {
        seq,
        ..prompt(Some(point("claude-code", Some(before)).payload()))
    };
    let log = [at(1, "u-0"), at(5, "u-4"), at(9, "u-8")];
    let cut = through(&session(true), &log, 6, "op").expect("valid");
    assert_eq!(cut.argv.get(6).map(String::as_str), Some("u-8"));
    let whole = through(&session(true), &log, 12, "op").expect("valid");
    assert_eq!(
        whole.argv[..5],
        [
            "claude",
            "--resume",
            "sess-1",
            "--fork-session",
            "--session-id"
        ]
    );
    assert!(through(&session(false), &log, 6, "op").is_none());
}

#[test]
fn qwen_code_resumes_a_new_copy_of_its_session_through_the_point() {
    let r = agents::resume(&point("qwen-code", Some("u-2")), Cut::Before, None, "op_1");
    let copy = r.copy.clone().expect("a copy");
    assert_eq!(r.argv, ["qwen", "--resume", copy.session_id.as_str()]);
    assert_eq!(copy.from, "/t/sess-1.jsonl");
    assert_eq!(copy.to, format!("/t/{}.jsonl", copy.session_id));
    assert_eq!(copy.through.as_deref(), Some("u-2"));
    assert!(r.exact && !r.prompt_last);
    // The same rewind names the same copy; another rewind another one.
    let again = agents::resume(&point("qwen-code", Some("u-2")), Cut::Before, None, "op_1");
    assert_eq!(again.copy, Some(copy.clone()));
    let other = agents::resume(&point("qwen-code", Some("u-2")), Cut::Before, None, "op_2");
    assert_ne!(other.copy.map(|c| c.session_id), Some(copy.session_id));
    let edited = agents::resume(
        &point("qwen-code", Some("u-2")),
        Cut::Before,
        Some("hi"),
        "op_1",
    );
    assert_eq!(edited.argv[3..], ["-p", "hi"]);
}

#[test]
fn a_session_uuid_has_the_uuid_shape() {
    let id = agents::session_uuid(&["a", "b"]);
    let groups: Vec<usize> = id.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12]);
    assert_eq!(id.as_bytes()[14], b'4');
    assert!(matches!(id.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
}

#[test]
fn an_undone_rewind_resumes_the_whole_original_agent_session() {
    let p = prompt(Some(point("claude-code", Some("u-2")).payload()));
    let r = whole(&session(true), &p, "op").expect("an agent's session");
    // A new agent session of the whole original, under an id chosen in advance (for binding).
    assert_eq!(
        r.argv[..5],
        [
            "claude",
            "--resume",
            "sess-1",
            "--fork-session",
            "--session-id"
        ]
    );
    assert_eq!(r.argv.len(), 6, "{:?}", r.argv);
    assert!(r.note.contains("all of session sess-1"), "{}", r.note);
    let unknown = whole(&session(true), &prompt(None), "op").expect("still answered");
    assert!(unknown.argv.is_empty() && !unknown.exact);
    assert!(whole(&session(false), &p, "op").is_none());
}
