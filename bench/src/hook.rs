//! `rewind hook` on an agent's critical path: one process per event, as Claude Code runs it,
//! in a copy of the 10,000-file workspace. The file tool's PreToolUse (keep the file's bytes)
//! and PostToolUse (record the exact change) are timed as whole processes, beside the cost of
//! starting the binary at all and a shell tool's PreToolUse (a stat-only workspace snapshot).

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, measure_children};
use crate::hook_edit;
use crate::hook_io::{own_store, payload, send_env};
use crate::report::{Met, Table};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The `rewind` binary built beside this one (`scripts/bench` builds both in release mode).
pub(crate) fn rewind_bin() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let bin = exe.parent().ok_or("no binary directory")?.join("rewind");
    if !bin.is_file() {
        return Err(format!(
            "{} is missing: build -p rewind-cli in release mode",
            bin.display()
        )
        .into());
    }
    Ok(bin)
}

fn send(bin: &Path, payload: &Value) -> Result<()> {
    send_env(bin, payload, &[])
}

fn copy_tree(from: &Path, to: &Path, files: &[String]) -> Result<()> {
    for f in files {
        let dst = to.join(f);
        std::fs::create_dir_all(dst.parent().ok_or("no parent")?)?;
        std::fs::copy(from.join(f), &dst)?;
    }
    Ok(())
}

struct Cx {
    bin: PathBuf,
    root: PathBuf,
    files: Vec<String>,
    next: usize,
}

impl Cx {
    fn event(&self, name: &str, extra: Value) -> Value {
        payload(&self.root, "bench-session", name, extra)
    }
    fn edit(&mut self) -> (String, Value) {
        self.next += 1;
        let rel = self.files[(self.next * 7919) % self.files.len()].clone();
        let tool = json!({
            "tool_name": "Edit",
            "tool_input": { "file_path": self.root.join(&rel), "old_string": "a", "new_string": "b" },
            "tool_use_id": format!("toolu_bench_{}", self.next),
        });
        (rel, tool)
    }
}

fn under(m: &Measured, ms: u64) -> Met {
    Met::from(m.samples.median() < Duration::from_millis(ms))
}

/// The hook latency table.
pub fn run_scenario(data: &Path, corpus: &Corpus, n: usize) -> Result<Table> {
    let bin = rewind_bin()?;
    let dir = data.join("hook-workspace");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let root = std::fs::canonicalize(&dir)?;
    copy_tree(&corpus.root, &root, &corpus.files)?;
    own_store(&root)?;
    hook_edit::prepare(&root, corpus)?;
    let mut cx = Cx {
        bin,
        root,
        files: corpus.files.clone(),
        next: 0,
    };
    send(
        &cx.bin,
        &cx.event("SessionStart", json!({ "source": "startup" })),
    )?;
    send(
        &cx.bin,
        &cx.event("UserPromptSubmit", json!({ "prompt": "bench" })),
    )?;
    // Files older than the racy window, as in a session where the tree was not just written.
    std::thread::sleep(Duration::from_millis(2100));
    let samples = (2, n.max(10));

    let edit = hook_edit::measure(&cx.bin, &cx.root, samples)?;
    let pre = measure_children(
        &mut cx,
        samples,
        |cx| Ok(cx.edit()),
        |cx, (_, tool)| send(&cx.bin, &cx.event("PreToolUse", tool)),
    )?;
    let post = measure_children(
        &mut cx,
        samples,
        |cx| {
            let (rel, tool) = cx.edit();
            send(&cx.bin, &cx.event("PreToolUse", tool.clone()))?;
            let path = cx.root.join(&rel);
            let mut bytes = std::fs::read(&path)?;
            bytes.extend_from_slice(b"\n// edited by the bench\n");
            std::fs::write(&path, bytes)?;
            Ok(tool)
        },
        |cx, tool| send(&cx.bin, &cx.event("PostToolUse", tool)),
    )?;
    let shell = measure_children(
        &mut cx,
        samples,
        |cx| {
            cx.next += 1;
            Ok(
                json!({ "tool_name": "Bash", "tool_input": { "command": "true" }, "tool_use_id": format!("toolu_sh_{}", cx.next) }),
            )
        },
        |cx, tool| send(&cx.bin, &cx.event("PreToolUse", tool)),
    )?;

    let mut t = Table::new(format!(
        "Agent hooks: `rewind hook claude-code`, one process per event ({} files)",
        corpus.files.len()
    ));
    t.note("Whole processes, payload on stdin, as Claude Code runs hooks; the store is SQLite in the workspace's .rewind/.")
        .note("PostToolUse reads the before-state PreToolUse kept, the file now, and commits one checkpoint.")
        .timed("PreToolUse, Edit (keep the file's bytes)", &pre, "p50 < 10 ms", under(&pre, 10))
        .timed("PostToolUse, Edit (record the change)", &post, "p50 < 10 ms", under(&post, 10))
        .timed("PreToolUse, Bash (stat-only workspace snapshot)", &shell, "", Met::None);
    hook_edit::rows(&mut t, &edit);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(t)
}
