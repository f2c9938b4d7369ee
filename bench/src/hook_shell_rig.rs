//! The anchors of the Bash hook scenario (`hook_shell`) on the shell scenario's cached trees: a
//! real git repository of the tree (`.git` in it, as a person has it; committed once and cached,
//! `core.untrackedCache=true`), `git status` plain and with git's `fsmonitor-watchman` sample
//! hook (when watchman is installed), and a shadow repository for `add -A` + `commit`. Also
//! stopping the `rewind watch` process the hooks started, so no watcher outlives the scenario.

use crate::harness::{Result, run};
use crate::shadow::ShadowGit;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The tree's own repository and what `git status` needs to run against it.
#[derive(Debug)]
pub(crate) struct Repo {
    pub(crate) root: PathBuf,
    /// The fsmonitor hook, when watchman is installed.
    pub(crate) fsmonitor: Option<PathBuf>,
    /// Why there is no fsmonitor row, when there is none.
    pub(crate) no_fsmonitor: Option<String>,
}

/// `git` in `root`, user and system config ignored, identity set.
fn git(root: &Path) -> Command {
    let mut c = Command::new("git");
    c.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args([
            "-c",
            "user.name=rewind-bench",
            "-c",
            "user.email=bench@example.invalid",
        ])
        .args(["-c", "gc.auto=0"])
        .current_dir(root);
    c
}

fn watchman_installed() -> bool {
    Command::new("watchman")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Make (once, cached by `marker`) the tree a git repository with everything committed, and the
/// shadow repository with a first snapshot; then warm both `git status` variants.
pub(crate) fn prepare(root: &Path, marker: &Path, shadow: &ShadowGit) -> Result<Repo> {
    if !marker.exists() {
        eprintln!(
            "bench: hook-shell: committing {} into git (cached)",
            root.display()
        );
        let _ = std::fs::remove_dir_all(root.join(".git"));
        run(git(root).args(["init", "-q"]))?;
        run(git(root).args(["config", "core.untrackedCache", "true"]))?;
        run(git(root).args(["add", "-A"]))?;
        run(git(root).args(["commit", "-q", "-m", "the tree"]))?;
        shadow.init()?;
        shadow.snapshot("first")?;
        std::fs::write(marker, "")?;
    }
    let sample = root.join(".git/hooks/fsmonitor-watchman.sample");
    let (fsmonitor, no_fsmonitor) = if !watchman_installed() {
        (None, Some("watchman is not installed".to_owned()))
    } else if !sample.exists() {
        (None, Some(format!("{} is missing", sample.display())))
    } else {
        let hook = root.join(".git/hooks/query-watchman");
        std::fs::copy(&sample, &hook)?;
        run(Command::new("watchman")
            .arg("watch-project")
            .arg(root)
            .stdout(Stdio::null()))?;
        // The fsmonitor status keeps an index of its own, so the plain status (which drops
        // the fsmonitor extension when it writes the index) never makes it cold.
        std::fs::copy(root.join(".git/index"), root.join(".git/index-fsmonitor"))?;
        (Some(hook), None)
    };
    let repo = Repo {
        root: root.to_path_buf(),
        fsmonitor,
        no_fsmonitor,
    };
    // Warm: the index refreshed, the untracked cache filled, watchman's clock in the index.
    for _ in 0..3 {
        repo.status(false)?;
        if repo.fsmonitor.is_some() {
            repo.status(true)?;
        }
    }
    Ok(repo)
}

impl Repo {
    /// `git status` as a person types it (output discarded), with the fsmonitor hook or without.
    pub(crate) fn status(&self, fsmonitor: bool) -> Result<()> {
        let mut c = git(&self.root);
        match (&self.fsmonitor, fsmonitor) {
            (Some(hook), true) => {
                c.env("GIT_INDEX_FILE", self.root.join(".git/index-fsmonitor"))
                    .arg("-c")
                    .arg(format!("core.fsmonitor={}", hook.display()))
                    .args(["-c", "core.fsmonitorHookVersion=2"]);
            }
            (None, true) => return Err("no fsmonitor hook".into()),
            (_, false) => {
                c.args(["-c", "core.fsmonitor=false"]);
            }
        }
        run(c.arg("status").stdout(Stdio::null()))?;
        Ok(())
    }

    /// Stop watchman watching the tree (the daemon itself is left as it was).
    pub(crate) fn unwatch(&self) {
        if self.fsmonitor.is_some() {
            let _ = Command::new("watchman")
                .arg("watch-del")
                .arg(&self.root)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Stop every `rewind watch --root <root>` process (the hooks started it, detached), by pid.
pub(crate) fn stop_watchers(root: &Path) {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    for p in procs.flatten() {
        let name = p.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(p.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        let ours = args.len() >= 4
            && args[0].ends_with(b"rewind")
            && args[1] == b"watch"
            && args[2] == b"--root"
            && OsStr::new(std::str::from_utf8(args[3]).unwrap_or("")) == root.as_os_str();
        if ours {
            let _ = Command::new("kill").arg(pid).status();
        }
    }
}
