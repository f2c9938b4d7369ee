//! The `rewind` binary on a PostgreSQL store (`REWIND_STORE` / `--store postgres://…`), against
//! a real server (a throwaway cluster, see `common/pg.rs`): the everyday flow (session, prompt,
//! edit, preview, apply, undo), several processes recording into one database at once, and a
//! store URL that is not PostgreSQL.

use crate::common;

use common::{Bench, s};

/// A bench whose every command runs on the PostgreSQL database `url`.
struct PgBench {
    b: Bench,
    url: String,
}

impl PgBench {
    fn new(url: String) -> Self {
        Self {
            b: Bench::new(),
            url,
        }
    }

    fn json(&self, args: &[&str]) -> (i32, serde_json::Value) {
        self.b.json_with(args, |c| {
            c.env("REWIND_STORE", &self.url);
        })
    }

    fn ok(&self, args: &[&str]) -> serde_json::Value {
        let (code, doc) = self.json(args);
        assert_eq!(code, 0, "{args:?} failed: {doc}");
        doc
    }
}

#[test]
fn record_preview_apply_undo_on_postgres() {
    let c = pg_or_skip!();
    let db = c.fresh_db();
    let pb = PgBench::new(c.url(&db));
    let b = &pb.b;
    b.write("src/lib.rs", b"pub fn old() {}\n");
    let session = s(&pb.ok(&["session", "new", "--title", "pg"]), "id");
    let turn = pb.ok(&["prompt", &session, "--text", "rename old to new"]);
    let (t, p) = (s(&turn, "turnId"), s(&turn, "messageId"));
    b.record_with_store(
        &pb.url,
        &session,
        &t,
        "src/lib.rs",
        b"pub fn old() {}\n",
        b"pub fn new() {}\n",
    );
    b.write("src/new.rs", b"// new\n");
    pb.ok(&[
        "edit",
        &session,
        "--turn",
        &t,
        "--path",
        "src/new.rs",
        "--created",
    ]);
    pb.ok(&["reply", &session, "--turn", &t, "--text", "renamed"]);
    pb.ok(&["turn-end", &session, "--turn", &t]);

    let preview = pb.ok(&["preview", &session, "--since", &p]);
    assert_eq!(preview["canApply"], true, "{preview}");
    let applied = pb.ok(&["apply", &session, "--since", &p]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(
        b.read("src/lib.rs").as_deref(),
        Some(&b"pub fn old() {}\n"[..])
    );
    assert_eq!(b.read("src/new.rs"), None);
    let undone = pb.ok(&["undo", &session, &s(&applied, "operationId")]);
    assert_eq!(undone["applied"], true, "{undone}");
    assert_eq!(
        b.read("src/lib.rs").as_deref(),
        Some(&b"pub fn new() {}\n"[..])
    );
    assert_eq!(b.read("src/new.rs").as_deref(), Some(&b"// new\n"[..]));
    // Short ids resolve through the store's prefix lookup.
    let short = &session[..session.len() - 20];
    assert_eq!(pb.ok(&["resume", short])["turnNumber"], 1);

    // The records are in PostgreSQL: no SQLite file was made, and the server has the rows.
    assert!(!b.path(".rewind/rewind.db").exists());
    let mut client = postgres::Client::connect(&c.conninfo(&db), postgres::NoTls).expect("connect");
    let ops: i64 = client
        .query_one("SELECT count(*) FROM operations", &[])
        .expect("count")
        .get(0);
    assert_eq!(ops, 2, "the rewind and its undo");
    // The store says which workspace it acts on.
    let root: String = client
        .query_one("SELECT value FROM store_info WHERE key = 'root'", &[])
        .expect("root")
        .get(0);
    let canonical = std::fs::canonicalize(b.ws()).expect("canonical");
    assert_eq!(root, canonical.to_string_lossy());
}

#[test]
fn processes_recording_into_one_database_at_once_lose_nothing() {
    let c = pg_or_skip!();
    let url = c.url(&c.fresh_db());
    let pb = PgBench::new(url.clone());
    let sessions: Vec<String> = (0..3)
        .map(|i| {
            s(
                &pb.ok(&["session", "new", "--title", &format!("s{i}")]),
                "id",
            )
        })
        .collect();
    let bin = env!("CARGO_BIN_EXE_rewind");
    let ws = pb.b.ws().display().to_string();
    let mut kids: Vec<_> = sessions
        .iter()
        .map(|session| {
            let script = format!(
                "for i in $(seq 1 15); do \"{bin}\" --workspace \"{ws}\" --store \"{url}\" prompt \
                 {session} --text \"p$i\" >/dev/null || exit 1; done"
            );
            std::process::Command::new("bash")
                .arg("-c")
                .arg(script)
                .env_remove("REWIND_DB")
                .spawn()
                .expect("spawn")
        })
        .collect();
    for k in &mut kids {
        assert!(
            k.wait().expect("wait").success(),
            "every prompt is recorded"
        );
    }
    for session in &sessions {
        assert_eq!(pb.ok(&["resume", session])["turnNumber"], 15);
    }
}

#[test]
fn a_store_that_is_not_postgres_is_invalid_input() {
    let b = Bench::new();
    let (code, doc) = b.json_with(&["session", "list"], |c| {
        c.env("REWIND_STORE", "mysql://nope");
    });
    assert_eq!(
        (code, doc["error"]["code"].as_str()),
        (1, Some("invalid_input")),
        "{doc}"
    );
}
