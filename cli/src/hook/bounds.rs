//! A hook never holds up the agent: every read it makes is bounded in size, and the whole hook
//! in time. The payload is read until it is a complete JSON document (an agent that writes it
//! and never closes stdin costs nothing) or the size cap; files are read only when regular (see
//! `disk::read_at_most`). Whatever still blocks (a store locked by another process, a read that
//! hangs) meets the watchdog: past the time limit it says why in `hook.log`, answers `{}` and
//! ends the process. What was committed before stays; nothing half-written does (each record is
//! one transaction, and the pending before-states are replaced atomically).
//!
//! The limits come from the environment, so an agent's settings (or a test) can change them:
//! `REWIND_HOOK_TIMEOUT_MS` (default 10 s), `REWIND_HOOK_MAX_STDIN_BYTES` (16 MiB),
//! `REWIND_HOOK_MAX_TRANSCRIPT_BYTES` (64 MiB, read from the end). Workspace files are capped
//! by the store's `max-file-bytes`.

use super::log;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

const TIMEOUT_MS: u64 = 10_000;
const MAX_STDIN: u64 = 16 << 20;
const MAX_TRANSCRIPT: u64 = 64 << 20;

/// How far a hook may go.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    pub(super) timeout: Duration,
    pub(super) max_stdin: u64,
    pub(super) max_transcript: u64,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

impl Limits {
    pub(super) fn from_env() -> Self {
        Self {
            timeout: Duration::from_millis(env_u64("REWIND_HOOK_TIMEOUT_MS", TIMEOUT_MS)),
            max_stdin: env_u64("REWIND_HOOK_MAX_STDIN_BYTES", MAX_STDIN),
            max_transcript: env_u64("REWIND_HOOK_MAX_TRANSCRIPT_BYTES", MAX_TRANSCRIPT),
        }
    }
}

/// Whether `raw` already holds one whole JSON document (what comes after it is not read).
fn complete(raw: &[u8]) -> bool {
    let mut docs = serde_json::Deserializer::from_slice(raw).into_iter::<serde::de::IgnoredAny>();
    matches!(docs.next(), Some(Ok(_)))
}

/// The payload: read until end of input, or until what was read is a whole JSON document
/// (checked when a read ends in `}`, so a large payload is not parsed at every chunk). More
/// than `cap` bytes is not a hook event. A read that never returns is the watchdog's.
pub(super) fn read_payload(mut input: impl Read, cap: u64) -> Result<Vec<u8>, String> {
    let mut raw = Vec::new();
    let mut chunk = vec![0_u8; 64 << 10];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read the payload: {e}")),
        };
        if n == 0 {
            return Ok(raw);
        }
        raw.extend_from_slice(&chunk[..n]);
        if raw.len() as u64 > cap {
            return Err(format!(
                "the payload is larger than {cap} bytes (REWIND_HOOK_MAX_STDIN_BYTES): not read"
            ));
        }
        let ends_an_object = raw.trim_ascii_end().last() == Some(&b'}');
        if ends_an_object && complete(&raw) {
            return Ok(raw);
        }
    }
}

/// What the hook is doing, for the watchdog's log line.
#[derive(Debug)]
struct State {
    done: bool,
    doing: &'static str,
    db: PathBuf,
    event: String,
    /// The agent's session, once the payload says.
    session: String,
}

/// Ends the hook at its time limit (see the module docs).
#[derive(Debug)]
pub(super) struct Watchdog {
    state: Arc<Mutex<State>>,
    agent: &'static str,
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Watchdog {
    /// Start the clock; `db`: where `hook.log` goes until the event says otherwise.
    pub(super) fn start(limit: Duration, agent: &'static str, db: PathBuf) -> Self {
        let state = Arc::new(Mutex::new(State {
            done: false,
            doing: "reading the payload from stdin",
            db,
            event: "?".to_owned(),
            session: String::new(),
        }));
        let watched = Arc::clone(&state);
        let started = Instant::now();
        std::thread::spawn(move || {
            std::thread::sleep(limit);
            let s = lock(&watched);
            if s.done {
                return;
            }
            let why = format!(
                "stopped after {} ms (the hook's time limit, REWIND_HOOK_TIMEOUT_MS) while {}; \
                 the agent goes on, and what was not yet committed is not recorded",
                started.elapsed().as_millis(),
                s.doing
            );
            log::line(&s.db, agent, &s.event, &s.session, &why);
            // Still holding the lock: the main thread cannot answer too.
            let _ = crate::output::stdout("{}");
            std::process::exit(0);
        });
        Self { state, agent }
    }

    /// What the hook is doing now.
    pub(super) fn doing(&self, what: &'static str) {
        lock(&self.state).doing = what;
    }

    /// The event and the store it is about, once the payload says.
    pub(super) fn place(&self, db: &Path, event: &str, session: &str) {
        let mut s = lock(&self.state);
        s.db = db.to_path_buf();
        s.event = event.to_owned();
        s.session = session.to_owned();
    }

    /// Log `why` about the event being handled.
    pub(super) fn failed(&self, why: &str) {
        let s = lock(&self.state);
        log::line(&s.db, self.agent, &s.event, &s.session, why);
    }

    /// The hook finished in time: the watchdog stays quiet (the caller answers `{}`).
    pub(super) fn disarm(self) {
        lock(&self.state).done = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_document_ends_the_read_and_the_cap_holds() {
        // A reader that would block after the document: its end is never asked for.
        struct Then(Vec<u8>, bool);
        impl Read for Then {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                assert!(!self.1, "read past a whole document");
                self.1 = true;
                buf[..self.0.len()].copy_from_slice(&self.0);
                Ok(self.0.len())
            }
        }
        let doc = br#"{"a": "}"} "#.to_vec();
        assert_eq!(read_payload(Then(doc.clone(), false), 100), Ok(doc));
        let err = read_payload(&b"{\"a\": 1234567890}"[..], 8).expect_err("cap");
        assert!(err.contains("larger than 8 bytes"), "{err}");
        assert_eq!(read_payload(&b"{\"a\""[..], 100), Ok(b"{\"a\"".to_vec()));
    }
}
