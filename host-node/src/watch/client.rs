//! Asking a workspace's watcher what changed, and remembering which token each manifest was
//! built after (`tokens`: `<manifest hash> <epoch> <seq>` lines, the newest last). A token file
//! lost to a race between two writers costs one full walk, never a change: a line only ever
//! says something true (the manifest was built by a walk that started after that token).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A point in a watcher's journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Which watcher.
    pub epoch: u64,
    /// The number of the latest change it had seen.
    pub seq: u64,
}

/// Tokens kept in `tokens` (one per recent manifest; sessions of a workspace share them).
const KEPT: usize = 64;

/// How long a question may take before the snapshot walks instead.
const PATIENCE: Duration = Duration::from_secs(3);

/// One workspace's connection to its watcher.
#[derive(Clone, Debug)]
pub struct Client {
    root: PathBuf,
    dir: PathBuf,
    /// The token of the walk about to run (from the last question).
    pending: Option<Token>,
}

impl Client {
    /// For the workspace at the canonical `root`, whose watcher files are in `dir`.
    pub fn new(root: &Path, dir: PathBuf) -> Self {
        Self {
            root: root.to_path_buf(),
            dir,
            pending: None,
        }
    }

    /// The paths (relative to the root) that may have changed since the manifest `manifest`
    /// was built; `None`: the watcher cannot say, walk everything. Either way, a token for the
    /// walk that follows is kept for [`Client::vouch`]. Starts a watcher when none answers and
    /// this process may (`watch::launch_with`).
    pub fn changed_since(&mut self, manifest: Option<&str>) -> Option<Vec<String>> {
        self.pending = None;
        let since = manifest.and_then(|m| self.token_of(m));
        let Ok(conn) = UnixStream::connect(self.dir.join("sock")) else {
            self.launch();
            return None;
        };
        let (token, paths) = ask(conn, since.unwrap_or(Token { epoch: 0, seq: 0 }))?;
        self.pending = Some(token);
        paths
    }

    /// The manifest `manifest` was just built (or found unchanged) by the walk that followed the
    /// last question: tie it to that question's token.
    pub fn vouch(&mut self, manifest: &str) {
        let Some(t) = self.pending.take() else { return };
        let path = self.dir.join("tokens");
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines: Vec<&str> = old
            .lines()
            .filter(|l| l.split(' ').next() != Some(manifest))
            .collect();
        let new = format!("{manifest} {} {}", t.epoch, t.seq);
        lines.push(&new);
        let from = lines.len().saturating_sub(KEPT);
        let text = lines[from..].join("\n") + "\n";
        let _ = crate::disk::write_own_file(&path, text.as_bytes());
    }

    fn token_of(&self, manifest: &str) -> Option<Token> {
        let text = std::fs::read_to_string(self.dir.join("tokens")).ok()?;
        let line = text
            .lines()
            .rev()
            .find(|l| l.split(' ').next() == Some(manifest))?;
        let mut words = line.split(' ').skip(1);
        Some(Token {
            epoch: words.next()?.parse().ok()?,
            seq: words.next()?.parse().ok()?,
        })
    }

    /// Start a watcher, detached (its own process group, no stdio), when this process may.
    fn launch(&self) {
        let Some(program) = super::launcher() else {
            return;
        };
        use std::os::unix::process::CommandExt;
        let _ = std::process::Command::new(program)
            .arg("watch")
            .arg("--root")
            .arg(&self.root)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn();
    }
}

/// One question: the token for the walk that follows, and the changed paths (`None`: all).
fn ask(conn: UnixStream, since: Token) -> Option<(Token, Option<Vec<String>>)> {
    conn.set_read_timeout(Some(PATIENCE)).ok()?;
    conn.set_write_timeout(Some(PATIENCE)).ok()?;
    (&conn)
        .write_all(format!("SINCE {} {}\n", since.epoch, since.seq).as_bytes())
        .ok()?;
    let mut lines = BufReader::new(&conn).lines();
    let first = lines.next()?.ok()?;
    let mut words = first.split(' ');
    if words.next() != Some("AT") {
        return None;
    }
    let token = Token {
        epoch: words.next()?.parse().ok()?,
        seq: words.next()?.parse().ok()?,
    };
    let mut paths = Vec::new();
    for line in lines {
        let line = line.ok()?;
        if line == "ALL" {
            return Some((token, None));
        }
        if line == "END" {
            return Some((token, Some(paths)));
        }
        paths.push(line.strip_prefix("PATH ")?.to_owned());
    }
    // Cut short: the walk's token stands, the list does not.
    Some((token, None))
}
