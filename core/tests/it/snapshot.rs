//! The MemStore snapshot: loading one (plus the batches after it) gives the same store as
//! replaying the whole log, and a damaged or foreign one loads nothing, with a stable code.

use super::harness::{prompt, session, tool_edit};
use rewind_core::Engine;
use rewind_core::ErrorKind;
use rewind_core::batch::Batch;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::fork;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::mem::snapshot::{self, Error};
use rewind_core::model::Policy;
use rewind_core::ports::{SeqRange, Store, StoreWrite};
use rewind_core::record::{CompactionOptions, CompleteTurnOptions, ReplyOptions};
use rewind_core::replay;
use rewind_core::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

type LogEngine = Engine<MemStore, MemWorkspace>;

fn logging_engine() -> LogEngine {
    Engine::new(
        MemStore::with_log(),
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    )
}

/// Two turns with edits, replies, a compaction, a file rewind (an operation) and a fork with a
/// command id (a command fact and a second session).
fn busy_session(e: &mut LogEngine) -> SessionId {
    let s = session(e);
    let (t1, p1) = prompt(e, &s, "one");
    tool_edit(e, &s, &t1, "a.txt", Some(b"a1\n"));
    tool_edit(e, &s, &t1, "bin", Some(&[0, 159, 255, 10]));
    let reply = |text: &str, turn_id| ReplyOptions {
        turn_id,
        text: text.into(),
        error: false,
        payload: None,
    };
    e.record_reply(&s, reply("done", t1.clone()))
        .expect("reply");
    e.complete_turn(
        &s,
        CompleteTurnOptions {
            turn_id: t1,
            failed: false,
            round_count: None,
        },
    )
    .expect("complete");
    e.record_compaction(
        &s,
        CompactionOptions {
            turn_id: None,
            text: "summary".into(),
        },
    )
    .expect("compaction");
    let (t2, p2) = prompt(e, &s, "two");
    tool_edit(e, &s, &t2, "a.txt", Some(b"a2\n"));
    e.record_reply(&s, reply("again", t2)).expect("reply");
    let since = TargetOptions {
        since: Some(p2),
        ..TargetOptions::default()
    };
    e.apply_file_rewind(
        &s,
        ApplyOptions {
            target: since,
            policy: Policy::Block,
        },
    )
    .expect("apply");
    e.fork(
        &s,
        fork::Options {
            at: Some(p1),
            command_id: Some(rewind_core::id::CommandId::parse("cmd_x").expect("id")),
            ..fork::Options::default()
        },
    )
    .expect("fork");
    s
}

fn log_bytes(store: &MemStore) -> Vec<Vec<u8>> {
    store.committed().iter().map(Batch::to_bytes).collect()
}

fn replayed(log: &[Vec<u8>]) -> MemStore {
    let mut store = MemStore::new();
    let out = replay::replay(&mut store, log, replay::Options { strict: true }).expect("replay");
    assert_eq!(out.applied, log.len());
    store
}

/// Every read of the port, for every session.
fn assert_same(a: &MemStore, b: &MemStore) {
    assert_eq!(a.sessions().expect("r"), b.sessions().expect("r"));
    assert_eq!(a.journals().expect("r"), b.journals().expect("r"));
    assert_eq!(a.blobs().expect("r"), b.blobs().expect("r"));
    assert_eq!(a.version().expect("r"), b.version().expect("r"));
    for row in a.sessions().expect("r") {
        let s = SessionId::parse(&row.id).expect("id");
        assert_eq!(a.messages(&s).expect("r"), b.messages(&s).expect("r"));
        assert_eq!(a.turns(&s).expect("r"), b.turns(&s).expect("r"));
        assert_eq!(a.checkpoints(&s).expect("r"), b.checkpoints(&s).expect("r"));
        assert_eq!(a.operations(&s).expect("r"), b.operations(&s).expect("r"));
        assert_eq!(a.boundaries(&s).expect("r"), b.boundaries(&s).expect("r"));
        assert_eq!(
            a.session_bytes(&s).expect("r"),
            b.session_bytes(&s).expect("r")
        );
        assert_eq!(a.last_seq(&s).expect("r"), b.last_seq(&s).expect("r"));
        for t in a.turns(&s).expect("r") {
            let t = TurnId::parse(&t.id).expect("id");
            assert_eq!(
                a.turn_checkpoints(&s, &t).expect("r"),
                b.turn_checkpoints(&s, &t).expect("r")
            );
        }
        let tail = SeqRange::from(3);
        assert_eq!(
            a.last_messages_in(&s, tail, 2).expect("r"),
            b.last_messages_in(&s, tail, 2).expect("r")
        );
    }
}

fn resume_of(store: MemStore, s: &SessionId) -> rewind_core::resume::State {
    let mut e = Engine::new(
        store,
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::starting_after(1000),
    );
    e.resume(s).expect("resume")
}

#[test]
fn a_snapshot_loads_the_same_store_as_replaying_the_log() {
    let mut e = logging_engine();
    let s = busy_session(&mut e);
    let log = log_bytes(e.store());
    let from_log = replayed(&log);
    let from_snapshot = MemStore::from_snapshot(&e.store().snapshot()).expect("decode");
    assert_same(&from_log, &from_snapshot);
    assert!(!from_snapshot.boundaries(&s).expect("r").is_empty());
    assert!(
        !from_snapshot.keeps_log(),
        "a loaded snapshot keeps no batch log"
    );
    assert_eq!(resume_of(from_log, &s), resume_of(from_snapshot, &s));
}

