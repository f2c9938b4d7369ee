//! `rewind mcp`'s rewriting tools through the real binary, over stdio: a refused apply
//! writing nothing, confirmed apply and undo, a conflict as data, elicitation declined,
//! accepted and cancelled, forks, and malformed requests answered with errors while nothing is
//! written.

use crate::common;
use crate::mcp_client;

use common::Bench;
use mcp_client::{Mcp, operations, two_turns};
use serde_json::json;

#[test]
fn an_apply_without_confirmation_is_refused_saying_what_it_would_write_and_writes_nothing() {
    let b = Bench::new();
    two_turns(&b);
    let ops = operations(&b);
    let mut m = Mcp::ready(&b, json!({}));
    for confirm in [json!(null), json!(false)] {
        let r = m.tool(
            "apply_rewind",
            json!({ "scope": "both", "to": "#1", "confirm": confirm }),
        );
        assert_eq!(r["isError"], true, "{r}");
        let text = r["content"][0]["text"].as_str().expect("in the reply");
        assert!(
            text.contains("nothing was written") && text.contains("\"confirm\": true"),
            "{text}"
        );
        assert!(
            text.contains("restore a.txt") && text.contains("delete b.txt"),
            "{text}"
        );
        assert!(text.contains("drop turn(s) #1, #2"), "{text}");
    }
    assert_eq!(b.read("a.txt").expect("the file"), b"two\n");
    assert_eq!(b.read("b.txt").expect("the file"), b"bee\n");
    assert_eq!(operations(&b), ops, "no operation recorded");
    let turns = m.tool("list_turns", json!({}));
    assert_eq!(
        turns["structuredContent"]["turnCount"], 2,
        "the conversation is untouched"
    );
}

#[test]
fn a_confirmed_apply_rewinds_and_undo_takes_it_back() {
    let b = Bench::new();
    two_turns(&b);
    let mut m = Mcp::ready(&b, json!({}));
    let r = m.tool(
        "apply_rewind",
        json!({ "scope": "code", "to": "#1", "confirm": true }),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["applied"], true);
    assert_eq!(b.read("a.txt").expect("the file"), b"one\n");
    assert_eq!(b.read("b.txt"), None);
    let refused = m.tool("undo_rewind", json!({}));
    assert_eq!(refused["isError"], true, "undo asks too: {refused}");
    assert_eq!(b.read("a.txt").expect("the file"), b"one\n");
    let u = m.tool("undo_rewind", json!({ "confirm": true }));
    assert_eq!(u["structuredContent"]["applied"], true, "{u}");
    assert_eq!(b.read("a.txt").expect("the file"), b"two\n");
    assert_eq!(b.read("b.txt").expect("the file"), b"bee\n");
    let conv = m.tool(
        "apply_rewind",
        json!({ "scope": "conversation", "to": "#2", "confirm": true }),
    );
    assert_eq!(conv["structuredContent"]["applied"], true, "{conv}");
    assert_eq!(
        m.tool("list_turns", json!({}))["structuredContent"]["turnCount"],
        1
    );
    assert_eq!(
        b.read("b.txt").expect("the file"),
        b"bee\n",
        "a conversation rewind touches no file"
    );
    let fork = m.tool("fork_session", json!({ "at": "#1" }));
    assert!(
        fork["structuredContent"]["childId"]
            .as_str()
            .expect("in the reply")
            .starts_with("ses_"),
        "{fork}"
    );
}

#[test]
fn a_conflict_is_data_in_the_preview_and_blocks_the_apply() {
    let b = Bench::new();
    two_turns(&b);
    b.write("a.txt", b"two\nmine\n");
    let mut m = Mcp::ready(&b, json!({}));
    let p = m.tool("preview_rewind", json!({ "scope": "code", "to": "#1" }));
    let doc = &p["structuredContent"];
    assert_eq!(doc["canApply"], false, "{doc}");
    assert_eq!(doc["conflicts"][0]["path"], "a.txt");
    assert_eq!(doc["conflicts"][0]["reason"], "external_modified");
    assert_eq!(doc["conflicts"][0]["mergeable"], true);
    assert_eq!(doc["policies"], json!(["block", "skip", "merge", "force"]));
    let r = m.tool(
        "apply_rewind",
        json!({ "scope": "code", "to": "#1", "confirm": true }),
    );
    assert_eq!(r["isError"], true);
    assert_eq!(r["structuredContent"]["error"]["code"], "conflict", "{r}");
    assert_eq!(b.read("a.txt").expect("the file"), b"two\nmine\n");
    assert_eq!(
        b.read("b.txt").expect("the file"),
        b"bee\n",
        "block writes nothing, not even safe files"
    );
    let merged = m.tool(
        "apply_rewind",
        json!({ "scope": "code", "to": "#1", "policy": "merge", "confirm": true }),
    );
    assert_eq!(merged["structuredContent"]["applied"], true, "{merged}");
    assert_eq!(
        b.read("a.txt").expect("the file"),
        b"one\nmine\n",
        "the person's line kept"
    );
}

