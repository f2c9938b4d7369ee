//! Typed ids over the in-memory store: positions on the active branch (after a rewind and in a
//! fork too), prefixes, and `resolve_options` as every JSON host runs it.

use super::{Error, Position, message, resolve_options, resolve_session, turn, turn_at};
use crate::Engine;
use crate::id::{MessageId, SessionId, TurnId};
use crate::record::{CompleteTurnOptions, PromptOptions, SessionOptions};
use crate::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
use crate::{Coded, ErrorKind, conversation, fork};
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

type MemEngine = Engine<MemStore, MemWorkspace>;

/// A session with `n` completed turns; their (turn, prompt) ids, oldest first.
fn session(n: usize) -> (MemEngine, SessionId, Vec<(TurnId, MessageId)>) {
    let mut e = Engine::new(
        MemStore::new(),
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    );
    let s = e
        .create_session(SessionOptions::default())
        .expect("session")
        .id;
    let turns = (0..n)
        .map(|i| prompt(&mut e, &s, &format!("p{i}")))
        .collect();
    (e, s, turns)
}

fn prompt(e: &mut MemEngine, s: &SessionId, text: &str) -> (TurnId, MessageId) {
    let p = e
        .record_prompt(
            s,
            PromptOptions {
                text: text.into(),
                payload: None,
            },
        )
        .expect("prompt");
    let done = CompleteTurnOptions {
        turn_id: p.turn_id.clone(),
        failed: false,
        round_count: None,
    };
    e.complete_turn(s, done).expect("complete");
    (p.turn_id, p.message_id)
}

fn at(e: &MemEngine, s: &SessionId, typed: &str) -> Result<TurnId, Error> {
    let p = Position::parse(typed).expect("a position")?;
    turn_at(e.store(), s, p, typed).map(|t| t.id)
}

#[test]
fn positions_count_the_active_branch_from_either_end() {
    let (e, s, t) = session(3);
    assert_eq!(at(&e, &s, "#1").expect("ok"), t[0].0);
    assert_eq!(at(&e, &s, "#3").expect("ok"), t[2].0);
    assert_eq!(at(&e, &s, "@").expect("ok"), t[2].0);
    assert_eq!(at(&e, &s, "@-2").expect("ok"), t[0].0);
    let err = at(&e, &s, "#9").expect_err("refused");
    assert_eq!(err.code(), ErrorKind::NotFound);
    assert_eq!(
        err.to_string(),
        "the session has no turn `#9` on its active branch: it has 3 turns, #1 to #3 (@ is #3)"
    );
    assert!(
        at(&e, &s, "@-3")
            .expect_err("refused")
            .to_string()
            .contains("it has 3 turns")
    );
    let (e0, s0, _) = session(0);
    assert!(
        at(&e0, &s0, "@")
            .expect_err("refused")
            .to_string()
            .ends_with("it has no turns yet")
    );
}

#[test]
fn after_a_conversation_rewind_the_numbers_follow_the_new_branch() {
    let (mut e, s, t) = session(3);
    let to = conversation::Options { to: t[1].1.clone() };
    e.rewind_conversation(&s, to).expect("rewind");
    // Kept: turn 1. Then two new turns: the branch is [t0, n1, n2], spread over two ranges.
    assert_eq!(at(&e, &s, "@").expect("ok"), t[0].0);
    let n1 = prompt(&mut e, &s, "again");
    let n2 = prompt(&mut e, &s, "and again");
    assert_eq!(at(&e, &s, "#1").expect("ok"), t[0].0);
    assert_eq!(at(&e, &s, "#2").expect("ok"), n1.0);
    assert_eq!(at(&e, &s, "#3").expect("ok"), n2.0);
    assert_eq!(at(&e, &s, "@-2").expect("ok"), t[0].0);
    assert_eq!(at(&e, &s, "@-1").expect("ok"), n1.0);
    assert!(
        at(&e, &s, "#4")
            .expect_err("refused")
            .to_string()
            .contains("it has 3 turns")
    );
    // The turns the rewind cut away are still ids, but no longer positions.
    assert_eq!(
        turn(e.store(), &s, t[2].0.as_str(), true).expect("ok"),
        t[2].0.as_str()
    );
}

#[test]
fn a_fork_numbers_its_own_branch() {
    let (mut e, s, t) = session(3);
    let opts = fork::Options {
        at: Some(t[1].1.clone()),
        ..fork::Options::default()
    };
    let child = e.fork(&s, opts).expect("fork").child_id;
    let first = at(&e, &child, "#1").expect("ok");
    let last = at(&e, &child, "@").expect("ok");
    assert_ne!(first, last, "the fork keeps two turns");
    assert!(
        at(&e, &child, "#3")
            .expect_err("refused")
            .to_string()
            .contains("it has 2 turns")
    );
    assert_eq!(
        message(e.store(), &child, "@", false).expect("ok"),
        crate::load::turn(e.store(), &child, &last)
            .expect("ok")
            .prompt_id
            .as_str()
    );
}

