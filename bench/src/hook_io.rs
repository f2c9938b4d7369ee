//! The plumbing every hook scenario shares: a Claude Code payload, one event as its own
//! process, a workspace with its own store, and the checkpoints read back through the CLI.

use crate::harness::Result;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// One hook event as its own process, payload on stdin, with `env` added to the environment.
pub(crate) fn send_env(bin: &Path, payload: &Value, env: &[(&str, &OsStr)]) -> Result<()> {
    let mut child = Command::new(bin)
        .args(["hook", "claude-code"])
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(&serde_json::to_vec(payload)?)?;
    let status = child.wait()?;
    if !status.success() {
        return Err(format!("rewind hook exited {status}").into());
    }
    Ok(())
}

/// A Claude Code hook payload for event `name` of session `session` in `root`, with the
/// fields of `extra` (the tool's name, input and call id) added.
pub(crate) fn payload(root: &Path, session: &str, name: &str, extra: Value) -> Value {
    let mut v = json!({
        "session_id": session,
        "transcript_path": root.join("transcript.jsonl"),
        "cwd": root,
        "permission_mode": "default",
        "hook_event_name": name,
    });
    for (k, val) in extra.as_object().into_iter().flatten() {
        v[k] = val.clone();
    }
    v
}

/// Make `root` a workspace with a store of its own before the first event: without `.rewind/`
/// the hook takes the enclosing git repository as the workspace (the bench data lives in the
/// project's target directory, inside the project's own checkout).
pub(crate) fn own_store(root: &Path) -> Result<()> {
    let dir = root.join(".rewind");
    std::fs::create_dir_all(&dir)?;
    // What rewind writes when it makes the directory itself: git never sees the store.
    std::fs::write(dir.join(".gitignore"), "*\n")?;
    Ok(())
}

/// One checkpoint as `rewind checkpoints --json` lists it: the tool's input, the files.
#[derive(Debug)]
pub(crate) struct Ckp {
    pub(crate) input: Option<String>,
    pub(crate) paths: Vec<String>,
}

/// The checkpoints of the workspace's current session (in `db` when given), read back through
/// the CLI: what the timed hooks recorded.
pub(crate) fn checkpoints(bin: &Path, root: &Path, db: Option<&Path>) -> Result<Vec<Ckp>> {
    let mut c = Command::new(bin);
    c.arg("--workspace").arg(root).arg("--json");
    if let Some(db) = db {
        c.arg("--db").arg(db);
    }
    let out = crate::harness::run(c.arg("checkpoints"))?;
    let list: Value = serde_json::from_slice(&out.stdout)?;
    let list = list.as_array().ok_or("rewind checkpoints: not a list")?;
    Ok(list
        .iter()
        .map(|c| Ckp {
            input: c["toolInput"].as_str().map(str::to_owned),
            paths: c["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f["path"].as_str().map(str::to_owned))
                .collect(),
        })
        .collect())
}
