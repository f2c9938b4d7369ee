//! What one measured turn touches: the three edited files, the `rewind` CLI over the same
//! workspace and database, and the in-process turn the engine records.

use crate::corpus::Corpus;
use crate::harness::{Result, run};
use crate::workload::{self, Change};
use rewind_core::id::SessionId;
use rewind_host::NativeEngine;
use std::path::PathBuf;
use std::process::Command;

/// The three real files one turn edits, with their original bytes.
pub(super) struct Edited {
    root: PathBuf,
    files: Vec<(String, Vec<u8>)>,
    turn: usize,
}

impl Edited {
    pub(super) fn pick(corpus: &Corpus) -> Result<Self> {
        let rs: Vec<&String> = corpus.files.iter().filter(|f| f.ends_with(".rs")).collect();
        let mut files = Vec::new();
        for k in 1..=3 {
            let path = rs[rs.len() * k / 4].clone();
            let bytes = std::fs::read(corpus.root.join(&path))?;
            files.push((path, bytes));
        }
        Ok(Self {
            root: corpus.root.clone(),
            files,
            turn: 0,
        })
    }
    /// The tool's edit: append a line to each file on disk; returns before/after bytes.
    pub(super) fn edit(&mut self) -> Result<Vec<Change>> {
        self.turn += 1;
        let mut out = Vec::new();
        for (path, _) in &self.files {
            let full = self.root.join(path);
            let before = std::fs::read(&full)?;
            let mut after = before.clone();
            after.extend_from_slice(format!("// rewind-bench turn {}\n", self.turn).as_bytes());
            std::fs::write(&full, &after)?;
            out.push(Change {
                path: path.clone(),
                before,
                after,
            });
        }
        Ok(out)
    }
    pub(super) fn paths(&self) -> Vec<String> {
        self.files.iter().map(|(p, _)| p.clone()).collect()
    }
    /// Put the original bytes back (the cached corpus stays pristine).
    pub(super) fn restore_originals(&self) -> Result<()> {
        for (path, bytes) in &self.files {
            std::fs::write(self.root.join(path), bytes)?;
        }
        Ok(())
    }
}

/// The `rewind` CLI over the same workspace and database: one whole process per call.
pub(super) struct Cli {
    pub(super) bin: PathBuf,
    pub(super) ws: PathBuf,
    pub(super) db: PathBuf,
    pub(super) scratch: PathBuf,
}

impl Cli {
    pub(super) fn cmd(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.arg("--workspace")
            .arg(&self.ws)
            .arg("--db")
            .arg(&self.db)
            .arg("--json");
        c
    }
    /// A turn as a host without the library would record it: `prompt`, one `edit` per file
    /// (before bytes from a file, after = the file on disk), `turn-end`.
    pub(super) fn turn(&self, s: &SessionId, before_files: &[(String, PathBuf)]) -> Result<()> {
        let out = run(self
            .cmd()
            .args(["prompt", s.as_str(), "--text", "edit three files"]))?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        let turn = v["turnId"]
            .as_str()
            .ok_or("rewind prompt printed no turnId")?;
        for (path, before) in before_files {
            run(self
                .cmd()
                .args(["edit", s.as_str(), "--turn", turn, "--path", path])
                .arg("--before-file")
                .arg(before))?;
        }
        run(self.cmd().args(["turn-end", s.as_str(), "--turn", turn]))?;
        Ok(())
    }
    /// Write each change's before bytes to a scratch file (untimed setup of a CLI turn).
    pub(super) fn stage(&self, changes: &[Change]) -> Result<Vec<(String, PathBuf)>> {
        std::fs::create_dir_all(&self.scratch)?;
        changes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let f = self.scratch.join(format!("before{i}"));
                std::fs::write(&f, &c.before)?;
                Ok((c.path.clone(), f))
            })
            .collect()
    }
}

/// Our turn: prompt + one `record_edit` per file + complete.
pub(super) fn record_turn(e: &mut NativeEngine, s: &SessionId, changes: &[Change]) -> Result<()> {
    let (t, _) = workload::prompt(e, s, "edit three files".into())?;
    for c in changes {
        workload::edit(e, s, &t, std::slice::from_ref(c))?;
    }
    workload::complete(e, s, &t)
}
