//! `rewind mcp` through the real binary, over stdio, with raw JSON-RPC lines: the handshake,
//! the tools and resources that read, the client configs of docs/mcp.md, and no store. The
//! rewriting tools and malformed requests are in `cli_mcp_rewind.rs`.

use crate::common;
use crate::mcp_client;

use common::Bench;
use mcp_client::{Mcp, two_turns};
use serde_json::{Value, json};
use std::io::Write as _;
use std::process::Stdio;

#[test]
fn the_handshake_negotiates_and_every_tool_has_schemas_and_says_it_rewrites() {
    let b = Bench::new();
    let mut m = Mcp::start(&b);
    // Before initialize, only ping.
    let early = m.request("tools/list", json!({}));
    assert_eq!(early["error"]["code"], -32600, "{early}");
    assert_eq!(m.request("ping", json!({}))["result"], json!({}));
    let old = m.request(
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": {} }),
    );
    assert_eq!(old["result"]["protocolVersion"], "2025-06-18");
    let unknown = m.request(
        "initialize",
        json!({ "protocolVersion": "1999-01-01", "capabilities": {} }),
    );
    assert_eq!(unknown["result"]["protocolVersion"], "2025-11-25");
    assert!(unknown["result"]["capabilities"]["tools"].is_object());
    assert!(unknown["result"]["capabilities"]["resources"].is_object());
    let tools = m.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .expect("in the reply")
        .iter()
        .map(|t| t["name"].as_str().expect("in the reply"))
        .collect();
    assert_eq!(
        names,
        [
            "list_sessions",
            "list_turns",
            "show_diff",
            "preview_rewind",
            "apply_rewind",
            "undo_rewind",
            "fork_session"
        ]
    );
    for t in tools.as_array().expect("in the reply") {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
    }
    for writer in [&tools[4], &tools[5], &tools[6]] {
        let d = writer["description"].as_str().expect("in the reply");
        assert!(
            d.contains("REWRITES FILES ON DISK") && d.contains("Never call it unless the person"),
            "{d}"
        );
    }
}

