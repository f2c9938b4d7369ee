//! The files one install touches, whatever their format: read them, say what changes (a unified
//! diff for `--dry-run`), and write them, a file the person had kept as `<name>.rewind-backup`.

use crate::commands::CliError;
use rewind_core::ErrorKind;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One file's change: its text before (`None`: there was none) and after (`None`: it goes).
#[derive(Debug)]
pub(super) struct Change {
    pub(super) path: PathBuf,
    pub(super) before: Option<String>,
    pub(super) after: Option<String>,
    /// The file is wholly rewind's (a plugin, a hook script, Copilot's `rewind.json`): it gets
    /// no backup, and `--remove` deletes it.
    pub(super) owned: bool,
    /// Written with the execute bits (Cline runs each hook file as a program).
    pub(super) executable: bool,
}

impl Change {
    /// A change to a settings file the person shares with rewind.
    pub(super) fn shared(path: PathBuf, before: Option<String>, after: Option<String>) -> Self {
        Self {
            path,
            before,
            after,
            owned: false,
            executable: false,
        }
    }

    pub(super) fn changed(&self) -> bool {
        self.before != self.after
    }
}

/// The file's text, `None` when there is none.
pub(super) fn read(path: &Path) -> Result<Option<String>, CliError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| refuse(path, &format!("not UTF-8 text ({e})"))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::host(format!(
            "cannot read {}: {}",
            path.display(),
            rewind_host::disk::describe(&e)
        ))),
    }
}

pub(super) fn refuse(path: &Path, why: &str) -> CliError {
    CliError::new(
        ErrorKind::InvalidInput,
        format!(
            "cannot change {}: {why}; nothing was changed",
            path.display()
        ),
    )
}

/// Write one change: back up the person's previous file, then replace it atomically (or
/// delete it). Returns the backup's path.
pub(super) fn apply(change: &Change) -> Result<Option<PathBuf>, CliError> {
    let path = &change.path;
    let Some(after) = &change.after else {
        return match fs::remove_file(path) {
            Ok(()) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CliError::host(format!(
                "cannot remove {}: {}",
                path.display(),
                rewind_host::disk::describe(&e)
            ))),
        };
    };
    let host = |e: rewind_core::HostError| CliError::host(e.to_string());
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| {
        CliError::host(format!(
            "cannot create {}: {}",
            dir.display(),
            rewind_host::disk::describe(&e)
        ))
    })?;
    // A settings file that is a symlink (dotfiles) stays one: write where it points.
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path)
            .map_err(|e| CliError::host(format!("cannot follow {}: {e}", path.display())))?,
        _ => path.clone(),
    };
    let backup = match (&change.before, change.owned) {
        (Some(text), false) => {
            let mut name = path.file_name().unwrap_or_default().to_owned();
            name.push(".rewind-backup");
            let backup = path.with_file_name(name);
            let like = fs::metadata(&target).ok();
            rewind_host::disk::write_file_like(&backup, text.as_bytes(), like.as_ref())
                .map_err(host)?;
            Some(backup)
        }
        _ => None,
    };
    rewind_host::disk::write_own_file(&target, after.as_bytes()).map_err(host)?;
    if change.executable {
        make_executable(&target)?;
    }
    Ok(backup)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), CliError> {
    use std::os::unix::fs::PermissionsExt;
    let fail =
        |e: io::Error| CliError::host(format!("cannot make {} executable: {e}", path.display()));
    let mut mode = fs::metadata(path).map_err(fail)?.permissions();
    mode.set_mode(mode.mode() | 0o755);
    fs::set_permissions(path, mode).map_err(fail)
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), CliError> {
    Ok(())
}

/// The change as a unified diff ("" when there is none).
pub(super) fn unified_diff(change: &Change) -> String {
    if !change.changed() {
        return String::new();
    }
    let shown = change.path.display().to_string();
    let name = |text: &Option<String>| match text {
        Some(_) => shown.clone(),
        None => "/dev/null".to_owned(),
    };
    similar::TextDiff::from_lines(
        change.before.as_deref().unwrap_or(""),
        change.after.as_deref().unwrap_or(""),
    )
    .unified_diff()
    .context_radius(3)
    .header(&name(&change.before), &name(&change.after))
    .to_string()
}
