//! Host settings kept next to the database (`config.json`): recording limits and retention
//! defaults. Missing file = defaults; every field is optional.

use rewind_core::HostError;
use rewind_core::ctx::Limits;
use rewind_core::gc;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// Files larger than this are recorded as failed captures (`too_large`).
    pub max_file_bytes: u64,
    /// Content bytes one session may reference (`quota_exceeded` past it); `null`: no quota.
    pub session_quota_bytes: Option<u64>,
    /// gc keeps the newest N checkpoints of each session.
    pub keep: usize,
    /// gc drops sessions idle for longer than this many days; `null`: never.
    pub older_than_days: Option<u64>,
    /// Let a rewind write inside `.git` directories (refused by default: git's internals are
    /// not the agent's files).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_git_writes: bool,
    /// Snapshots also track files `.gitignore` ignores in walked directories (`.env`, `*.pem`)
    /// up to `ignored_file_max_bytes`; `false`: they track only what the ignore rules leave.
    #[serde(default = "yes")]
    pub track_ignored_files: bool,
    /// The size cap of those ignored files.
    #[serde(default = "ignored_cap")]
    pub ignored_file_max_bytes: u64,
    /// The CLI's pager (git's `core.pager`): a command line run by `sh -c`; `""` or `cat`: no
    /// pager. Unset: `$PAGER`, else `less` (with `LESS=FRX`). `$REWIND_PAGER` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pager: Option<String>,
    /// Hooks start a watcher (`rewind watch`) so Bash snapshots walk only what changed;
    /// `false` (or `REWIND_WATCH=0`): every snapshot walks the whole tree.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub watch_changes: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

fn ignored_cap() -> u64 {
    crate::disk::IGNORED_FILE_MAX_BYTES
}

impl Default for Config {
    fn default() -> Self {
        let limits = Limits::default();
        let retention = gc::Options::default();
        Self {
            max_file_bytes: limits.max_file_bytes,
            session_quota_bytes: limits.session_quota_bytes,
            keep: retention.keep,
            older_than_days: retention.older_than_days,
            allow_git_writes: false,
            track_ignored_files: true,
            ignored_file_max_bytes: ignored_cap(),
            pager: None,
            watch_changes: true,
        }
    }
}

impl Config {
    /// `config.json` beside the database.
    pub fn path_for(db: &Path) -> PathBuf {
        db.with_file_name("config.json")
    }

    /// Read it (defaults when absent).
    pub fn load(db: &Path) -> Result<Self, HostError> {
        let path = Self::path_for(db);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                HostError::io(format!(
                    "{} is not a valid rewind config: {e}",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(HostError::io(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }

    /// Write it (temp file + rename, like every other write of ours).
    pub fn save(&self, db: &Path) -> Result<(), HostError> {
        let path = Self::path_for(db);
        let text = serde_json::to_vec_pretty(self)
            .map_err(|e| HostError::io(format!("cannot encode the config: {e}")))?;
        crate::disk::write_own_file(&path, &text)
    }

    /// The recording limits.
    pub fn limits(&self) -> Limits {
        Limits {
            max_file_bytes: self.max_file_bytes,
            session_quota_bytes: self.session_quota_bytes,
        }
    }

    /// Whether snapshots ask a watcher: on in config, not turned off by `REWIND_WATCH=0`, and
    /// in a process that may start one (the hook).
    pub fn watching(&self) -> bool {
        #[cfg(unix)]
        return self.watch_changes && !crate::watch::disabled_by_env() && crate::watch::launching();
        #[cfg(not(unix))]
        false
    }

    /// The size cap of the ignored files a snapshot tracks (`None`: none are).
    pub fn ignored_files_cap(&self) -> Option<u64> {
        self.track_ignored_files
            .then_some(self.ignored_file_max_bytes)
    }

    /// The retention defaults.
    pub fn retention(&self) -> gc::Options {
        gc::Options {
            keep: self.keep,
            older_than_days: self.older_than_days,
            older_than_ms: None,
        }
    }
}
