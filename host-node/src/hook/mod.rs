//! `rewind hook <agent> [--event NAME]`: one agent hook event, as JSON on stdin. Session start
//! binds a rewind session to the agent's session; a prompt starts a turn (and a snapshot sees
//! what the person changed since the last one); a file tool's before event keeps the file's
//! bytes and its after event records the exact change; a shell tool is bracketed by snapshots;
//! the end of the turn records the last reply and completes it.
//!
//! A hook never breaks the agent: whatever happens it prints `{}` and exits 0, the way every
//! one of these agents reads "continue, nothing to add" (other exit codes show the person an
//! error or block the tool; stray stdout or stderr reaches the person or the model). What went
//! wrong goes to `hook.log` beside the database.

mod act;
mod event;
mod log;
mod pending;

pub use event::Agent;

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Payloads past this are not hook events.
const MAX_PAYLOAD: u64 = 64 << 20;

/// `rewind hook` arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Whose hook protocol the event follows.
    #[arg(value_enum)]
    agent: Agent,
    /// The event, when the payload does not name it (`hook_event_name`).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
}

/// The workspace: the nearest directory at or above `start` that holds a `.rewind/` store,
/// else `start` itself (the first event creates the store there).
fn workspace_of(start: &Path) -> PathBuf {
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .find(|d| d.join(".rewind").is_dir())
        .unwrap_or(&start)
        .to_path_buf()
}

/// Handle one event; never fails. `workspace` / `db`: the global options, when given.
pub fn run(a: &Args, workspace: Option<&Path>, db: Option<&Path>, store: Option<&str>) {
    let mut raw = Vec::new();
    let read = std::io::stdin().take(MAX_PAYLOAD).read_to_end(&mut raw);
    let payload: Result<event::Payload, String> = match read {
        Ok(_) => serde_json::from_slice(&raw).map_err(|e| format!("the payload is not JSON: {e}")),
        Err(e) => Err(format!("cannot read the payload: {e}")),
    };
    let cwd = payload
        .as_ref()
        .ok()
        .and_then(|p| p.cwd.clone())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let root = match workspace {
        Some(w) => std::fs::canonicalize(w).unwrap_or_else(|_| w.to_path_buf()),
        None => workspace_of(&cwd),
    };
    let db = db.map_or_else(|| crate::native::default_db_path(&root), Path::to_path_buf);
    let agent = a.agent.as_str();
    let p = match payload {
        Ok(p) => p,
        Err(why) => {
            log::line(&db, agent, a.event.as_deref().unwrap_or("?"), &why);
            return;
        }
    };
    let ev = event::event(a.agent, &p, a.event.as_deref());
    let name = a
        .event
        .clone()
        .or_else(|| p.hook_event_name.clone())
        .unwrap_or_default();
    // Not an error: agents send events and tools rewind has nothing to do with.
    if matches!(ev, event::Event::Ignored(_)) {
        return;
    }
    let place = act::Place {
        agent: a.agent,
        root,
        db,
        store: store.map(str::to_owned),
        cwd,
    };
    match act::act(&place, &p, ev) {
        Ok(Some(session)) => {
            if let Err(e) = crate::current::mark(&place.db, &session) {
                log::line(
                    &place.db,
                    agent,
                    &name,
                    &format!("cannot mark the current session: {e}"),
                );
            }
        }
        Ok(None) => {}
        Err(why) => log::line(&place.db, agent, &name, &why),
    }
}
