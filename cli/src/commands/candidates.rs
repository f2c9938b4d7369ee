//! Dynamic shell completion: the real ids of the current workspace's store, offered when the
//! shell asks (`COMPLETE=bash rewind -- rewind undo ''`, through clap_complete's `CompleteEnv`;
//! the setup line per shell is in the README). Sessions come with their titles, turns as `#N`
//! with the first words of their prompts, operations with what they did, checkpoints with their
//! tool and paths.
//!
//! A completer never writes (the store is opened read-only, which creates nothing), never fails
//! loudly (no store, a store that will not open, a PostgreSQL store: no candidates) and stays
//! cheap: one read-only open and a few indexed reads, at most [`MOST`] candidates.

use super::Verb;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use rewind_core::id::SessionId;
use rewind_host::native::{NativeEngine, Opener};
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The most candidates one completion offers (newest first).
const MOST: usize = 100;

/// Completes a session id (the SESSION argument of every command).
pub(crate) fn sessions() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| complete(current, session_candidates))
}

/// Completes a turn as `#N` (`--to`, `--turn`, `rewind show`).
pub(crate) fn turns() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| complete(current, turn_candidates))
}

/// Completes an operation id (`rewind undo`).
pub(crate) fn operations() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| complete(current, operation_candidates))
}

/// Completes a checkpoint id (`--checkpoint`).
pub(crate) fn checkpoints() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| complete(current, checkpoint_candidates))
}

type Found = Vec<(String, String)>;

/// Open the store read-only and ask `find`; any failure is "no candidates".
fn complete(
    current: &OsStr,
    find: fn(&Words, &NativeEngine, &str) -> Found,
) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let words = Words::of(std::env::args_os());
    let Some(engine) = words.open() else {
        return Vec::new();
    };
    find(&words, &engine, typed)
        .into_iter()
        .take(MOST)
        .map(|(value, help)| CompletionCandidate::new(value).help(Some(help.into())))
        .collect()
}

/// The words of the command line being completed (after `--`), for where the store is and
/// which session the command names.
struct Words {
    words: Vec<String>,
}

impl Words {
    fn of(args: impl Iterator<Item = OsString>) -> Self {
        let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
        let start = args.iter().position(|a| a == "--").map_or(0, |i| i + 1);
        Self {
            words: args[start..].to_vec(),
        }
    }

    /// The value of a global flag (`--db PATH` or `--db=PATH`), else the environment's.
    fn flag(&self, name: &str, env: Option<&str>) -> Option<String> {
        let long = format!("--{name}");
        let eq = format!("{long}=");
        let mut it = self.words.iter();
        while let Some(w) = it.next() {
            if *w == long {
                return it.next().cloned();
            }
            if let Some(v) = w.strip_prefix(&eq) {
                return Some(v.to_owned());
            }
        }
        env.and_then(|e| std::env::var(e).ok())
            .filter(|v| !v.is_empty())
    }

    /// The engine over the store this command line would use, read-only; `None` when there is
    /// none (nothing is created) or it is in PostgreSQL (a server may be slow to answer a shell).
    fn open(&self) -> Option<NativeEngine> {
        if self.flag("store", Some("REWIND_STORE")).is_some() {
            return None;
        }
        let workspace = self.flag("workspace", None).map(PathBuf::from);
        let db = self.flag("db", Some("REWIND_DB")).map(PathBuf::from);
        let cwd = std::env::current_dir().ok()?;
        let place = rewind_host::native::locate(&cwd, workspace.as_deref(), db.as_deref());
        if !place.db.is_file() {
            return None;
        }
        let opened = Opener::new(&place.workspace, &place.db)
            .open(Verb::ListSessions.access())
            .ok()?;
        Some(opened.engine)
    }

    /// The session the command acts on: a whole session id among the words, else the
    /// workspace's current session, else the store's only one.
    fn session(&self, engine: &NativeEngine) -> Option<SessionId> {
        let store = engine.store();
        let named = self
            .words
            .iter()
            .filter_map(|w| w.parse::<SessionId>().ok())
            .find(|id| rewind_core::load::session(store, id).is_ok());
        if named.is_some() {
            return named;
        }
        let located = self.located_db()?;
        if let Some(id) = rewind_host::current::read(&located)
            && rewind_core::load::session(store, &id).is_ok()
        {
            return Some(id);
        }
        match engine.sessions().ok()?.items.as_slice() {
            [only] => Some(only.id.clone()),
            _ => None,
        }
    }

