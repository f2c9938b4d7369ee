//! Which workspace a hook event belongs to. An agent reads its project settings only from the
//! directory it was started in, and may be started anywhere in a repository (Claude Code in
//! `src/` with rewind installed in the user's settings), so the event's own directory is not
//! the workspace. The rule, from the agent's project directory (its variable, see
//! `Agent::project_dir_var`; else the payload's `cwd`):
//!
//! 1. the nearest directory at or above it holding `.rewind/` (a store already there);
//! 2. else the top level of the git repository it is in (the nearest `.git`, a directory or
//!    a worktree's file, read from the file system: no git process);
//! 3. else the directory itself.
//!
//! `--workspace` and `--db` / `REWIND_DB` win over all of it, as everywhere. The project
//! directory does not move during a session, so every event of a session, from whatever `cwd`,
//! finds the same store; file paths resolve against that root, and a file outside it is told
//! in `hook.log` (its change cannot be rewound), never dropped without a word.

use super::event::Agent;
use rewind_core::path::WorkPath;
use rewind_host::native::{Location, holds_store, locate};
use std::path::{Component, Path, PathBuf};

/// Where the event happens.
pub(super) struct Place {
    pub(super) agent: Agent,
    pub(super) root: PathBuf,
    pub(super) db: PathBuf,
    /// The PostgreSQL store (`--store` / `REWIND_STORE`), when the records are not in `db`.
    pub(super) store: Option<String>,
    pub(super) cwd: PathBuf,
    pub(super) limits: super::bounds::Limits,
    /// What could not be read or kept, for `hook.log`, while the rest is recorded.
    pub(super) notes: std::cell::RefCell<Vec<String>>,
    /// Claude Code's `tool_response.originalFile`: the file before its Edit.
    pub(super) original: Option<String>,
}

impl Place {
    pub(super) fn note(&self, what: String) {
        self.notes.borrow_mut().push(what);
    }
}

/// The agent's project directory, when it set a usable one, else `cwd`.
pub(super) fn start(agent: Agent, cwd: &Path) -> PathBuf {
    agent
        .project_dir_var()
        .and_then(std::env::var_os)
        .map(PathBuf::from)
        .filter(|d| d.is_absolute() && d.is_dir())
        .unwrap_or_else(|| cwd.to_path_buf())
}

/// The workspace and store for an event whose directory is `cwd` (see the module docs).
pub(super) fn find(
    agent: Agent,
    cwd: &Path,
    workspace: Option<&Path>,
    db: Option<&Path>,
) -> Location {
    let from = start(agent, cwd);
    let found = locate(&from, workspace, db);
    if workspace.is_some() || holds_store(&found.workspace) {
        return found;
    }
    match git_top(&found.workspace) {
        Some(top) => Location {
            found: found.found,
            ..locate(&top, Some(&top), db)
        },
        None => found,
    }
}

/// The nearest directory at or above `dir` holding `.git` (a repository, or a worktree's or
/// submodule's `.git` file).
fn git_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The workspace paths of a file tool's `raw` paths; each one outside the workspace is noted
/// for `hook.log` (what it did to that file is not recorded).
pub(super) fn work_paths(place: &Place, raw: &[String]) -> Vec<WorkPath> {
    raw.iter()
        .filter_map(|r| {
            let p = work_path(place, r);
            if p.is_none() {
                place.note(format!(
                    "{r} is outside the workspace {}: its change is not recorded and cannot \
                     be rewound",
                    place.root.display()
                ));
            }
            p
        })
        .collect()
}

/// `raw` (absolute, or relative to the agent's cwd) as a workspace path; `None` outside it.
pub(super) fn work_path(place: &Place, raw: &str) -> Option<WorkPath> {
    let p = Path::new(raw);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        place.cwd.join(p)
    };
    let mut clean = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            c => clean.push(c),
        }
    }
    let rel = match clean.strip_prefix(&place.root) {
        Ok(rel) => rel.to_path_buf(),
        // The agent may name the root through a link (/tmp vs /private/tmp): compare the
        // nearest existing ancestor, resolved.
        Err(_) => {
            let mut base = clean.clone();
            let mut rest = Vec::new();
            while !base.exists() {
                rest.push(base.file_name()?.to_owned());
                base.pop();
            }
            let real = std::fs::canonicalize(&base).ok()?;
            let mut rel = real.strip_prefix(&place.root).ok()?.to_path_buf();
            rel.extend(rest.iter().rev());
            rel
        }
    };
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    WorkPath::parse(&parts?.join("/")).ok()
}
