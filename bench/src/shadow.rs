//! Shadow git, driven the way Gemini CLI, Cline, Roo and OpenCode keep checkpoints
//! (`git --git-dir=<shadow> --work-tree=<workspace> add -A` then `commit`), and the on-disk
//! sizes both sides are compared by.

use crate::harness::{Result, child_peak_kib, run};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shadow repository, driven as the agents drive theirs.
#[derive(Debug)]
pub struct ShadowGit {
    /// The separate git directory.
    pub git_dir: PathBuf,
    /// The workspace it snapshots.
    pub work_tree: PathBuf,
}

impl ShadowGit {
    /// `git --git-dir … --work-tree …` with identity set and user/system config ignored.
    /// Auto-gc is off so no sample pays for packing the 10,000 loose objects (which favours git).
    pub fn cmd(&self) -> Command {
        let mut c = Command::new("git");
        c.env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .arg(format!("--git-dir={}", self.git_dir.display()))
            .arg(format!("--work-tree={}", self.work_tree.display()))
            .args([
                "-c",
                "user.name=rewind-bench",
                "-c",
                "user.email=bench@example.invalid",
                "-c",
                "gc.auto=0",
                "-c",
                "core.autocrlf=false",
            ])
            .current_dir(&self.work_tree);
        c
    }
    pub fn init(&self) -> Result<()> {
        let _ = std::fs::remove_dir_all(&self.git_dir);
        run(self.cmd().args(["init", "-q"]))?;
        Ok(())
    }
    /// `add -A` + `commit`: two whole processes.
    pub fn snapshot(&self, msg: &str) -> Result<()> {
        run(self.cmd().args(["add", "-A"]))?;
        run(self
            .cmd()
            .args(["commit", "-q", "--allow-empty", "--no-verify", "-m", msg]))?;
        Ok(())
    }
    /// [`Self::snapshot`] with its `add -A` run under `/usr/bin/time -f %M` when that exists
    /// (its fork costs about a millisecond): returns that process's peak RSS in KiB.
    pub fn snapshot_with_peak(&self, msg: &str) -> Result<Option<u64>> {
        let time = Path::new("/usr/bin/time");
        let mut add = self.cmd();
        add.args(["add", "-A"]);
        let peak = if time.exists() {
            let mut c = Command::new(time);
            c.args(["-f", "%M"])
                .arg(add.get_program())
                .args(add.get_args())
                .current_dir(&self.work_tree);
            for (k, v) in add.get_envs() {
                if let Some(v) = v {
                    c.env(k, v);
                }
            }
            let out = run(&mut c)?;
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .and_then(|l| l.trim().parse().ok())
        } else {
            run(&mut add)?;
            None
        };
        run(self
            .cmd()
            .args(["commit", "-q", "--allow-empty", "--no-verify", "-m", msg]))?;
        Ok(peak)
    }
    pub fn head(&self) -> Result<String> {
        let out = run(self.cmd().args(["rev-parse", "HEAD"]))?;
        Ok(String::from_utf8(out.stdout)?.trim().to_owned())
    }
    /// Peak RSS of one `add -A` (the heavier of the two processes) via `/usr/bin/time`.
    pub fn add_peak_kib(&self) -> Option<u64> {
        let args: Vec<OsString> = self
            .cmd()
            .get_args()
            .map(ToOwned::to_owned)
            .chain(["add".into(), "-A".into()])
            .collect();
        let refs: Vec<&std::ffi::OsStr> = args.iter().map(OsString::as_os_str).collect();
        child_peak_kib("git", &refs, &self.work_tree)
    }
}

/// Delete a SQLite database with its WAL and shared-memory files.
pub fn remove_db(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// Bytes of a SQLite database, its WAL and shared-memory file.
pub fn db_bytes(db: &Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let mut p = db.as_os_str().to_owned();
            p.push(suffix);
            std::fs::metadata(PathBuf::from(p)).map_or(0, |m| m.len())
        })
        .sum()
}

/// `du -s` of a directory: (apparent bytes, allocated bytes).
pub fn du(dir: &Path) -> Result<(u64, u64)> {
    let field = |args: &[&str]| -> Result<u64> {
        let out = run(Command::new("du").args(args).arg(dir))?;
        let text = String::from_utf8(out.stdout)?;
        Ok(text.split_whitespace().next().unwrap_or("0").parse()?)
    };
    Ok((field(&["-sb"])?, field(&["-sk"])? * 1024))
}
