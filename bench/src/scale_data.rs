//! Sessions of 1,000, 10,000 and 50,000 messages for the scaling table: turns of a prompt, one
//! file edit and four replies (five messages and one checkpoint a turn), recorded through the
//! engine straight into SQLite (on tmpfs when there is one, then copied) and cached under
//! `<target dir>/bench-data/scale<N>`. Building them costs what recording costs, so this is
//! also a check that recording stays linear.

use crate::corpus::{Corpus, code_bytes};
use crate::harness::Result;
use crate::workload::{self, Change};
use rewind_core::id::{MessageId, SessionId};
use std::path::{Path, PathBuf};

/// Messages a turn adds.
pub const MESSAGES_PER_TURN: usize = 5;
/// Distinct files the turns edit.
pub const FILES: usize = 100;

/// A prepared session.
#[derive(Debug, Clone)]
pub struct Scaled {
    /// Its messages.
    pub messages: usize,
    /// The cached database (never modified: measurements work on copies).
    pub db: PathBuf,
    /// The workspace as the last turn left it.
    pub workspace: PathBuf,
    /// The session.
    pub session: SessionId,
    /// The last prompt.
    pub last_prompt: MessageId,
}

/// The workspace path of file `k`.
pub fn file_path(k: usize) -> String {
    format!("src/mod{k:03}.rs")
}

/// Build (or reuse) a session of `messages` messages.
pub fn prepare(data: &Path, corpus: &Corpus, messages: usize) -> Result<Scaled> {
    let dir = data.join(format!("scale{messages}"));
    let meta = dir.join("meta.json");
    if !meta.exists() {
        build(&dir, corpus, messages)?;
    }
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta)?)?;
    let field = |k: &str| m[k].as_str().map(str::to_owned).ok_or("bad meta.json");
    Ok(Scaled {
        messages,
        db: dir.join("rewind.db"),
        workspace: dir.join("ws"),
        session: SessionId::parse(&field("session")?)?,
        last_prompt: MessageId::parse(&field("last_prompt")?)?,
    })
}

fn build(dir: &Path, corpus: &Corpus, messages: usize) -> Result<()> {
    let turns = messages / MESSAGES_PER_TURN;
    eprintln!("bench: building a {messages}-message session ({turns} turns; cached afterwards)");
    let started = std::time::Instant::now();
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        shm.join(format!("rewind-scale-{}-{messages}", std::process::id()))
    } else {
        dir.join("tmp")
    };
    let _ = std::fs::remove_dir_all(&tmp);
    let ws = tmp.join("ws");
    std::fs::create_dir_all(ws.join("src"))?;
    let mut files: Vec<Vec<u8>> = (0..FILES)
        .map(|i| code_bytes(corpus, i * 7, 2_000 + 40 * i))
        .collect::<Result<_>>()?;
    let reply = String::from_utf8_lossy(&code_bytes(corpus, 3, 600)?).into_owned();
    let (session, last_prompt) = {
        let (mut e, _) = rewind_host::open(&ws, &tmp.join("rewind.db"))?;
        let s = workload::new_session(&mut e)?;
        let mut last = None;
        for turn in 0..turns {
            let k = turn % FILES;
            let (t, m) = workload::prompt(&mut e, &s, format!("turn {turn}: refactor module {k}"))?;
            let before = files[k].clone();
            files[k].extend_from_slice(format!("// turn {turn}\n").as_bytes());
            let change = Change {
                path: file_path(k),
                before,
                after: files[k].clone(),
            };
            workload::edit(&mut e, &s, &t, std::slice::from_ref(&change))?;
            for r in 0..MESSAGES_PER_TURN - 1 {
                workload::reply(&mut e, &s, &t, format!("reply {r} of turn {turn}: {reply}"))?;
            }
            workload::complete(&mut e, &s, &t)?;
            last = Some(m);
        }
        (s, last.ok_or("no turns")?)
    };
    for (k, bytes) in files.iter().enumerate() {
        std::fs::write(ws.join(file_path(k)), bytes)?;
    }
    crate::session::copy_store(&tmp.join("rewind.db"), &dir.join("rewind.db"))?;
    copy_tree(&ws, &dir.join("ws"))?;
    std::fs::remove_dir_all(&tmp)?;
    let meta = serde_json::json!({
        "session": session.to_string(),
        "last_prompt": last_prompt.to_string(),
        "build_seconds": started.elapsed().as_secs_f64(),
    });
    std::fs::write(dir.join("meta.json"), serde_json::to_vec_pretty(&meta)?)?;
    Ok(())
}

/// Copy the workspace's files (flat `src/` of regular files, as built above).
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to.join("src"))?;
    for entry in std::fs::read_dir(from.join("src"))? {
        let entry = entry?;
        std::fs::copy(entry.path(), to.join("src").join(entry.file_name()))?;
    }
    Ok(())
}

/// A working copy of the session (database and workspace) under `work`, opened natively.
pub fn working_copy(s: &Scaled, work: &Path) -> Result<rewind_host::NativeEngine> {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work)?;
    crate::session::copy_store(&s.db, &work.join("rewind.db"))?;
    copy_tree(&s.workspace, &work.join("ws"))?;
    // The copy lives at another root, so the store reads as foreign until it is trusted.
    rewind_host::trust_store(&work.join("ws"), &work.join("rewind.db"))?;
    Ok(rewind_host::open(&work.join("ws"), &work.join("rewind.db"))?.0)
}