    fn located_db(&self) -> Option<PathBuf> {
        let workspace = self.flag("workspace", None).map(PathBuf::from);
        let db = self.flag("db", Some("REWIND_DB")).map(PathBuf::from);
        let cwd = std::env::current_dir().ok()?;
        Some(rewind_host::native::locate(&cwd, workspace.as_deref(), db.as_deref()).db)
    }
}

/// Whether the id `value` (with its `kind_` prefix) is what `typed` starts: the whole id, or
/// the hex after the prefix as the CLI's short ids show it.
fn matches(value: &str, typed: &str) -> bool {
    value.starts_with(typed)
        || value
            .split_once('_')
            .is_some_and(|(_, hex)| hex.starts_with(typed))
}

/// One line of at most `n` characters of `text`, for a candidate's help.
fn gist(text: &str, n: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = line.chars().filter(|c| !c.is_control()).take(n).collect();
    if line.chars().count() > n {
        out.push('…');
    }
    out
}

fn session_candidates(words: &Words, engine: &NativeEngine, typed: &str) -> Found {
    let Ok(all) = engine.sessions() else {
        return Vec::new();
    };
    let current = words
        .located_db()
        .and_then(|db| rewind_host::current::read(&db));
    all.items
        .iter()
        .rev()
        .filter(|s| matches(s.id.as_str(), typed))
        .map(|s| {
            let mark = if current.as_ref() == Some(&s.id) {
                " (current)"
            } else {
                ""
            };
            (
                s.id.to_string(),
                format!("{} [{}]{mark}", gist(&s.title, 60), s.kind.as_str()),
            )
        })
        .collect()
}

fn turn_candidates(words: &Words, engine: &NativeEngine, typed: &str) -> Found {
    if !typed.is_empty() && !typed.starts_with('#') {
        return Vec::new();
    }
    let Some(session) = words.session(engine) else {
        return Vec::new();
    };
    let Ok(turns) = super::refs::branch_turns(engine, &session) else {
        return Vec::new();
    };
    let store = engine.store();
    let mut out: Found = turns
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("#{}", i + 1), t))
        .filter(|(n, _)| n.starts_with(typed))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .take(MOST)
        .map(|(n, t)| {
            let prompt = rewind_core::ports::Store::message(store, &session, &t.prompt_id)
                .ok()
                .flatten()
                .and_then(|row| serde_json::from_str::<rewind_core::model::Message>(&row.body).ok())
                .map(|m| gist(&m.text(), 60))
                .unwrap_or_default();
            (n, prompt)
        })
        .collect();
    out.reverse();
    out
}

fn operation_candidates(words: &Words, engine: &NativeEngine, typed: &str) -> Found {
    let Some(session) = words.session(engine) else {
        return Vec::new();
    };
    let Ok(ops) = engine.operations(&session) else {
        return Vec::new();
    };
    ops.items
        .iter()
        .rev()
        .filter(|o| matches(o.id.as_str(), typed))
        .map(|o| {
            let files = match o.files.len() {
                0 => String::new(),
                n => format!(", {}", crate::style::count(n, "file")),
            };
            let note = o
                .note
                .as_deref()
                .map(|n| format!(": {}", gist(n, 40)))
                .unwrap_or_default();
            (
                o.id.to_string(),
                format!("{}{files}{note}", o.kind.as_str()),
            )
        })
        .collect()
}

fn checkpoint_candidates(words: &Words, engine: &NativeEngine, typed: &str) -> Found {
    let Some(session) = words.session(engine) else {
        return Vec::new();
    };
    let Ok(all) = engine.checkpoints(&session) else {
        return Vec::new();
    };
    all.iter()
        .rev()
        .filter(|c| matches(c.checkpoint_id.as_str(), typed))
        .map(|c| {
            let paths: Vec<&str> = c.files.iter().map(|f| f.path.as_str()).collect();
            (
                c.checkpoint_id.to_string(),
                format!("{}: {}", c.tool_name, gist(&paths.join(" "), 50)),
            )
        })
        .collect()
}
