//! `rewind mcp` through the real binary, over stdio, with raw JSON-RPC lines: the handshake,
//! every tool, the resources, the person's confirmation (a `confirm` argument, or an
//! elicitation the client answers), conflicts as data, and malformed requests answered with
//! errors while nothing is written.

mod common;

use common::{Bench, s};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `rewind mcp` and the lines it writes.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next: u64,
}

impl Mcp {
    fn start(b: &Bench) -> Self {
        let mut child = b
            .command()
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start rewind mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            next: 100,
        }
    }

    /// Started and initialized with these client capabilities.
    fn ready(b: &Bench, capabilities: Value) -> Self {
        let mut m = Self::start(b);
        let r = m.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities,
                "clientInfo": { "name": "cli_mcp", "version": "1" } }),
        );
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
        m.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        m
    }

    fn send_raw(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to rewind mcp");
        self.stdin.flush().expect("flush");
    }

    /// The next line the server writes, as JSON (within 20 s).
    fn read(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("rewind mcp answered nothing");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send_raw(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string(),
        );
        let reply = self.read();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// `tools/call`'s result.
    fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        );
        assert!(r["error"].is_null(), "{name}: {r}");
        r["result"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A session with two turns: #1 changes a.txt (one → two), #2 creates b.txt.
fn two_turns(b: &Bench) -> String {
    b.write("a.txt", b"one\n");
    let session = s(&b.ok(&["session", "new"]), "id");
    let t1 = s(
        &b.ok(&["prompt", &session, "--text", "make it two"]),
        "turnId",
    );
    b.record(&session, &t1, "a.txt", Some(b"one\n"), b"two\n", &[]);
    b.ok(&["turn-end", &session, "--turn", &t1]);
    let t2 = s(
        &b.ok(&["prompt", &session, "--text", "add b\nsecond line"]),
        "turnId",
    );
    b.record(&session, &t2, "b.txt", None, b"bee\n", &["--tool", "Write"]);
    b.ok(&["turn-end", &session, "--turn", &t2]);
    session
}

fn operations(b: &Bench) -> usize {
    b.ok(&["ops"]).as_array().expect("ops is a list").len()
}

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
