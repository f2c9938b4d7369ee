//! Two conversation rewinds racing on the same generation: exactly one wins.

use super::harness::{prompt, session};
use rewind_core::batch::Batch;
use rewind_core::conversation;
use rewind_core::hash::ContentHash;
use rewind_core::id::{CommandId, MessageId, SessionId, TurnId};
use rewind_core::ports::{BlobInfo, Row, Store, StoreWrite, TurnControl};
use rewind_core::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
use rewind_core::{Engine, ErrorKind, HostError};
use std::cell::RefCell;
use std::rc::Rc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// One store shared by two engines, as two processes share one database.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<MemStore>>);

impl Store for Shared {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.0.borrow().session(id)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        self.0.borrow().sessions()
    }
    fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().messages(s)
    }
    fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> {
        self.0.borrow().turn(s, t)
    }
    fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().turns(s)
    }
    fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().checkpoints(s)
    }
    fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.0.borrow().operations(s)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.0.borrow().journals()
    }
    fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        self.0.borrow().blob(h)
    }
    fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> {
        self.0.borrow().last_seq(s)
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        self.0.borrow().command_fact(p, c)
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        self.0.borrow().blobs()
    }
    fn version(&self) -> Result<u64, HostError> {
        self.0.borrow().version()
    }
}

impl StoreWrite for Shared {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        self.0.borrow_mut().commit(batch)
    }
}

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
