//! The range-read contract over the JS store host, in Node: once with a store object that has
//! only the required methods (the engine answers range reads from whole-session reads) and
//! once with one that has every optional range callback (`messagesIn(session, from, to)` with
//! `to = null` for open-ended, …); and the workspace-snapshot row contract, plus what a host
//! without `workspaceSnapshot` reads. The hosts are the JS suites' own (tests/js/lib/hosts.mjs).

#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/../tests/js/lib/hosts.mjs")]
extern "C" {
    type MemStoreHost;
    #[wasm_bindgen(constructor)]
    fn new() -> MemStoreHost;

    type RangeStoreHost;
    #[wasm_bindgen(constructor, js_class = "RangeStoreHost")]
    fn new_range() -> RangeStoreHost;
}

fn plain() -> impl rewind_core::ports::StoreWrite {
    rewind_wasm::testing::js_store(MemStoreHost::new().into())
}

fn ranged() -> impl rewind_core::ports::StoreWrite {
    rewind_wasm::testing::js_store(RangeStoreHost::new_range().into())
}

rewind_core::store_range_contract!(js_store_without_range_callbacks, super::plain());
rewind_core::store_range_contract!(js_store_with_range_callbacks, super::ranged());

/// The second run really goes through the callbacks: a range read makes no whole-session read.
#[wasm_bindgen_test::wasm_bindgen_test]
fn range_reads_use_the_callbacks_when_the_host_has_them() {
    use rewind_core::id::SessionId;
    use rewind_core::ports::{SeqRange, Store};
    let host: JsValue = RangeStoreHost::new_range().into();
    let store = rewind_wasm::testing::js_store(host.clone());
    let s = SessionId::parse("ses_a").expect("id");
    store.messages_in(&s, SeqRange::from(3)).expect("read");
    store.checkpoints_in(&s, SeqRange::new(1, 9)).expect("read");
    store.session_bytes(&s).expect("read");
    let count = |k: &str| {
        js_sys::Reflect::get(&host, &k.into())
            .expect("prop")
            .as_f64()
    };
    assert_eq!(count("wholeReads"), Some(0.0));
    assert!(count("rangeReads").is_some_and(|n| n >= 3.0));
}

// The session's latest workspace snapshot through the JS store host: `putWorkspaceSnapshot`
// reaches `commit`, `workspaceSnapshot(sessionId)` answers the newest body, one row per session,
// gone with `deleteSession`.
rewind_core::store_snapshot_contract!(js_store_snapshot_rows, super::plain());

/// A store host without `workspaceSnapshot` keeps none: every read is "no snapshot" (what gc
/// and a first snapshot's stat cache see), never an error.
#[wasm_bindgen_test::wasm_bindgen_test]
fn a_store_host_without_the_callback_reads_no_snapshot() {
    use rewind_core::id::SessionId;
    use rewind_core::ports::Store;
    let host: JsValue = MemStoreHost::new().into();
    // Shadow the prototype's method: the engine looks the callback up on the object.
    js_sys::Reflect::set(&host, &"workspaceSnapshot".into(), &JsValue::UNDEFINED).expect("set");
    let store = rewind_wasm::testing::js_store(host);
    let s = SessionId::parse("ses_a").expect("id");
    assert_eq!(store.workspace_snapshot(&s).expect("read"), None);
}
