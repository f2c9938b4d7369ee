//! The JSON-RPC framing over a stand-in runner (the real engine is driven through the binary in
//! `tests/serve_*.rs`).

use super::jsonrpc::{Call, handle_bytes};
use rewind_host::rpc::RpcError;
use serde_json::{Value, json};

/// Answers `stats` with `{"ok": true}` and the workspace it was given, fails `resume` with
/// `not_found`.
fn run(call: Call<'_>) -> Result<Value, RpcError> {
    match call.method {
        "stats" => Ok(json!({ "ok": true, "workspace": call.workspace })),
        "resume" => Err(RpcError::new(
            rewind_core::ErrorKind::NotFound,
            "no such session",
        )),
        _ => Ok(call.params),
    }
}

fn answer(text: &str) -> Option<Value> {
    handle_bytes(text.as_bytes(), &run).map(|t| serde_json::from_str(&t).expect("a reply is JSON"))
}

fn error(reply: &Value) -> (i64, &str) {
    (
        reply["error"]["code"].as_i64().expect("code"),
        reply["error"]["data"]["code"].as_str().expect("data.code"),
    )
}

#[test]
fn a_request_gets_its_result_with_its_id() {
    let r = answer(r#"{"jsonrpc":"2.0","method":"stats","id":7}"#).expect("reply");
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","result":{"ok":true,"workspace":null},"id":7})
    );
    let r = answer(r#"{"jsonrpc":"2.0","method":"stats","params":[],"id":"a","workspace":"/w"}"#)
        .expect("reply");
    assert_eq!(r["result"]["workspace"], json!("/w"));
    assert_eq!(r["id"], json!("a"));
}

#[test]
fn a_null_id_is_a_request_and_no_id_a_notification() {
    let r = answer(r#"{"jsonrpc":"2.0","method":"stats","id":null}"#).expect("reply");
    assert_eq!(r["id"], Value::Null);
    assert_eq!(r["result"]["ok"], json!(true));
    assert_eq!(answer(r#"{"jsonrpc":"2.0","method":"stats"}"#), None);
    // A failing notification is not answered either.
    assert_eq!(
        answer(r#"{"jsonrpc":"2.0","method":"resume","params":["x"]}"#),
        None
    );
    assert_eq!(answer(r#"{"jsonrpc":"2.0","method":"nope"}"#), None);
}

#[test]
fn engine_errors_carry_the_stable_code() {
    let r = answer(r#"{"jsonrpc":"2.0","method":"resume","params":["s"],"id":1}"#).expect("reply");
    assert_eq!(error(&r), (-32000, "not_found"));
    assert_eq!(r["error"]["message"], json!("no such session"));
}

#[test]
fn protocol_errors_have_the_spec_codes() {
    let cases = [
        (r#"{"jsonrpc":"2.0","method":"stats","id":1"#, -32700),
        ("\u{0}", -32700),
        (r#"{"jsonrpc":"1.0","method":"stats","id":1}"#, -32600),
        (r#"{"method":"stats","id":1}"#, -32600),
        (r#"{"jsonrpc":"2.0","method":"stats","id":[1]}"#, -32600),
        (
            r#"{"jsonrpc":"2.0","method":"stats","params":"x","id":1}"#,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"stats","workspace":3,"id":1}"#,
            -32600,
        ),
        (r#"{"jsonrpc":"2.0","method":"subtract","id":1}"#, -32601),
        (
            r#"{"jsonrpc":"2.0","method":"stats","params":{"a":1},"id":1}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"stats","params":[1],"id":1}"#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"resume","params":["s",{}],"id":1}"#,
            -32602,
        ),
    ];
    for (text, code) in cases {
        let r = answer(text).unwrap_or_else(|| panic!("{text}: no reply"));
        assert_eq!(error(&r), (code, "invalid_input"), "{text}: {r}");
    }
    // A trailing null is JS `undefined`: not an extra argument.
    let r = answer(r#"{"jsonrpc":"2.0","method":"stats","params":[null],"id":1}"#).expect("reply");
    assert_eq!(r["result"]["ok"], json!(true));
}

#[test]
fn batches_answer_in_order_without_notifications() {
    let r = answer(
        r#"[{"jsonrpc":"2.0","method":"stats","id":1},{"jsonrpc":"2.0","method":"stats"},
            7,{"jsonrpc":"2.0","method":"resume","params":["s"],"id":2}]"#,
    )
    .expect("reply");
    let items = r.as_array().expect("array");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["id"], json!(1));
    assert_eq!(error(&items[1]), (-32600, "invalid_input"));
    assert_eq!(items[1]["id"], Value::Null);
    assert_eq!(error(&items[2]), (-32000, "not_found"));
    // Only notifications: nothing at all; an empty batch: one invalid request.
    assert_eq!(answer(r#"[{"jsonrpc":"2.0","method":"stats"}]"#), None);
    let r = answer("[]").expect("reply");
    assert_eq!(error(&r), (-32600, "invalid_input"));
}
