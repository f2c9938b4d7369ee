//! `rewind hook <agent> [--event NAME]`: one agent hook event, as JSON on stdin. Session start
//! binds a rewind session to the agent's session; a prompt starts a turn (and a snapshot sees
//! what the person changed since the last one); a file tool's before event keeps the file's
//! bytes and its after event records the exact change; a shell tool is bracketed by snapshots;
//! the end of the turn records the last reply and completes it.
//!
//! A hook never breaks the agent: whatever happens it prints `{}` and exits 0, the way every
//! one of these agents reads "continue, nothing to add" (other exit codes show the person an
//! error or block the tool; stray stdout or stderr reaches the person or the model). What went
//! wrong goes to `hook.log` beside the database. Nor does a hook hold the agent up: its reads
//! and its time are bounded (see `bounds`).

mod act;
mod background;
mod between;
mod bounds;
mod event;
mod ignored;
mod lazy;
mod log;
mod made_dirs;
mod payload;
mod pending;
mod point;
mod root;
mod seen;
mod synthetic;
mod tools;
mod transcript;
mod unclosed;

pub use event::Agent;
/// Where the events rewind ignored are counted (see `ignored`).
pub use ignored::file as ignored_file;
/// When each event last arrived (see `seen`).
pub use seen::{Seen, read as read_seen};

use std::path::{Path, PathBuf};

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

/// Handle one event; never fails, and returns within the time limit (see `bounds`).
/// `workspace` / `db`: the global options, when given.
pub fn run(a: &Args, workspace: Option<&Path>, db: Option<&Path>, store: Option<&str>) {
    let limits = bounds::Limits::from_env();
    // Bash snapshots ask the workspace's watcher, started by this binary when none runs.
    #[cfg(target_os = "linux")]
    if let Ok(exe) = std::env::current_exe() {
        rewind_host::watch::launch_with(exe);
    }
    let agent = a.agent.as_str();
    // Where to log until the event says its directory: found from the current one.
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let early = rewind_host::native::locate(&cwd, workspace, db).db;
    let watchdog = bounds::Watchdog::start(limits.timeout, agent, early);
    // A bug must not reach the agent either: no panic message on stderr, no exit 101.
    std::panic::set_hook(Box::new(|_| {}));
    let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle(a, workspace, db, store, limits, &watchdog);
    }));
    if let Err(panic) = handled {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        watchdog.failed(&format!("the hook failed (a bug in rewind): {why}"));
    }
    watchdog.disarm();
}

fn handle(
    a: &Args,
    workspace: Option<&Path>,
    db: Option<&Path>,
    store: Option<&str>,
    limits: bounds::Limits,
    watchdog: &bounds::Watchdog,
) {
    let read = bounds::read_payload(std::io::stdin().lock(), limits.max_stdin);
    let payload = read.and_then(|raw| payload::parse(&raw));
    let cwd = payload
        .as_ref()
        .ok()
        .and_then(|p| p.cwd.clone())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    // The agent's workspace (see `root`); a given workspace made canonical, as the tools'
    // paths are compared with it.
    let given = workspace.map(|w| std::fs::canonicalize(w).unwrap_or_else(|_| w.to_path_buf()));
    let rewind_host::native::Location {
        workspace: root,
        db,
        ..
    } = root::find(a.agent, &cwd, given.as_deref(), db);
    let agent = a.agent.as_str();
    let mut p = match payload {
        Ok(p) => p,
        Err(why) => {
            let event = a.event.as_deref().unwrap_or("?");
            log::line(&db, agent, event, "", &format!("{why}: nothing recorded"));
            return;
        }
    };
    let ev = event::event(a.agent, &p, a.event.as_deref());
    let name = a
        .event
        .clone()
        .or_else(|| p.hook_event_name.clone())
        .unwrap_or_default();
    // Counted once the event is handled, so the first one, which makes the store, counts too.
    let host = p.host.map_or("?", payload::Host::as_str);
    if !admit(&db, agent, &name, &mut p, &ev) {
        seen::note(&db, agent, host, &name);
        return;
    }
    let session = p.session_id.clone().unwrap_or_default();
    watchdog.place(&db, &name, &session);
    watchdog.doing("recording the event");
    let place = root::Place {
        agent: a.agent,
        root,
        db,
        store: store.map(str::to_owned),
        cwd,
        limits,
        notes: std::cell::RefCell::default(),
        original: (a.agent == Agent::ClaudeCode)
            .then(|| p.original_file().map(str::to_owned))
            .flatten(),
    };
    let result = act::act(&place, &p, ev);
    // What was not read (a FIFO, a file over the cap) is told even when the rest was recorded.
    for note in place.notes.take() {
        log::line(&place.db, agent, &name, &session, &note);
    }
    match result {
        Ok(Some(ours)) => {
            if let Err(e) = rewind_host::current::mark(&place.db, &ours) {
                log::line(
                    &place.db,
                    agent,
                    &name,
                    &session,
                    &format!("cannot mark the current session ({e}); the event is recorded"),
                );
            }
        }
        Ok(None) => {}
        Err(why) => {
            // Every line says what cannot be rewound: here, the whole event.
            let lost = if why.ends_with("not recorded") {
                why
            } else {
                format!("{why}: the event is not recorded")
            };
            log::line(&place.db, agent, &name, &session, &lost);
        }
    }
    seen::note(&place.db, agent, host, &name);
}

/// Whether the event is one to record: not ignored, readable, and with a session (a
/// session-less payload gets its synthetic one). What is not is told in `hook.log`, except
/// what is merely ignored.
fn admit(db: &Path, agent: &str, name: &str, p: &mut payload::Payload, ev: &event::Event) -> bool {
    match ev {
        // Not an error: agents send events and tools rewind has nothing to do with.
        event::Event::Ignored(why) => {
            let host = p.host.map_or("?", payload::Host::as_str);
            let tool = p.tool_name.as_deref().unwrap_or_default();
            ignored::line(db, agent, host, name, tool, why);
            return false;
        }
        event::Event::Unreadable(why) => {
            let session = p.session_id.as_deref().unwrap_or_default();
            let host = p.host.map_or("?", payload::Host::as_str);
            let what = format!("{why} (from {host}): nothing recorded");
            log::line(db, agent, name, session, &what);
            return false;
        }
        _ => {}
    }
    if p.session_id.is_none() {
        // Kiro-style: no session id at all. One stable synthetic session per agent and host.
        let host = p.host.map_or("unknown", payload::Host::as_str);
        let renew = matches!(ev, event::Event::Start);
        match synthetic::session(db, agent, host, renew) {
            Ok((id, new)) => {
                if new {
                    let what = format!("the payload has no session_id: recording in {id}");
                    log::line(db, agent, name, &id, &what);
                }
                p.session_id = Some(id);
            }
            Err(why) => {
                let what = format!("the payload has no session_id and {why}: not recorded");
                log::line(db, agent, name, "", &what);
                return false;
            }
        }
    }
    true
}
