//! An apply whose final COMMIT meets a dying connection, on a real PostgreSQL: a real TCP proxy
//! (`common/pg_proxy.rs`) between the `rewind` binary and the server cuts the connection at
//! that COMMIT, before it reaches the server or after the server committed (its reply dropped),
//! and can keep the server unreachable for a while. Whatever happens, the operation log and the
//! files must agree once rewind has had its say (and, when it could not find out, once `rewind
//! recover` has).

use crate::common;
use crate::common::pg_proxy;
use crate::pg;

use common::{Bench, s};
use pg_proxy::{Fault, Proxy};
use std::time::Duration;

const OLD: &[u8] = b"pub fn old() {}\n";
const NEW: &[u8] = b"pub fn new() {}\n";

/// A workspace whose one turn changed `src/lib.rs` from OLD to NEW, recorded through the proxy.
struct Case {
    b: Bench,
    proxy: Proxy,
    url: String,
    session: String,
    prompt: String,
}

impl Case {
    fn new(c: &pg::Cluster) -> Self {
        let proxy = Proxy::start(c.socket());
        let url = proxy.url(&c.fresh_db());
        let b = Bench::new();
        b.write("src/lib.rs", OLD);
        let mut case = Self {
            b,
            proxy,
            url,
            session: String::new(),
            prompt: String::new(),
        };
        case.session = s(&case.ok(&["session", "new", "--title", "doubt"]), "id");
        let turn = case.ok(&["prompt", &case.session, "--text", "rename old to new"]);
        case.prompt = s(&turn, "messageId");
        let t = s(&turn, "turnId");
        case.b
            .record_with_store(&case.url, &case.session, &t, "src/lib.rs", OLD, NEW);
        case
    }

    /// Run with `--json` through the proxy, rewind giving up on a lost commit after 1.5 s.
    fn json(&self, args: &[&str]) -> (i32, serde_json::Value) {
        self.b.json_with(args, |c| {
            c.env("REWIND_STORE", &self.url)
                .env("REWIND_TEST_PG_RESOLVE_MS", "1500");
        })
    }

    fn ok(&self, args: &[&str]) -> serde_json::Value {
        let (code, doc) = self.json(args);
        assert_eq!(code, 0, "{args:?} failed: {doc}");
        doc
    }

    fn apply(&self) -> (i32, serde_json::Value) {
        self.json(&["apply", &self.session, "--since", &self.prompt])
    }

    fn file(&self) -> Vec<u8> {
        self.b.read("src/lib.rs").expect("src/lib.rs")
    }

    /// The kinds in the operation log, oldest first.
    fn kinds(&self) -> Vec<String> {
        let ops = self.ok(&["ops", &self.session]);
        let mut kinds: Vec<String> = ops
            .as_array()
            .expect("ops")
            .iter()
            .map(|o| s(o, "kind"))
            .collect();
        kinds.reverse();
        kinds
    }

    fn pending(&self) -> usize {
        let state = self.ok(&["resume", &self.session]);
        state["pendingJournals"].as_array().map_or(0, Vec::len)
    }

    /// The log's last file_rewind is real: undo takes it back to NEW.
    fn undo_works(&self) {
        let ops = self.ok(&["ops", &self.session]);
        let op = ops
            .as_array()
            .expect("ops")
            .iter()
            .find(|o| o["kind"] == "file_rewind")
            .map(|o| s(o, "id"))
            .expect("a file_rewind in the log");
        let undone = self.ok(&["undo", &self.session, &op]);
        assert_eq!(undone["applied"], true, "{undone}");
        assert_eq!(self.file(), NEW);
    }
}

#[test]
fn committed_but_the_reply_lost_finishes_the_apply() {
    let c = pg_or_skip!();
    let case = Case::new(c);
    case.proxy.arm(Fault::LoseCommitReply, Duration::ZERO);
    let (code, doc) = case.apply();
    assert!(case.proxy.fired(), "the proxy cut the final COMMIT");
    assert_eq!(code, 0, "rewind asked again and learnt it committed: {doc}");
    assert_eq!(doc["applied"], true, "{doc}");
    assert_eq!(case.file(), OLD, "the files stay rewound");
    assert_eq!(case.kinds(), ["file_rewind"]);
    assert_eq!(case.pending(), 0);
    case.undo_works();
}

#[test]
fn cut_before_commit_rolls_back() {
    let c = pg_or_skip!();
    let case = Case::new(c);
    case.proxy.arm(Fault::CutBeforeCommit, Duration::ZERO);
    let (code, doc) = case.apply();
    assert!(case.proxy.fired(), "the proxy cut the final COMMIT");
    assert_eq!(code, 3, "{doc}");
    assert_eq!(doc["error"]["code"], "host_error", "{doc}");
    let message = s(&doc["error"], "message");
    assert!(message.contains("did not commit"), "{message}");
    assert_eq!(case.file(), NEW, "rolled back: the files are unchanged");
    assert_eq!(case.kinds(), ["apply_failed"], "no rewind in the log");
    assert_eq!(case.pending(), 0);
    // Nothing is left half done: the same apply now works.
    let (code, doc) = case.apply();
    assert_eq!(
        (code, &doc["applied"]),
        (0, &serde_json::json!(true)),
        "{doc}"
    );
    assert_eq!(case.file(), OLD);
}

/// The server unreachable for longer than rewind waits (1.5 s here).
const OUTAGE: Duration = Duration::from_secs(3);

#[test]
fn reply_lost_and_server_unreachable_is_in_doubt_until_recover() {
    let c = pg_or_skip!();
    let case = Case::new(c);
    case.proxy.arm(Fault::LoseCommitReply, OUTAGE);
    let (code, doc) = case.apply();
    assert!(case.proxy.fired(), "the proxy cut the final COMMIT");
    assert_eq!(code, 3, "{doc}");
    assert_eq!(doc["error"]["code"], "unrecoverable", "{doc}");
    let message = s(&doc["error"], "message");
    assert!(
        message.contains("whether it committed is unknown") && message.contains("rewind recover"),
        "{message}"
    );
    assert_eq!(
        case.file(),
        OLD,
        "left as written, not rolled back on a guess"
    );
    case.proxy.wait_up();
    // It had committed: the log has the rewind, the journal is gone, recover has nothing to do.
    let recovered = case.ok(&["recover"]);
    assert_eq!(recovered["recovered"], serde_json::json!([]), "{recovered}");
    assert_eq!(case.kinds(), ["file_rewind"]);
    assert_eq!(case.file(), OLD);
    case.undo_works();
}

#[test]
fn cut_before_commit_and_server_unreachable_keeps_the_journal_for_recover() {
    let c = pg_or_skip!();
    let case = Case::new(c);
    case.proxy.arm(Fault::CutBeforeCommit, OUTAGE);
    let (code, doc) = case.apply();
    assert!(case.proxy.fired(), "the proxy cut the final COMMIT");
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (3, Some("unrecoverable")),
        "{doc}"
    );
    assert_eq!(case.file(), OLD, "left as written");
    case.proxy.wait_up();
    // It had not committed: the journal is still pending, and recover settles it from there
    // (every file holds its target, so the apply is finished and recorded).
    assert_eq!(case.pending(), 1);
    let recovered = case.ok(&["recover"]);
    let settled = recovered["recovered"].as_array().expect("recovered");
    assert_eq!(settled.len(), 1, "{recovered}");
    assert_eq!(settled[0]["action"], "finished", "{recovered}");
    assert_eq!(case.file(), OLD);
    assert!(case.kinds().contains(&"file_rewind".to_owned()));
    assert_eq!(case.pending(), 0);
    case.undo_works();
}
