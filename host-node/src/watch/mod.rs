//! The change journal: one watcher process per workspace (`rewind watch`, started on demand by
//! the Bash hook, detached, shared by every rewind process of the workspace) that keeps an
//! inotify watch on every directory a snapshot may walk and numbers what changed. A snapshot
//! asks it "what changed since the token of the manifest I start from"; when the answer is a
//! short list, only those paths are walked and every other entry of the previous manifest is
//! kept as it was. Whenever the watcher cannot vouch — not running, still adding its watches,
//! a token from another watcher or from before an overflow (`IN_Q_OVERFLOW`), a lost watch, a
//! directory moved, an ignore file changed, too many paths — the answer is "everything" and the
//! snapshot walks the whole tree as it always did.
//!
//! Why this is exact: a token is handed out only after a sync point (the watcher creates a
//! cookie file and waits until its own inotify queue delivers it, so every change made before
//! the question is already numbered), and a manifest is tied to the token taken *before* the
//! walk that built it. A change after that token has a higher number, so it is listed next
//! time; a change the watcher could not number (its queue overflowed, a watch was lost) moves
//! `lost_at` past every token handed out before it. New directories are watched before their
//! creation is numbered, and a created directory is walked whole, so files made in it before
//! its watch existed are found by that walk.
//!
//! Files: `.rewind/watch/` holds the socket (`sock`), the lock that makes one watcher per
//! workspace (`lock`), cookie files while a sync runs, and `tokens` (manifest hash → token).
//! Linux only (inotify); elsewhere no watcher runs and every snapshot walks.

#[cfg(target_os = "linux")]
mod daemon;
#[cfg(target_os = "linux")]
mod serve;
#[cfg(target_os = "linux")]
mod state;

mod client;

pub use client::{Client, Token};
#[cfg(target_os = "linux")]
pub use daemon::{Settings, run};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// The directory of a workspace's watcher files, under its store directory.
pub fn dir_of(store_dir: &Path) -> PathBuf {
    store_dir.join("watch")
}

/// How long a watcher nobody asked lives on.
pub const IDLE: Duration = Duration::from_secs(10 * 60);

/// Changed paths a watcher holds before it gives up listing them (the next snapshot walks).
pub const MAX_PATHS: usize = 20_000;

/// The program a client starts as `<program> watch --root <root>` when no watcher answers;
/// set by the CLI (a library host starts none, but uses one that runs).
static LAUNCHER: OnceLock<PathBuf> = OnceLock::new();

/// Let clients of this process start a watcher with `program` when none runs.
pub fn launch_with(program: PathBuf) {
    let _ = LAUNCHER.set(program);
}

/// Whether this process may start a watcher (the CLI's hook said so).
pub fn launching() -> bool {
    LAUNCHER.get().is_some()
}

fn launcher() -> Option<&'static Path> {
    LAUNCHER.get().map(PathBuf::as_path)
}

/// Whether the person turned the watcher off with `REWIND_WATCH=0` (or `off`, `false`).
pub fn disabled_by_env() -> bool {
    std::env::var("REWIND_WATCH").is_ok_and(|v| matches!(v.trim(), "0" | "off" | "false" | "no"))
}
