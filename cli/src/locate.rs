//! The global flags that say where the store is (`--workspace`, `--db` / `REWIND_DB`,
//! `--store` / `REWIND_STORE`), turned into a place by the one rule every front end uses
//! (`rewind_host::native::locate`: the nearest `.rewind/` from the current directory up). A
//! command that needs recorded data and finds no store says so and how to start one; it never
//! creates one.

use crate::CliError;
use rewind_core::ErrorKind;
use rewind_host::native::{Found, Location};
use std::path::PathBuf;

/// Where a command runs.
#[derive(Debug)]
pub(crate) struct Located {
    /// The workspace root.
    pub(crate) workspace: PathBuf,
    /// The database file.
    pub(crate) db: PathBuf,
    /// How it was found, for the message when there is no store.
    found: Found,
}

/// Find the workspace and database from the current directory (see the module docs).
pub(crate) fn locate(workspace: Option<PathBuf>, db: Option<PathBuf>) -> Result<Located, CliError> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::host(format!("cannot read the current directory: {e}")))?;
    let Location {
        workspace,
        db,
        found,
    } = rewind_host::native::locate(&cwd, workspace.as_deref(), db.as_deref());
    Ok(Located {
        workspace,
        db,
        found,
    })
}

/// The PostgreSQL store `--store` / `REWIND_STORE` names (empty: none); anything but a
/// `postgres://` URL is `invalid_input`.
pub(crate) fn store_url(given: Option<String>) -> Result<Option<String>, CliError> {
    match given.filter(|s| !s.is_empty()) {
        Some(s) if !rewind_host::native::is_postgres_url(&s) => Err(CliError::new(
            ErrorKind::InvalidInput,
            format!(
                "--store {:?} is not a postgres:// URL; the SQLite store is the default (its \
                 file is --db)",
                rewind_host::postgres::redact(&s)
            ),
        )),
        store => Ok(store),
    }
}

impl Located {
    /// Whether the database exists.
    pub(crate) fn exists(&self) -> bool {
        self.db.exists()
    }

    /// `not_found` for a command that needs recorded data where there is none, saying where it
    /// looked and how to start.
    pub(crate) fn missing(&self) -> CliError {
        let start = "start one here with `rewind session new`, or `rewind init <agent>` to \
                     record an agent's sessions";
        let message = match &self.found {
            Found::Searched { from, found: false } => format!(
                "there is no rewind store (no .rewind/ in {} or any directory above it); {start}",
                from.display()
            ),
            _ => format!("there is no rewind store at {}; {start}", self.db.display()),
        };
        CliError::new(ErrorKind::NotFound, message)
    }
}
