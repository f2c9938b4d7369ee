//! Where the store is, found like git finds a repository: from the current directory up to the
//! nearest directory holding `.rewind/`, which is then the workspace. `--workspace` and `--db`
//! (or `REWIND_DB`) name them outright. A command that needs recorded data and finds no store
//! says so and how to start one; it never creates one.

use crate::CliError;
use rewind_core::ErrorKind;
use rewind_host::native::default_db_path;
use std::path::{Path, PathBuf};

/// Where a command runs.
#[derive(Debug)]
pub(super) struct Located {
    /// The workspace root.
    pub(super) workspace: PathBuf,
    /// The database file.
    pub(super) db: PathBuf,
    /// How it was found, for the message when there is no store.
    how: How,
}

#[derive(Debug)]
enum How {
    /// Named with `--workspace` or `--db`.
    Given,
    /// Searched for from this directory up; `found` when a `.rewind/` was there.
    Searched { from: PathBuf, found: bool },
}

/// Find the workspace and database (see the module docs).
pub(super) fn locate(workspace: Option<PathBuf>, db: Option<PathBuf>) -> Result<Located, CliError> {
    if let Some(workspace) = workspace {
        let db = db.unwrap_or_else(|| default_db_path(&workspace));
        return Ok(Located {
            workspace,
            db,
            how: How::Given,
        });
    }
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::host(format!("cannot read the current directory: {e}")))?;
    if let Some(db) = db {
        return Ok(Located {
            workspace: cwd,
            db,
            how: How::Given,
        });
    }
    let root = cwd
        .ancestors()
        .find(|dir| holds_store(dir))
        .map(Path::to_path_buf);
    let found = root.is_some();
    let workspace = root.unwrap_or_else(|| cwd.clone());
    Ok(Located {
        db: default_db_path(&workspace),
        workspace,
        how: How::Searched { from: cwd, found },
    })
}

/// The PostgreSQL store `--store` / `REWIND_STORE` names (empty: none); anything but a
/// `postgres://` URL is `invalid_input`.
pub(super) fn store_url(given: Option<String>) -> Result<Option<String>, CliError> {
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

/// `dir/.rewind/` is a directory (a file or link of that name is not a store).
fn holds_store(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".rewind")).is_ok_and(|m| m.is_dir())
}

impl Located {
    /// Whether the database exists.
    pub(super) fn exists(&self) -> bool {
        self.db.exists()
    }

    /// `not_found` for a command that needs recorded data where there is none, saying where it
    /// looked and how to start.
    pub(super) fn missing(&self) -> CliError {
        let start = "start one here with `rewind session new`, or `rewind init <agent>` to \
                     record an agent's sessions";
        let message = match &self.how {
            How::Searched { from, found: false } => format!(
                "there is no rewind store (no .rewind/ in {} or any directory above it); {start}",
                from.display()
            ),
            _ => format!("there is no rewind store at {}; {start}", self.db.display()),
        };
        CliError::new(ErrorKind::NotFound, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_named_rewind_is_not_a_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(".rewind"), b"").expect("write");
        assert!(!holds_store(dir.path()));
        let real = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(real.path().join(".rewind")).expect("mkdir");
        assert!(holds_store(real.path()));
    }
}