#[test]
fn an_elicitation_the_person_declines_writes_nothing_and_one_they_accept_rewinds() {
    let b = Bench::new();
    two_turns(&b);
    let mut m = Mcp::ready(&b, json!({ "elicitation": {} }));
    for (answer, written) in [
        (json!({ "action": "decline" }), false),
        (
            json!({ "action": "accept", "content": { "confirm": false } }),
            false,
        ),
        (
            json!({ "action": "accept", "content": { "confirm": true } }),
            true,
        ),
    ] {
        // `confirm: true` from the model does not stand in for the person.
        m.send_raw(&json!({ "jsonrpc": "2.0", "id": "call", "method": "tools/call",
            "params": { "name": "apply_rewind", "arguments": { "scope": "code", "to": "#2", "confirm": true } } }).to_string());
        let ask = m.read();
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        assert_eq!(ask["params"]["mode"], "form");
        assert!(
            ask["params"]["message"]
                .as_str()
                .expect("in the reply")
                .contains("delete b.txt"),
            "{ask}"
        );
        assert_eq!(
            ask["params"]["requestedSchema"]["required"],
            json!(["confirm"])
        );
        // A ping while the person thinks is answered once the call is over.
        m.send_raw(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
        m.send_raw(&json!({ "jsonrpc": "2.0", "id": ask["id"], "result": answer }).to_string());
        let done = m.read();
        assert_eq!(done["id"], "call", "{done}");
        assert_eq!(done["result"]["isError"], !written, "{done}");
        assert_eq!(m.read()["id"], "p");
        assert_eq!(b.read("b.txt").is_none(), written);
    }
    assert_eq!(
        b.read("a.txt").expect("the file"),
        b"two\n",
        "only turn #2 was rewound"
    );
}

#[test]
fn a_restoring_fork_asks_first_and_a_shared_one_touches_no_file() {
    let b = Bench::new();
    two_turns(&b);
    let mut m = Mcp::ready(&b, json!({}));
    let r = m.tool(
        "fork_session",
        json!({ "at": "#1", "workspaceMode": "restore" }),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(b.read("b.txt").expect("the file"), b"bee\n");
    assert_eq!(
        m.tool("list_sessions", json!({}))["structuredContent"]["sessions"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let r = m.tool(
        "fork_session",
        json!({ "at": "#1", "workspaceMode": "restore", "confirm": true }),
    );
    assert!(r["structuredContent"]["childId"].is_string(), "{r}");
    assert_eq!(
        b.read("b.txt"),
        None,
        "turn #2's file is gone in the restored workspace"
    );
}

#[test]
fn malformed_requests_get_protocol_errors_and_bad_arguments_name_the_field() {
    let b = Bench::new();
    two_turns(&b);
    let ops = operations(&b);
    let mut m = Mcp::ready(&b, json!({}));
    m.send_raw("{not json");
    assert_eq!(m.read()["error"]["code"], -32700);
    m.send_raw(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(m.read()["error"]["code"], -32600, "no batches in MCP");
    m.send_raw(r#"{"id":7,"method":"ping"}"#);
    let r = m.read();
    assert_eq!(
        (r["id"].as_u64(), r["error"]["code"].as_i64()),
        (Some(7), Some(-32600))
    );
    let r = m.request("tools/frobnicate", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    let r = m.request("tools/call", json!({ "name": "rm_rf", "arguments": {} }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["field"], "params.name");
    let r = m.request("tools/call", json!({ "arguments": {} }));
    assert_eq!(r["error"]["data"]["field"], "params.name", "{r}");
    let r = m.request(
        "tools/call",
        json!({ "name": "list_turns", "arguments": [1] }),
    );
    assert_eq!(r["error"]["data"]["field"], "params.arguments", "{r}");
    let r = m.request("resources/read", json!({}));
    assert_eq!(
        (
            r["error"]["code"].as_i64(),
            r["error"]["data"]["field"].as_str()
        ),
        (Some(-32602), Some("params.uri"))
    );
    let r = m.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(r["error"]["data"]["field"], "params.protocolVersion", "{r}");
    for (args, field) in [
        (
            json!({ "scope": "sideways", "to": "#1", "confirm": true }),
            "arguments.scope",
        ),
        (json!({ "to": "#1", "confirm": true }), "arguments.scope"),
        (json!({ "scope": "code", "confirm": true }), "arguments.to"),
        (
            json!({ "scope": "code", "to": "#1", "turn": "#2", "confirm": true }),
            "arguments.turn",
        ),
        (
            json!({ "scope": "both", "to": "#1", "confrim": true }),
            "arguments.confrim",
        ),
        (
            json!({ "scope": "code", "to": "#1", "confirm": "yes" }),
            "arguments.confirm",
        ),
        (
            json!({ "scope": "code", "to": "#1", "policy": "yolo", "confirm": true }),
            "arguments.policy",
        ),
    ] {
        let r = m.tool("apply_rewind", args.clone());
        assert_eq!(r["isError"], true, "{args}: {r}");
        assert_eq!(
            r["structuredContent"]["error"]["code"], "invalid_input",
            "{r}"
        );
        assert_eq!(
            r["structuredContent"]["error"]["field"], field,
            "{args}: {r}"
        );
    }
    // An engine error carries rewind's stable code.
    let r = m.tool(
        "apply_rewind",
        json!({ "scope": "code", "checkpoint": "ckp_nothere", "confirm": true }),
    );
    assert_eq!(r["structuredContent"]["error"]["code"], "not_found", "{r}");
    let r = m.tool(
        "show_diff",
        json!({ "session": "--workspace=/", "turn": "#1" }),
    );
    assert_eq!(
        r["isError"], true,
        "a session is never read as an option: {r}"
    );
    assert_eq!(b.read("a.txt").expect("the file"), b"two\n");
    assert_eq!(b.read("b.txt").expect("the file"), b"bee\n");
    assert_eq!(operations(&b), ops, "nothing written on any refused call");
}
