//! Two conversation rewinds racing on the same generation: exactly one wins.

use super::harness::{Shared, prompt, session};
use rewind_core::conversation;
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::ports::TurnControl;
use rewind_core::testkit::{MemWorkspace, SeqIds, TickClock};
use rewind_core::{Engine, ErrorKind, HostError};
use std::cell::RefCell;
use std::rc::Rc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// While the first rewind waits for the host to stop its turns, a second rewind commits.
struct Interloper {
    other: Engine<Shared, MemWorkspace>,
    session: SessionId,
    to: MessageId,
    result: Rc<RefCell<Option<Result<u64, ErrorKind>>>>,
}

impl TurnControl for Interloper {
    fn stop_turns(&mut self, _: &SessionId, _: &[TurnId]) -> Result<(), HostError> {
        let r = self.other.rewind_conversation(
            &self.session,
            conversation::Options {
                to: self.to.clone(),
            },
        );
        *self.result.borrow_mut() = Some(r.map(|o| o.generation).map_err(|e| e.kind()));
        Ok(())
    }
}

#[test]
fn two_rewinds_on_the_same_generation_exactly_one_wins() {
    let store = Shared::default();
    let mut first = Engine::new(
        store.clone(),
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    );
    let s = session(&mut first);
    let (_, p1) = prompt(&mut first, &s, "one");
    let (_, p2) = prompt(&mut first, &s, "two");
    let (_, _p3) = prompt(&mut first, &s, "three");
    let result = Rc::new(RefCell::new(None));
    let other = Engine::new(
        store,
        MemWorkspace::new(),
        TickClock::new(2_000_000_000_000),
        SeqIds::starting_after(10_000),
    );
    let interloper = Interloper {
        other,
        session: s.clone(),
        to: p2.clone(),
        result: result.clone(),
    };
    let mut first = first.with_turn_control(interloper);
    let err = first
        .rewind_conversation(&s, conversation::Options { to: p1 })
        .expect_err("the first rewind lost the race");
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(
        *result.borrow(),
        Some(Ok(1)),
        "the interloper won with generation 1"
    );
    let state = first.resume(&s).expect("resume");
    assert_eq!(state.session.generation, 1);
    assert_eq!(
        state.session.rewound_to,
        Some(p2),
        "the winner's branch stands"
    );
    assert_eq!(state.turn_number, 1);
    let ops = first.operations(&s).expect("ops").items;
    assert_eq!(ops.len(), 1, "only the winner recorded an operation");
}
