//! The watcher's socket. A question is one line, `SINCE <epoch> <seq>` (the token a manifest was
//! tied to; `SINCE 0 0` when none); the answer is `NOTREADY`, or `AT <epoch> <seq>` (the token
//! for a walk that starts now) followed by `ALL` (walk everything) or by one `PATH <rel>` per
//! path changed since the token asked about and `END`.

use super::state::{Shared, lock};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a question waits for the queue to deliver its cookie.
const SYNC: Duration = Duration::from_secs(2);

/// Listen at `dir/sock`; a socket left by a watcher that died is replaced (the caller holds the
/// lock, so no live watcher owns it).
pub(super) fn bind(dir: &Path) -> io::Result<UnixListener> {
    let at = dir.join("sock");
    match std::fs::remove_file(&at) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    UnixListener::bind(at)
}

/// Answer questions, one connection at a time (each is short).
pub(super) fn answer(listener: &UnixListener, dir: &Path, shared: &Shared) {
    let cookies = AtomicU64::new(0);
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let _ = conn.set_read_timeout(Some(SYNC));
        let _ = conn.set_write_timeout(Some(SYNC));
        let _ = one(conn, dir, shared, &cookies);
    }
}

fn one(conn: UnixStream, dir: &Path, shared: &Shared, cookies: &AtomicU64) -> io::Result<()> {
    let mut line = String::new();
    BufReader::new(&conn).read_line(&mut line)?;
    let mut words = line.split_whitespace();
    let asked = match (words.next(), words.next(), words.next()) {
        (Some("SINCE"), Some(e), Some(s)) => e.parse::<u64>().ok().zip(s.parse::<u64>().ok()),
        _ => None,
    };
    lock(shared).asked = Some(Instant::now());
    let mut out = io::BufWriter::new(&conn);
    let Some((epoch, since)) = asked.filter(|_| synced(dir, shared, cookies)) else {
        out.write_all(b"NOTREADY\n")?;
        return out.flush();
    };
    let j = lock(shared);
    if !j.ready {
        out.write_all(b"NOTREADY\n")?;
        return out.flush();
    }
    writeln!(out, "AT {} {}", j.epoch, j.seq)?;
    if epoch != j.epoch || since < j.lost_at || since > j.seq {
        out.write_all(b"ALL\n")?;
        return out.flush();
    }
    let changed: Vec<String> = j
        .changes
        .iter()
        .filter(|(_, n)| **n > since)
        .map(|(p, _)| p.clone())
        .collect();
    drop(j);
    for path in changed {
        writeln!(out, "PATH {path}")?;
    }
    out.write_all(b"END\n")?;
    out.flush()
}

/// Make a cookie file and wait until the inotify queue delivers it: every change made before
/// this question is numbered by then.
fn synced(dir: &Path, shared: &Shared, cookies: &AtomicU64) -> bool {
    if !lock(shared).ready {
        return false;
    }
    let n = cookies.fetch_add(1, Ordering::SeqCst) + 1;
    let at = dir.join(format!("cookie-{n}"));
    if std::fs::write(&at, b"").is_err() {
        return false;
    }
    let deadline = Instant::now() + SYNC;
    let mut j = lock(shared);
    let seen = loop {
        if j.cookies_seen >= n {
            break true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break false;
        }
        j = shared
            .cookie
            .wait_timeout(j, left)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
    };
    drop(j);
    let _ = std::fs::remove_file(&at);
    seen
}
