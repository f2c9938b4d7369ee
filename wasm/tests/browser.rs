//! The web target in headless Chromium (wasm-bindgen-test-runner + chromedriver): the Engine
//! over a JS in-memory workspace, as a browser page would drive it.

#![cfg(target_arch = "wasm32")]

use js_sys::{Reflect, Uint8Array};
use rewind_wasm::Engine;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function memWorkspace(failWrites) {
  const files = new Map();
  return {
    files,
    read(p) { return files.has(p) ? files.get(p).slice() : null; },
    write(p, b) { if (failWrites.n-- === 1) throw new Error('disk full'); files.set(p, b.slice()); },
    remove(p) { files.delete(p); },
  };
}
export function text(s) { return new TextEncoder().encode(s); }
export function fileText(ws, p) { const b = ws.files.get(p); return b ? new TextDecoder().decode(b) : null; }
export function obj(json) { return JSON.parse(json); }
export function put(ws, p, b) { if (ws.put) ws.put(p, b); else ws.files.set(p, b); }
// What a browser file system can list: sizes and modification times on the Date.now() clock
// (no inodes, ctimes or modes).
export function withListing(ws) {
  const mtimes = new Map();
  const stamp = (p) => mtimes.set(p, Date.now());
  for (const p of ws.files.keys()) stamp(p);
  const write = ws.write;
  ws.write = (p, b) => { write(p, b); stamp(p); };
  ws.put = (p, b) => { ws.files.set(p, b); stamp(p); };
  ws.list = () => [...ws.files].map(([path, b]) => ({ path, size: b.length, mtimeMs: mtimes.get(path) }));
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = memWorkspace)]
    fn mem_workspace(fail_writes: &JsValue) -> JsValue;
    fn text(s: &str) -> Uint8Array;
    #[wasm_bindgen(js_name = fileText)]
    fn file_text(ws: &JsValue, path: &str) -> Option<String>;
    fn obj(json: &str) -> JsValue;
    fn put(ws: &JsValue, path: &str, bytes: &Uint8Array);
    #[wasm_bindgen(js_name = withListing)]
    fn with_listing(ws: &JsValue);
}

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).expect("object")
}

fn set(v: &JsValue, k: &str, x: &JsValue) {
    Reflect::set(v, &JsValue::from_str(k), x).expect("object");
}

/// An engine with one session whose single turn changed `a.txt` from "one" to "two".
fn setup(fail: &JsValue) -> (Engine, JsValue, String, String) {
    let ws = mem_workspace(fail);
    let opts = obj("{}");
    set(&opts, "workspace", &ws);
    let mut engine = Engine::in_memory(opts).expect("engine");
    let session = engine.create_session(None).expect("session");
    let sid = field(&session, "id");
    let prompt = engine
        .record_prompt(sid.clone(), obj(r#"{"text":"edit a"}"#))
        .expect("prompt");
    let turn = field(&prompt, "turnId");
    let edit = obj(r#"{"path":"a.txt","toolName":"Write"}"#);
    set(&edit, "turnId", &turn);
    set(&edit, "before", &text("one\n"));
    set(&edit, "after", &text("two\n"));
    put(&ws, "a.txt", &text("two\n")); // the tool wrote the file
    engine.record_edit(sid.clone(), edit).expect("edit");
    let msg = field(&prompt, "messageId").as_string().expect("id");
    (engine, ws, sid.as_string().expect("id"), msg)
}

#[wasm_bindgen_test]
fn a_file_rewind_restores_the_browser_workspace() {
    let (mut engine, ws, sid, msg) = setup(&obj(r#"{"n":0}"#));
    let opts = obj("{}");
    set(&opts, "since", &msg.into());
    let preview = engine
        .preview_file_rewind(sid.clone().into(), opts.clone())
        .expect("preview");
    assert_eq!(field(&preview, "canApply"), JsValue::TRUE);
    let done = engine.apply_file_rewind(sid.into(), opts).expect("apply");
    assert_eq!(field(&done, "applied"), JsValue::TRUE);
    assert_eq!(file_text(&ws, "a.txt").as_deref(), Some("one\n"));
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_a_code() {
    let (mut engine, _ws, sid, _) = setup(&obj(r#"{"n":0}"#));
    let err = engine
        .record_prompt(sid.into(), obj(r#"{"text":""}"#))
        .expect_err("empty prompt");
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(
        field(&err, "code").as_string().as_deref(),
        Some("invalid_input")
    );
}

#[wasm_bindgen_test]
fn a_throwing_write_rolls_back_and_keeps_the_engine_usable() {
    let fail = obj(r#"{"n":0}"#);
    let (mut engine, ws, sid, msg) = setup(&fail);
    set(&fail, "n", &1.into()); // the next write throws
    let opts = obj("{}");
    set(&opts, "since", &msg.into());
    let done = engine
        .apply_file_rewind(sid.clone().into(), opts.clone())
        .expect("apply reports the failure as data");
    assert_eq!(field(&done, "applied"), JsValue::FALSE);
    assert_eq!(file_text(&ws, "a.txt").as_deref(), Some("two\n"));
    let again = engine.apply_file_rewind(sid.into(), opts).expect("apply");
    assert_eq!(field(&again, "applied"), JsValue::TRUE);
}

#[wasm_bindgen_test]
fn shell_capture_over_a_browser_workspace_that_lists_its_files() {
    let (mut engine, ws, sid, msg) = setup(&obj(r#"{"n":0}"#));
    with_listing(&ws);
    let state = engine.resume(sid.clone().into()).expect("resume");
    let opts = obj("{}");
    set(&opts, "turnId", &field(&state, "runningTurn"));
    let base = engine
        .snapshot_workspace(sid.clone().into(), opts.clone())
        .expect("baseline");
    assert_eq!(field(&base, "baseline"), JsValue::TRUE);
    put(&ws, "b.txt", &text("new\n")); // a command created it
    let shot = engine
        .snapshot_workspace(sid.clone().into(), opts)
        .expect("snapshot");
    assert_eq!(field(&shot, "kind").as_string().as_deref(), Some("shell"));
    let created = js_sys::JSON::stringify(&field(&shot, "created")).expect("json");
    assert_eq!(String::from(created), r#"["b.txt"]"#);
    // a.txt was written moments before the baseline's listing, so its unchanged stat data
    // could not vouch for it: read again, found the same.
    assert_eq!(field(&shot, "racy").as_f64(), Some(1.0));
    let since = obj("{}");
    set(&since, "since", &msg.into());
    let done = engine.apply_file_rewind(sid.into(), since).expect("apply");
    assert_eq!(field(&done, "applied"), JsValue::TRUE);
    assert_eq!(file_text(&ws, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(file_text(&ws, "b.txt"), None);
}