#[test]
fn prefixes_with_or_without_the_type_prefix_name_one_id() {
    let (e, s, t) = session(12);
    let whole = t[3].1.as_str();
    let digits = whole.strip_prefix("msg_").expect("ok");
    assert_eq!(message(e.store(), &s, whole, true).expect("ok"), whole);
    assert_eq!(message(e.store(), &s, digits, false).expect("ok"), whole);
    // Ids are `msg_0001` …: `000` starts several.
    let err = message(e.store(), &s, "00", false).expect_err("refused");
    assert_eq!(err.code(), ErrorKind::InvalidInput);
    let Error::Ambiguous {
        candidates, more, ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(candidates.len(), super::SHOWN);
    assert!(more);
    // A short prefix that matches is refused for a call that changes things.
    let short = &digits[..3];
    assert!(matches!(
        message(e.store(), &s, short, true),
        Err(Error::TooShort { .. })
    ));
    let none = message(e.store(), &s, "ffff", false).expect_err("refused");
    assert_eq!(
        (none.code(), none.to_string()),
        (
            ErrorKind::NotFound,
            "no message id starts with `ffff`".into()
        )
    );
    let bad = message(e.store(), &s, "not-an-id", false).expect_err("refused");
    assert!(matches!(bad, Error::Malformed { .. }), "{bad}");
    assert!(matches!(
        Position::parse("#x"),
        Some(Err(Error::BadPosition { .. }))
    ));
}

#[test]
fn sessions_resolve_by_prefix_and_an_unknown_one_says_session() {
    let (e, s, _) = session(1);
    let digits = s.as_str().strip_prefix("ses_").expect("ok");
    assert_eq!(resolve_session(e.store(), digits, "resume").expect("ok"), s);
    assert_eq!(
        resolve_session(e.store(), s.as_str(), "rewind").expect("ok"),
        s
    );
    let err = resolve_session(e.store(), "ses_ffff", "rewind").expect_err("refused");
    assert_eq!(
        (err.code(), err.to_string()),
        (ErrorKind::NotFound, "session ses_ffff was not found".into())
    );
    let err = resolve_session(e.store(), "ffff", "resume").expect_err("refused");
    assert_eq!(err.to_string(), "no session id starts with `ffff`");
}

#[test]
fn options_of_every_verb_become_whole_ids() {
    let (e, s, t) = session(3);
    let mut o = json!({ "since": "#1", "paths": ["a"] });
    resolve_options(e.store(), &s, "previewFileRewind", &mut o).expect("ok");
    assert_eq!(o, json!({ "since": t[0].1.as_str(), "paths": ["a"] }));
    let mut o = json!({ "to": "@-1", "scope": "both" });
    resolve_options(e.store(), &s, "rewind", &mut o).expect("ok");
    assert_eq!(o["to"], t[1].1.as_str());
    // A file rewind's `turn` is a turn; a fork's too; `at` is a prompt.
    let mut o = json!({ "turn": "@" });
    resolve_options(e.store(), &s, "applyFileRewind", &mut o).expect("ok");
    assert_eq!(o["turn"], t[2].0.as_str());
    let mut o = json!({ "turn": "#2", "at": "#2" });
    resolve_options(e.store(), &s, "fork", &mut o).expect("ok");
    assert_eq!(o, json!({ "turn": t[1].0.as_str(), "at": t[1].1.as_str() }));
    let mut o = json!({ "turnId": "@", "text": "hi" });
    resolve_options(e.store(), &s, "recordReply", &mut o).expect("ok");
    assert_eq!(o["turnId"], t[2].0.as_str());
    // Whole ids, unknown whole ids and non-strings pass unchanged (the verb judges them).
    let mut o = json!({ "since": t[0].1.as_str(), "checkpoint": "ckp_ffff", "operationId": null });
    let before = o.clone();
    resolve_options(e.store(), &s, "rewind", &mut o).expect("ok");
    assert_eq!(o, before);
    let mut o = json!({ "since": "#9" });
    let err = resolve_options(e.store(), &s, "previewFileRewind", &mut o).expect_err("refused");
    assert!(err.to_string().contains("it has 3 turns"), "{err}");
    assert_eq!(
        o,
        json!({ "since": "#9" }),
        "a refused call changes nothing"
    );
}
