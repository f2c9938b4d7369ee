//! Tests of fork bundles: one built from a real parent is child-local, and `validate` names
//! every reference that points outside it.

use super::build::{Source, build};
use super::bundle::{Bundle, validate};
use crate::ctx::{Limits, Ports};
use crate::id::{MessageId, SessionId, TurnId};
use crate::load::SessionLog;
use crate::model::SessionKind;
use crate::record::{self, PromptOptions, ReplyOptions, SessionOptions};
use crate::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A real bundle built from a two-message parent.
fn bundle() -> Bundle {
    let (mut store, mut ws, clock, mut ids) = (
        MemStore::new(),
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    );
    let mut p = Ports {
        store: &mut store,
        workspace: &mut ws,
        clock: &clock,
        ids: &mut ids,
        turn_control: None,
        limits: Limits::default(),
    };
    let s = record::create_session(&mut p, SessionOptions::default())
        .expect("session")
        .id;
    let t = record::prompt(
        &mut p,
        &s,
        PromptOptions {
            text: "hi".into(),
            payload: None,
        },
    )
    .expect("prompt");
    record::reply(
        &mut p,
        &s,
        ReplyOptions {
            turn_id: t.turn_id,
            text: "hello".into(),
            error: false,
            payload: None,
        },
    )
    .expect("reply");
    let log = SessionLog::load(p.store, &s).expect("log");
    let src = Source {
        parent: &log.session,
        messages: log.messages.iter().collect(),
        turns: &log.turns,
        checkpoints: Vec::new(),
        hide_from_ui: false,
    };
    build(&mut p, src, SessionKind::Fork, "Fork".into(), Vec::new())
}

#[test]
fn a_built_bundle_is_child_local() {
    let b = bundle();
    assert_eq!(validate(&b), Ok(()));
    assert_eq!(
        b.messages[1].parent_id.as_ref(),
        Some(&b.messages[0].id),
        "the reply's parent is remapped"
    );
    assert!(b.messages.iter().all(|m| m.fork_origin.is_some()));
}

#[test]
fn every_outside_reference_is_named() {
    let outside = MessageId::parse("msg_parent").expect("valid");
    type Tamper = Box<dyn Fn(&mut Bundle)>;
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "messages[1].parentId",
            Box::new(|b| {
                b.messages[1].parent_id = Some(MessageId::parse("msg_parent").expect("valid"));
            }),
        ),
        (
            "messages[0].sessionId",
            Box::new(|b| {
                b.messages[0].session_id = SessionId::parse("ses_parent").expect("valid");
            }),
        ),
        (
            "messages[0].turnId",
            Box::new(|b| {
                b.messages[0].turn_id = Some(TurnId::parse("trn_parent").expect("valid"));
            }),
        ),
        (
            "turns[0].promptId",
            Box::new(|b| b.turns[0].prompt_id = MessageId::parse("msg_parent").expect("valid")),
        ),
        (
            "messages[0].parts[0].toolCallIds",
            Box::new(|b| {
                b.messages[0].parts[0]
                    .tool_call_ids
                    .push("call_parent".into());
            }),
        ),
        (
            "messages[1].id (duplicate)",
            Box::new(|b| b.messages[1].id = b.messages[0].id.clone()),
        ),
    ];
    for (field, tamper) in cases {
        let mut b = bundle();
        tamper(&mut b);
        let err = validate(&b).expect_err(field);
        assert_eq!(err.field, field);
    }
    let mut b = bundle();
    b.messages[1].parent_id = Some(outside);
    assert!(
        validate(&b)
            .expect_err("outside")
            .to_string()
            .contains("msg_parent")
    );
}
