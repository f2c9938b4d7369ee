//! File tools whose after event never came. Codex sends no event for a failed tool call (no
//! `PostToolUse`, no failure event; agent-integrations.md 2.6), yet a failed `apply_patch` may
//! have changed some of its files. Its before event therefore also notes the call here (one
//! small file per agent session beside the database), its after event crosses it off, and the
//! turn's end closes what is left by re-reading the files: their before-bytes were kept, so the
//! change is recorded exactly, as the tool's.

use super::event::{Action, Payload, Tool};
use super::root::Place;
use rewind_core::hash::ContentHash;
use rewind_core::path::WorkPath;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One call still open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Open {
    pub(super) tool: String,
    pub(super) call: Option<String>,
    pub(super) paths: Vec<String>,
}

fn file(db: &Path, agent: &str, session: &str) -> PathBuf {
    let key = ContentHash::of(format!("{agent}\n{session}").as_bytes());
    let dir = db.parent().unwrap_or(Path::new(".")).join("hook-pending");
    dir.join(format!("open-{}.json", &key.as_str()[..32]))
}

fn load(path: &Path) -> Vec<Open> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn save(path: &Path, open: &[Open]) -> Result<(), String> {
    if open.is_empty() {
        let _ = std::fs::remove_file(path);
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let body = serde_json::to_vec(open).map_err(|e| e.to_string())?;
    rewind_host::disk::write_own_file(path, &body).map_err(|e| e.to_string())
}

/// The before event of `tool` on `paths` (for an agent that `closes_at_stop`).
pub(super) fn opened(
    place: &Place,
    p: &Payload,
    session: &str,
    tool: &Tool,
    paths: &[WorkPath],
) -> Result<(), String> {
    if !closes_at_stop(place, p) {
        return Ok(());
    }
    let path = file(&place.db, place.agent.as_str(), session);
    let mut open = load(&path);
    open.push(Open {
        tool: tool.name.clone(),
        call: tool.call_id.clone(),
        paths: paths.iter().map(ToString::to_string).collect(),
    });
    save(&path, &open)
}

/// Its after event came.
pub(super) fn closed(place: &Place, p: &Payload, session: &str, tool: &Tool) {
    if !closes_at_stop(place, p) {
        return;
    }
    let path = file(&place.db, place.agent.as_str(), session);
    let mut open = load(&path);
    if let Some(i) = open
        .iter()
        .position(|o| o.tool == tool.name && o.call == tool.call_id)
    {
        open.remove(i);
        let _ = save(&path, &open);
    }
}

/// Every call still open, taken (the turn ends): each as its tool and its files.
pub(super) fn take(db: &Path, (agent, session): (&str, &str)) -> Vec<(Tool, Vec<WorkPath>)> {
    let path = file(db, agent, session);
    let open = load(&path);
    let _ = std::fs::remove_file(&path);
    open.into_iter()
        .map(|o| {
            let paths = o
                .paths
                .iter()
                .filter_map(|p| WorkPath::parse(p).ok())
                .collect();
            let tool = Tool {
                name: o.tool,
                call_id: o.call,
                action: Action::Files(o.paths),
                note: None,
            };
            (tool, paths)
        })
        .collect()
}

/// Whether the agent sends no event for a failed tool, so open calls are closed at the turn's
/// end: Codex, installed or running another agent's hook.
pub(super) fn closes_at_stop(place: &Place, p: &Payload) -> bool {
    place.agent == crate::agents::Agent::Codex || p.host == Some(super::payload::Host::Codex)
}