/// A log persisted before `PutCheckpoint` carried its turn replays to the same store: the turn
/// is read from each body instead.
#[test]
fn a_log_without_checkpoint_turns_replays_to_the_same_store() {
    use rewind_core::batch::Write;
    let mut e = logging_engine();
    let s = busy_session(&mut e);
    let old: Vec<Vec<u8>> = e
        .store()
        .committed()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            for w in &mut b.writes {
                if let Write::PutCheckpoint { turn, .. } = w {
                    *turn = None;
                }
            }
            b.to_bytes()
        })
        .collect();
    let (now, then) = (replayed(&log_bytes(e.store())), replayed(&old));
    assert_same(&now, &then);
    let first = TurnId::parse(&now.turns(&s).expect("r")[0].id).expect("id");
    assert_eq!(then.turn_checkpoints(&s, &first).expect("r").len(), 2);
}

#[test]
fn a_snapshot_plus_the_batches_after_it_equals_the_whole_log() {
    let mut e = logging_engine();
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"a1\n"));
    let snap = e.store().snapshot();
    let before = e.store().committed().len();
    let (t2, _) = prompt(&mut e, &s, "two");
    tool_edit(&mut e, &s, &t2, "a.txt", Some(b"a2\n"));
    let log = log_bytes(e.store());

    let mut loaded = MemStore::from_snapshot(&snap).expect("decode");
    // The tail's preconditions (last seq, version) hold against the snapshot's state.
    let out = replay::replay(
        &mut loaded,
        &log[before..],
        replay::Options { strict: true },
    )
    .expect("tail");
    assert_eq!(out.applied, log.len() - before);
    let whole = replayed(&log);
    assert_same(&whole, &loaded);
    assert_eq!(resume_of(whole, &s), resume_of(loaded, &s));
}

#[test]
fn the_snapshot_of_a_loaded_snapshot_is_the_same_bytes() {
    let mut e = logging_engine();
    busy_session(&mut e);
    let snap = e.store().snapshot();
    let again = MemStore::from_snapshot(&snap).expect("decode").snapshot();
    assert_eq!(snap, again);
    assert_eq!(MemStore::new().snapshot(), replayed(&[]).snapshot());
}

#[test]
fn damaged_or_foreign_snapshots_load_nothing_and_say_why() {
    let mut e = logging_engine();
    busy_session(&mut e);
    let snap = e.store().snapshot();
    let code = |bytes: &[u8]| match MemStore::from_snapshot(bytes) {
        Ok(_) => panic!("loaded a bad snapshot"),
        Err(err) => (err.kind(), err.to_string()),
    };
    assert_eq!(code(b"").0, ErrorKind::InvalidInput);
    assert_eq!(code(b"{\"writes\":[]}").0, ErrorKind::InvalidInput);
    let mut future = snap.clone();
    future[8] = 9;
    let (kind, msg) = code(&future);
    assert_eq!(kind, ErrorKind::InvalidInput);
    assert!(msg.contains("format 9"), "{msg}");
    for cut in [12, 20, snap.len() / 2, snap.len() - 1] {
        assert_eq!(code(&snap[..cut]).0, ErrorKind::Corrupt, "cut at {cut}");
    }
    for at in [16, snap.len() / 3, snap.len() - 9] {
        let mut flipped = snap.clone();
        flipped[at] ^= 0x10;
        assert_eq!(code(&flipped).0, ErrorKind::Corrupt, "bit flip at {at}");
    }
    let mut longer = snap;
    longer.push(0);
    assert_eq!(code(&longer).0, ErrorKind::Corrupt);
    assert!(matches!(
        snapshot::decode(b"RWNDSNAP"),
        Err(Error::Corrupt(_))
    ));
}

#[test]
fn a_store_without_a_log_keeps_no_batches_but_counts_them() {
    let mut store = MemStore::new();
    let mut b = Batch::new();
    b.push(rewind_core::batch::Write::CreateSession {
        session: SessionId::parse("ses_1").expect("id"),
        body: "{}".into(),
    });
    store.commit(b).expect("commit");
    assert!(store.committed().is_empty());
    assert_eq!(store.version().expect("v"), 1);
}

#[test]
fn a_store_trusts_blob_hashes_only_while_asked() {
    use rewind_core::batch::Write;
    use rewind_core::hash::ContentHash;
    let wrong = |claimed: &[u8]| {
        let mut b = Batch::new();
        b.push(Write::PutBlob {
            hash: ContentHash::of(claimed),
            bytes: b"other bytes".to_vec(),
            base: None,
        });
        b
    };
    let mut store = MemStore::new();
    store.trust_blob_hashes(true);
    store.commit(wrong(b"one")).expect("replay trusts the log");
    // Reads still see the damage: the engine verifies every blob it reads.
    assert!(store.has_blob(&ContentHash::of(b"one")).expect("r"));
    store.trust_blob_hashes(false);
    let err = store
        .commit(wrong(b"two"))
        .expect_err("live commits hash new blobs");
    assert_eq!(err.kind(), rewind_core::HostErrorKind::PreconditionFailed);
}
