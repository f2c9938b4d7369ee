//! What every command sees: where the store is, how to print, and the session it acts on.

use super::refs;
use crate::{CliError, output, style};
use rewind_core::ErrorKind;
use rewind_core::id::SessionId;
use rewind_host::native::{Access, NativeEngine, Opened, Opener, Verb};
use std::path::PathBuf;

/// Global settings every command sees.
#[derive(Debug)]
pub(crate) struct Context {
    pub(crate) workspace: PathBuf,
    pub(crate) db: PathBuf,
    /// The PostgreSQL store, when the records are not in `db`.
    pub(crate) store: Option<String>,
    /// There is no store, and the command may not start one: why, with how to start one.
    pub(crate) no_store: Option<CliError>,
    pub(crate) json: bool,
    /// How text is formatted (colour, times).
    pub(crate) style: style::Style,
    /// Whether the command opened the store to change it (id prefixes must then be longer).
    pub(crate) changing: std::cell::Cell<bool>,
    /// A command whose output follows the session (`log`) may write it as it reads it, through
    /// the output writer, instead of returning it whole: not when another front end (`rewind
    /// mcp`) runs it for the report.
    pub(crate) streams: bool,
}

impl Context {
    /// How ids typed for this command are looked up in `engine` (see [`refs::Lookup`]).
    pub(crate) fn lookup<'a>(&self, engine: &'a NativeEngine) -> refs::Lookup<'a> {
        refs::Lookup {
            engine,
            changing: self.changing.get(),
        }
    }

    /// Open the engine with exactly the rights `verb` needs (see [`Verb::access`]). Warnings
    /// about journals go to stderr; they never stop the command.
    pub(crate) fn engine(&self, verb: Verb) -> Result<NativeEngine, CliError> {
        let opened = self.open(verb)?;
        if !self.json {
            for r in &opened.recovered.recovered {
                output::warn(&format!(
                    "recovered interrupted apply {} ({:?}): {} restored",
                    r.journal_id,
                    r.action,
                    style::count(r.restored_paths.len(), "path")
                ));
            }
        }
        for w in &opened.warnings {
            output::warn(w);
        }
        Ok(opened.engine)
    }

    /// Open for `verb` (see [`Opener::open`]), reporting what opening settled to the command.
    pub(crate) fn open(&self, verb: Verb) -> Result<Opened, CliError> {
        // Nothing to act on: read (an empty store) rather than create one.
        let access = if self.no_store.is_some() {
            Access::Read
        } else {
            verb.access()
        };
        self.changing.set(access != Access::Read);
        Opener::new(&self.workspace, &self.db)
            .on_store(self.store.clone())
            .open(access)
            .map_err(CliError::open)
    }

    /// The session a command acts on: the one given; else the workspace's current session
    /// (`rewind session new` / `use`, or the agent hooks, set it) while it still exists; else the
    /// store's only session. Anything else is `invalid_input`, saying what to do.
    pub(crate) fn session(
        &self,
        engine: &NativeEngine,
        arg: &SessionArg,
    ) -> Result<SessionId, CliError> {
        if let Some(missing) = &self.no_store {
            return Err(match &arg.session {
                Some(given) => CliError::new(
                    ErrorKind::NotFound,
                    format!("session {given} not found: {}", missing.message()),
                ),
                None => CliError::new(
                    ErrorKind::InvalidInput,
                    format!("no session given and {}", missing.message()),
                ),
            });
        }
        if let Some(given) = &arg.session {
            return refs::session(self.lookup(engine), given);
        }
        let stale = match rewind_host::current::read(&self.db) {
            Some(id) => match rewind_core::load::session(engine.store(), &id) {
                Err(e) if e.kind() == ErrorKind::NotFound => Some(id),
                // Present (or unreadable, which the command itself reports).
                _ => return Ok(id),
            },
            None => None,
        };
        let sessions = engine.sessions()?;
        if let ([only], []) = (sessions.items.as_slice(), sessions.diagnostics.as_slice()) {
            return Ok(only.id.clone());
        }
        let why = match stale {
            Some(id) => format!("the current session {id} no longer exists"),
            None => "there is no current session".to_owned(),
        };
        let what = match sessions.items.len() + sessions.diagnostics.len() {
            0 => "the store has no sessions yet; start one with `rewind session new`".to_owned(),
            n => format!(
                "the store has {n} sessions; give one (see `rewind session list`) or pick the \
                 current one with `rewind session use <SESSION>`"
            ),
        };
        Err(CliError::new(
            ErrorKind::InvalidInput,
            format!("no session given and {why}: {what}"),
        ))
    }
}

/// The SESSION argument of every command that acts on one; optional (see [`Context::session`]).
#[derive(Debug, clap::Args)]
pub(crate) struct SessionArg {
    /// The session (default: the current one, see `rewind session use`; or the store's only one).
    #[arg(value_name = "SESSION", add = super::candidates::sessions())]
    pub(crate) session: Option<String>,
}

/// Parse an id argument with a clear error.
pub(crate) fn parse_id<T: std::str::FromStr<Err = rewind_core::id::IdError>>(
    s: &str,
) -> Result<T, CliError> {
    s.parse().map_err(|e: rewind_core::id::IdError| {
        CliError::new(ErrorKind::InvalidInput, e.to_string())
    })
}
