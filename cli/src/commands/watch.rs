//! `rewind watch --root DIR`: the workspace's change watcher (`rewind_host::watch`), started
//! detached by the hook when none answers; it exits after ten idle minutes. Hidden: nobody
//! needs to run it by hand.

use super::Report;
use crate::error::CliError;
use std::path::PathBuf;

/// `rewind watch` arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The workspace root to watch.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
}

/// Watch until idle; prints nothing.
pub(crate) fn run(a: &Args) -> Result<Report, CliError> {
    #[cfg(target_os = "linux")]
    if let Ok(root) = std::fs::canonicalize(&a.root) {
        let settings = rewind_host::watch::Settings {
            dir: rewind_host::watch::dir_of(&root.join(".rewind")),
            root,
            idle: rewind_host::watch::IDLE,
            max_paths: rewind_host::watch::MAX_PATHS,
        };
        // A watcher that cannot start leaves every snapshot walking: nothing to report.
        let _ = rewind_host::watch::run(settings);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = a;
    Ok(Report::raw(String::new()))
}
