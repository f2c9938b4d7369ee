//! Where the store is, found the one way every front end finds it (the CLI, `rewind hook`,
//! `rewind serve`, the Node addon): like git finds a repository, from a directory up to the
//! nearest one holding `.rewind/`, which is then the workspace. A workspace or database named
//! outright (`--workspace`, `--db` / `REWIND_DB`, a request's workspace) wins over the search.
//!
//! A `.rewind` that is a symbolic link counts when it leads to a directory: the store is then
//! wherever the link points. That is safe for the same reason a store copied from elsewhere
//! is: the store records which workspace and user it belongs to, and one that belongs to
//! another stays read-only for this workspace until `rewind trust` (see `trust`). A server
//! confined to its roots additionally refuses a link that leads out of them.

use super::default_db_path;
use std::path::{Path, PathBuf};

/// Where a front end runs: the workspace root and its database file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The workspace root (canonical when it exists).
    pub workspace: PathBuf,
    /// The database file.
    pub db: PathBuf,
    /// How the workspace was found.
    pub found: Found,
}

/// How a [`Location`] was found, for the message when there is no store there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The workspace or the database was named outright.
    Given,
    /// Searched for from `from` up; `found` when a `.rewind/` was there.
    Searched {
        /// Where the search started.
        from: PathBuf,
        /// Whether a directory holding `.rewind/` was found.
        found: bool,
    },
}

/// Find the workspace and database (see the module docs): `workspace` when given (as it is
/// given), else the nearest directory at or above `start` holding `.rewind/`, else `start`
/// (both made canonical when they exist: the search walks real directories); `db` when
/// given, else `<workspace>/.rewind/rewind.db`.
pub fn locate(start: &Path, workspace: Option<&Path>, db: Option<&Path>) -> Location {
    let (workspace, found) = match workspace {
        Some(w) => (w.to_path_buf(), Found::Given),
        None => {
            let from = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
            let root = from
                .ancestors()
                .find(|d| holds_store(d))
                .map(Path::to_path_buf);
            let found = match db {
                Some(_) => Found::Given,
                None => Found::Searched {
                    from: from.clone(),
                    found: root.is_some(),
                },
            };
            (root.unwrap_or(from), found)
        }
    };
    Location {
        db: db.map_or_else(|| default_db_path(&workspace), Path::to_path_buf),
        workspace,
        found,
    }
}

/// `dir/.rewind` is a directory, itself or through a symbolic link (a file of that name, or a
/// link to one or to nothing, is not a store).
pub fn holds_store(dir: &Path) -> bool {
    dir.join(".rewind").is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("tempdir")
    }

    #[test]
    fn the_nearest_store_above_is_the_workspace() {
        let d = dir();
        let root = std::fs::canonicalize(d.path()).expect("canonical");
        std::fs::create_dir_all(root.join(".rewind")).expect("mkdir");
        std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
        let at = locate(&root.join("a/b"), None, None);
        assert_eq!(at.workspace, root);
        assert_eq!(at.db, root.join(".rewind/rewind.db"));
        assert!(matches!(at.found, Found::Searched { found: true, .. }));
    }

    #[test]
    fn without_a_store_the_start_is_the_workspace() {
        let d = dir();
        let root = std::fs::canonicalize(d.path()).expect("canonical");
        std::fs::write(root.join(".rewind"), b"").expect("a file, not a store");
        let at = locate(&root, None, None);
        assert_eq!(at.workspace, root);
        assert!(matches!(at.found, Found::Searched { found: false, .. }));
    }

    #[test]
    fn a_named_workspace_or_database_wins() {
        let (d, e) = (dir(), dir());
        let root = std::fs::canonicalize(d.path()).expect("canonical");
        std::fs::create_dir_all(root.join(".rewind")).expect("mkdir");
        let other = std::fs::canonicalize(e.path()).expect("canonical");
        let at = locate(&root, Some(&other), None);
        assert_eq!((at.workspace, at.found), (other.clone(), Found::Given));
        let db = other.join("x.db");
        let at = locate(&root, None, Some(&db));
        assert_eq!((at.workspace, at.db, at.found), (root, db, Found::Given));
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_store_directory_counts_and_a_dangling_link_does_not() {
        let (d, e) = (dir(), dir());
        let root = std::fs::canonicalize(d.path()).expect("canonical");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::os::unix::fs::symlink(e.path(), root.join(".rewind")).expect("symlink");
        assert!(holds_store(&root));
        assert_eq!(locate(&root.join("sub"), None, None).workspace, root);
        drop(e);
        assert!(!holds_store(&root), "a link to nothing is no store");
    }
}