#[test]
fn lists_sessions_and_turns_with_prompts_files_and_line_counts() {
    let b = Bench::new();
    let session = two_turns(&b);
    let mut m = Mcp::ready(&b, json!({}));
    let sessions = m.tool("list_sessions", json!({}));
    assert_eq!(
        sessions["structuredContent"]["sessions"][0]["id"],
        session.as_str()
    );
    let turns = m.tool("list_turns", json!({}));
    assert_eq!(turns["isError"], false, "{turns}");
    let t = &turns["structuredContent"]["turns"];
    assert_eq!(t[0]["ref"], "#1");
    assert_eq!(t[0]["prompt"], "make it two");
    assert_eq!(t[0]["files"], json!(["a.txt"]));
    assert_eq!(
        (t[0]["additions"].as_u64(), t[0]["deletions"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(t[1]["prompt"], "add b", "the first line only");
    assert_eq!(t[1]["files"], json!(["b.txt"]));
    let last = m.tool("list_turns", json!({ "session": session, "limit": 1 }));
    assert_eq!(
        last["structuredContent"]["turns"]
            .as_array()
            .expect("in the reply")
            .len(),
        1
    );
    assert_eq!(last["structuredContent"]["turnCount"], 2);
}

#[test]
fn shows_a_turns_diff_as_a_tool_and_as_a_resource() {
    let b = Bench::new();
    let session = two_turns(&b);
    let mut m = Mcp::ready(&b, json!({}));
    let d = m.tool("show_diff", json!({ "turn": "#1" }));
    let text = d["content"][0]["text"].as_str().expect("in the reply");
    assert!(text.contains("-two") && text.contains("+one"), "{text}");
    assert_eq!(d["structuredContent"]["files"][0]["path"], "a.txt");
    let listed = m.request("resources/list", json!({}))["result"]["resources"].clone();
    let uri = format!("rewind://session/{session}/turn/1/diff");
    assert!(
        listed
            .as_array()
            .expect("in the reply")
            .iter()
            .any(|r| r["uri"] == uri.as_str()),
        "{listed}"
    );
    let templates = m.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "rewind://session/{session}/turn/{turn}/diff"
    );
    let read = m.request("resources/read", json!({ "uri": uri }));
    let body = read["result"]["contents"][0]["text"]
        .as_str()
        .expect("in the reply");
    assert!(
        body.contains("diff --git a/a.txt b/a.txt") && body.contains("+one"),
        "{read}"
    );
    let missing = m.request(
        "resources/read",
        json!({ "uri": format!("rewind://session/{session}/turn/9/diff") }),
    );
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    let bad = m.request("resources/read", json!({ "uri": "file:///etc/passwd" }));
    assert_eq!(bad["error"]["code"], -32002, "{bad}");
    assert_eq!(
        b.read("a.txt").expect("the file"),
        b"two\n",
        "reading writes nothing"
    );
}

/// The `json` blocks of docs/mcp.md, in order.
fn doc_configs() -> (String, Vec<Value>) {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcp.md"))
        .expect("docs/mcp.md");
    let blocks = page
        .split("```json\n")
        .skip(1)
        .map(|rest| {
            let body = rest.split("```").next().expect("a closed block");
            serde_json::from_str(body).unwrap_or_else(|e| panic!("docs/mcp.md: {e}: {body}"))
        })
        .collect();
    (page, blocks)
}

#[test]
fn every_client_config_in_the_docs_starts_a_server_that_answers() {
    let b = Bench::new();
    two_turns(&b);
    let (page, configs) = doc_configs();
    assert_eq!(configs.len(), 3, "Claude Code, Gemini CLI, VS Code");
    for config in &configs {
        let entry = config["mcpServers"]["rewind"]
            .as_object()
            .or_else(|| config["servers"]["rewind"].as_object())
            .unwrap_or_else(|| panic!("no rewind server in {config}"));
        assert_eq!(entry["command"], "rewind");
        let args: Vec<String> = entry["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| {
                let a = a.as_str().expect("a string");
                a.replace("${workspaceFolder}", &b.ws().display().to_string())
            })
            .collect();
        // As a client starts it: in the project, no --workspace of the test's own.
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rewind"))
            .args(&args)
            .current_dir(b.ws())
            .env_remove("REWIND_DB")
            .env_remove("REWIND_STORE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the documented command");
        let mut stdin = child.stdin.take().expect("stdin");
        for line in [
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": { "protocolVersion": "2025-11-25", "capabilities": {} } }),
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": { "name": "list_turns", "arguments": {} } }),
        ] {
            writeln!(stdin, "{line}").expect("write");
        }
        drop(stdin);
        let out = child.wait_with_output().expect("run");
        let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        assert_eq!(replies.len(), 2, "{args:?}: {replies:?}");
        let turns = &replies[1]["result"]["structuredContent"]["turnCount"];
        assert_eq!(turns, 2, "{args:?} serves the project's store: {replies:?}");
    }
    let claude = &configs[0]["mcpServers"]["rewind"];
    let words: Vec<&str> = std::iter::once(claude["command"].as_str().expect("command"))
        .chain(
            claude["args"]
                .as_array()
                .expect("args")
                .iter()
                .filter_map(Value::as_str),
        )
        .collect();
    assert!(
        page.contains(&format!(
            "claude mcp add --scope project rewind -- {}\n",
            words.join(" ")
        )),
        "the `claude mcp add` line runs what its .mcp.json says"
    );
}

#[test]
fn where_there_is_no_store_the_tools_say_so_and_create_none() {
    let b = Bench::new();
    let mut m = Mcp::ready(&b, json!({}));
    let sessions = m.tool("list_sessions", json!({}));
    assert_eq!(sessions["structuredContent"]["sessions"], json!([]));
    let turns = m.tool("list_turns", json!({}));
    assert_eq!(turns["isError"], true);
    assert!(
        turns["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("no rewind store"),
        "{turns}"
    );
    let listed = m.request("resources/list", json!({}));
    assert_eq!(listed["result"]["resources"], json!([]));
    let r = m.tool(
        "apply_rewind",
        json!({ "scope": "both", "to": "#1", "confirm": true }),
    );
    assert_eq!(r["isError"], true, "{r}");
    drop(m);
    assert!(!b.path(".rewind").exists(), "nothing created");
}
