//! Two `rewind serve --http` processes on one PostgreSQL database (a real throwaway cluster,
//! see `common/pg.rs`), with clients on both at once: no write is lost, and a precondition has
//! exactly one winner across the servers; a server keeps its connections for the next calls,
//! holding no lock between them.

use crate::common;
use crate::pg;

use common::serve::{Endpoint, http_server, rpc, rpc_ok};
use serde_json::{Value, json};
use std::process::Child;

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Two servers over the same root and the same database.
fn two_servers(dir: &std::path::Path, url: &str) -> [(Child, Endpoint); 2] {
    let root = dir.display().to_string();
    let start = || http_server(&["--root", &root], &[("REWIND_STORE", url)]);
    [start(), start()]
}

#[test]
fn two_servers_on_one_database_lose_nothing_and_agree_on_one_winner() {
    let Some(cluster) = pg::cluster() else {
        eprintln!("skipped: no PostgreSQL binaries (scripts/setup installs them)");
        return;
    };
    let url = cluster.url(&cluster.fresh_db());
    let dir = tempfile::tempdir().expect("tempdir");
    let [(a, a_addr), (b, b_addr)] = two_servers(dir.path(), &url);
    let session = rpc_ok(a_addr, "createSession", json!([{ "title": "shared" }]))["id"].clone();
    // Seen at once from the other server: one store, not two.
    let listed = rpc_ok(b_addr, "listSessions", json!([]));
    assert_eq!(listed[0]["id"], session);

    // Clients on both servers append at once.
    const EACH: usize = 12;
    std::thread::scope(|s| {
        for (c, addr) in [(0, a_addr), (1, a_addr), (2, b_addr), (3, b_addr)] {
            let session = session.clone();
            s.spawn(move || {
                for i in 0..EACH {
                    let text = format!("client {c} prompt {i}");
                    rpc_ok(addr, "recordPrompt", json!([session, { "text": text }]));
                }
            });
        }
    });
    let state = rpc_ok(b_addr, "resume", json!([session]));
    let mut texts: Vec<String> = state["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["text"].as_str().map(str::to_owned))
        .collect();
    texts.sort();
    let mut want: Vec<String> = (0..4)
        .flat_map(|c| (0..EACH).map(move |i| format!("client {c} prompt {i}")))
        .collect();
    want.sort();
    assert_eq!(texts, want, "every prompt from both servers, none lost");

    // Forks with one command id through both servers: one child.
    let at = state["messages"][0]["id"].clone();
    let forks: Vec<Value> = std::thread::scope(|s| {
        let calls: Vec<_> = [a_addr, b_addr, a_addr, b_addr]
            .into_iter()
            .map(|addr| {
                let (session, at) = (session.clone(), at.clone());
                s.spawn(move || {
                    rpc(
                        addr,
                        "fork",
                        json!([session, { "at": at, "commandId": "cmd_race" }]),
                    )
                })
            })
            .collect();
        calls
            .into_iter()
            .map(|c| c.join().expect("client"))
            .collect()
    });
    let children: std::collections::BTreeSet<&str> = forks
        .iter()
        .map(|r| r["result"]["childId"].as_str().expect("childId"))
        .collect();
    assert_eq!(children.len(), 1, "{forks:?}");
    let fresh = forks
        .iter()
        .filter(|r| r["result"]["replayed"] == false)
        .count();
    assert_eq!(fresh, 1, "exactly one fork made the child: {forks:?}");
    stop(a);
    stop(b);
}

#[test]
fn racing_applies_through_two_servers_write_once() {
    let Some(cluster) = pg::cluster() else {
        eprintln!("skipped: no PostgreSQL binaries (scripts/setup installs them)");
        return;
    };
    let url = cluster.url(&cluster.fresh_db());
    const FILES: usize = 20;
    let dir = tempfile::tempdir().expect("tempdir");
    // Recorded through one server, then raced through both.
    let [(a, a_addr), (b, b_addr)] = two_servers(dir.path(), &url);
    let session = rpc_ok(a_addr, "createSession", json!([{}]))["id"].clone();
    let turn = rpc_ok(
        a_addr,
        "recordPrompt",
        json!([session, { "text": "touch files" }]),
    );
    let (turn_id, prompt) = (turn["turnId"].clone(), turn["messageId"].clone());
    for i in 0..FILES {
        let path = format!("f{i}.txt");
        std::fs::write(dir.path().join(&path), format!("after {i}\n")).expect("write");
        let edit = json!({
            "turnId": turn_id, "path": path, "toolName": "Edit",
            "before": b64(&format!("before {i}\n")), "after": b64(&format!("after {i}\n")),
        });
        rpc_ok(a_addr, "recordEdit", json!([session, edit]));
    }
    let results: Vec<Value> = std::thread::scope(|s| {
        let calls: Vec<_> = [a_addr, b_addr, a_addr, b_addr]
            .into_iter()
            .map(|addr| {
                let (session, prompt) = (session.clone(), prompt.clone());
                s.spawn(move || {
                    rpc(
                        addr,
                        "applyFileRewind",
                        json!([session, { "since": prompt }]),
                    )
                })
            })
            .collect();
        calls
            .into_iter()
            .map(|c| c.join().expect("client"))
            .collect()
    });
    let applied = results
        .iter()
        .filter(|r| r["result"]["applied"] == true)
        .count();
    assert_eq!(applied, 1, "{results:?}");
    let ops = rpc_ok(b_addr, "operations", json!([session]));
    let rewinds = ops
        .as_array()
        .expect("ops")
        .iter()
        .filter(|o| o["kind"] == "file_rewind")
        .count();
    assert_eq!(rewinds, 1, "{ops}");
    stop(a);
    stop(b);
}

/// The server processes (backend pids) connected to the database, other than `client`'s.
fn backends(client: &mut postgres::Client) -> std::collections::BTreeSet<i32> {
    client
        .query(
            "SELECT pid FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .expect("pg_stat_activity")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

#[test]
fn a_server_reuses_its_connections_across_calls_and_keeps_no_lock_between_them() {
    let Some(cluster) = pg::cluster() else {
        eprintln!("skipped: no PostgreSQL binaries (scripts/setup installs them)");
        return;
    };
    let db = cluster.fresh_db();
    let url = cluster.url(&db);
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let (server, addr) = http_server(&["--root", &root], &[("REWIND_STORE", &url)]);
    let session = rpc_ok(addr, "createSession", json!([{}]))["id"].clone();
    let mut watch =
        postgres::Client::connect(&cluster.conninfo(&db), postgres::NoTls).expect("connect");
    const CLIENTS: usize = 4;
    const EACH: usize = 5;
    let round = |r: usize| {
        std::thread::scope(|s| {
            for c in 0..CLIENTS {
                let session = session.clone();
                s.spawn(move || {
                    for i in 0..EACH {
                        let text = format!("round {r} client {c} prompt {i}");
                        rpc_ok(addr, "recordPrompt", json!([session, { "text": text }]));
                        rpc_ok(addr, "listSessions", json!([]));
                    }
                });
            }
        });
    };
    round(0);
    // An apply takes the apply lock (on a connection of its own) and gives it back.
    let turn = rpc_ok(addr, "recordPrompt", json!([session, { "text": "a file" }]));
    std::fs::write(dir.path().join("f.txt"), "after\n").expect("write");
    let edit = json!({
        "turnId": turn["turnId"], "path": "f.txt", "toolName": "Write",
        "before": null, "after": b64("after\n"),
    });
    rpc_ok(addr, "recordEdit", json!([session, edit]));
    let applied = rpc_ok(
        addr,
        "applyFileRewind",
        json!([session, { "since": turn["messageId"] }]),
    );
    assert_eq!(applied["applied"], true, "{applied}");
    let kept = backends(&mut watch);
    // Kept idle between calls (a connection per call would leave none), no more than the calls
    // that ran at once could use (a reading and a writing one each, and the apply lock's).
    assert!(!kept.is_empty(), "no connection kept");
    assert!(
        kept.len() <= 2 * CLIENTS + 1,
        "{} connections kept",
        kept.len()
    );
    let locks: i64 = watch
        .query_one(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .expect("pg_locks")
        .get(0);
    assert_eq!(locks, 0, "a kept connection still holds an advisory lock");
    round(1);
    let after = backends(&mut watch);
    assert!(
        kept.is_subset(&after),
        "the second round opened new connections instead: {kept:?} then {after:?}"
    );
    let state = rpc_ok(addr, "resume", json!([session]));
    let prompts = state["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["text"].as_str().is_some_and(|t| t.starts_with("round ")))
        .count();
    assert_eq!(prompts, 2 * CLIENTS * EACH, "every prompt recorded once");
    stop(server);
}

/// `text` as base64, the form bytes take over JSON-RPC.
fn b64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}
