//! The long session: 2,000 turns of prompt + one file edit + 4 replies, i.e. 10,000 messages
//! and 2,000 checkpoints. Built once through the engine over the in-memory store (fast), then
//! the very batches it committed are replayed into SQLite and written to `batches.jsonl` for the
//! wasm package. Cached under `<target dir>/bench-data/session10k`.

use crate::corpus::{Corpus, code_bytes};
use crate::harness::Result;
use crate::workload::{self, Change};
use rewind_core::Engine;
use rewind_core::id::{MessageId, SessionId};
use rewind_core::ports::StoreWrite;
use rewind_core::testkit::{MemStore, MemWorkspace};
use rewind_host::{RandomIds, SqliteStore, SystemClock};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Turns in the session.
pub const TURNS: usize = 2_000;
/// Replies per turn (with the prompt: 5 messages a turn).
const REPLIES: usize = 4;
/// Distinct files the turns edit.
const FILES: usize = 100;

/// The prepared session.
#[derive(Debug)]
pub struct LongSession {
    /// Its folder.
    pub dir: PathBuf,
    /// The SQLite database (never modified by the benchmarks: they work on copies).
    pub db: PathBuf,
    /// The workspace folder as the last turn left it.
    pub workspace: PathBuf,
    /// One committed batch per line (the core's byte form), for `Engine.fromLog`.
    pub batches: PathBuf,
    /// The session.
    pub session: SessionId,
    /// The last turn's prompt.
    pub last_prompt: MessageId,
    /// The last message.
    pub last_message: MessageId,
}

fn meta_path(dir: &Path) -> PathBuf {
    dir.join("meta.json")
}

/// Build (or reuse) the session.
pub fn prepare(data: &Path, corpus: &Corpus) -> Result<LongSession> {
    let dir = data.join("session10k");
    let meta = meta_path(&dir);
    if !meta.exists() {
        build(&dir, corpus)?;
    }
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta)?)?;
    let field = |k: &str| m[k].as_str().map(str::to_owned).ok_or("bad meta.json");
    Ok(LongSession {
        db: dir.join("rewind.db"),
        workspace: dir.join("ws"),
        batches: dir.join("batches.jsonl"),
        session: SessionId::parse(&field("session")?)?,
        last_prompt: MessageId::parse(&field("last_prompt")?)?,
        last_message: MessageId::parse(&field("last_message")?)?,
        dir,
    })
}

fn build(dir: &Path, corpus: &Corpus) -> Result<()> {
    eprintln!("bench: building the {TURNS}-turn session (cached afterwards)");
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let mut e = Engine::new(
        MemStore::with_log(),
        MemWorkspace::new(),
        SystemClock,
        RandomIds,
    );
    let s = workload::new_session(&mut e)?;
    let mut files: Vec<Vec<u8>> = (0..FILES)
        .map(|i| code_bytes(corpus, i * 7, 2_000 + 40 * i))
        .collect::<Result<_>>()?;
    let reply_text = String::from_utf8_lossy(&code_bytes(corpus, 3, 600)?).into_owned();
    let (mut last_prompt, mut last_message) = (None, None);
    for turn in 0..TURNS {
        let (t, m) = workload::prompt(
            &mut e,
            &s,
            format!(
                "turn {turn}: please refactor module {} and add a test",
                turn % FILES
            ),
        )?;
        let k = turn % FILES;
        let before = files[k].clone();
        let mut after = before.clone();
        after.extend_from_slice(format!("// turn {turn}\n").as_bytes());
        files[k].clone_from(&after);
        let path = format!("src/mod{k:03}.rs");
        e.workspace_mut().put(&path, after.clone());
        workload::edit(
            &mut e,
            &s,
            &t,
            &[Change {
                path,
                before,
                after,
            }],
        )?;
        for r in 0..REPLIES {
            let msg = e.record_reply(
                &s,
                rewind_core::record::ReplyOptions {
                    turn_id: t.clone(),
                    text: format!("reply {r} of turn {turn}: {reply_text}"),
                    error: false,
                    payload: None,
                },
            )?;
            last_message = Some(msg.message_id);
        }
        workload::complete(&mut e, &s, &t)?;
        last_prompt = Some(m);
    }
    let (store, workspace) = e.into_parts();

    write_batches(dir, &store)?;
    write_sqlite(dir, &store)?;
    write_workspace(dir, &workspace)?;
    let meta = serde_json::json!({
        "session": s.to_string(),
        "last_prompt": last_prompt.ok_or("no turns")?.to_string(),
        "last_message": last_message.ok_or("no replies")?.to_string(),
    });
    std::fs::write(meta_path(dir), serde_json::to_vec_pretty(&meta)?)?;
    Ok(())
}

/// The batches, one JSON line each, for the wasm package.
fn write_batches(dir: &Path, store: &MemStore) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("batches.jsonl"))?);
    for b in store.committed() {
        out.write_all(&b.to_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// The same batches into SQLite, on tmpfs when there is one (thousands of fsyncs), then
/// copied beside the batches once the connection has closed (WAL folded into the file).
fn write_sqlite(dir: &Path, store: &MemStore) -> Result<()> {
    let shm = Path::new("/dev/shm");
    let tmp_dir = if shm.is_dir() {
        shm.join(format!("rewind-bench-{}", std::process::id()))
    } else {
        dir.join("tmp")
    };
    std::fs::create_dir_all(&tmp_dir)?;
    let tmp_db = tmp_dir.join("rewind.db");
    {
        let mut sql = SqliteStore::open(&tmp_db)?;
        for b in store.committed() {
            sql.commit(b.clone())?;
        }
    }
    copy_store(&tmp_db, &dir.join("rewind.db"))?;
    std::fs::remove_dir_all(&tmp_dir)?;
    Ok(())
}

/// The workspace as the last turn left it.
fn write_workspace(dir: &Path, workspace: &MemWorkspace) -> Result<()> {
    for (path, bytes) in workspace.files() {
        let full = dir.join("ws").join(path.as_str());
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, bytes)?;
    }
    Ok(())
}

/// A fresh copy of the session's database at `name` inside its folder (untimed setup).
pub fn copy_db(long: &LongSession, name: &str) -> Result<PathBuf> {
    let to = long.dir.join(name);
    copy_store(&long.db, &to)?;
    Ok(to)
}

/// Copy the SQLite store `from` (no connection open) to `to`: the file and its WAL, which holds
/// the latest commits until a checkpoint (a store's last connection does not checkpoint).
pub fn copy_store(from: &Path, to: &Path) -> Result<()> {
    let sibling = |p: &Path, suffix: &str| {
        let mut s = p.as_os_str().to_owned();
        s.push(suffix);
        PathBuf::from(s)
    };
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(sibling(to, suffix));
    }
    std::fs::copy(from, to)?;
    if sibling(from, "-wal").exists() {
        std::fs::copy(sibling(from, "-wal"), sibling(to, "-wal"))?;
    }
    Ok(())
}
