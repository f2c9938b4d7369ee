//! A session for payloads that name none (Kiro CLI sends no session id): one stable synthetic
//! id per agent and host in each store (so per workspace), kept in `hook-sessions/` beside the
//! database. It is renewed when the host starts a session and after eight hours without an
//! event (the person has moved on); otherwise every event joins the same session, as the
//! person sees it. Minted and refreshed under a file lock, so two hooks at once agree.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const DIR: &str = "hook-sessions";
/// An idle gap after which the next event starts a new session.
pub(super) const IDLE: Duration = Duration::from_secs(8 * 3600);

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Kept {
    id: String,
    last_seen_ms: u64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn file(db: &Path, agent: &str, host: &str) -> PathBuf {
    let dir = db.parent().unwrap_or(Path::new(".")).join(DIR);
    dir.join(format!("{agent}-{host}.json"))
}

/// The synthetic session of `agent` run by `host`: the kept one, unless `renew` (a session
/// start) or it has been idle longer than `IDLE`; and whether it is new.
pub(super) fn session(
    db: &Path,
    agent: &str,
    host: &str,
    renew: bool,
) -> Result<(String, bool), String> {
    let path = file(db, agent, host);
    let dir = path.parent().expect("has a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock_path = path.with_extension("lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let now = now_ms();
    let idle = u64::try_from(IDLE.as_millis()).unwrap_or(u64::MAX);
    let kept = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Kept>(&b).ok())
        .filter(|k| !renew && now.saturating_sub(k.last_seen_ms) <= idle);
    let (id, new) = match kept {
        Some(k) => (k.id, false),
        None => (
            format!("synthetic-{agent}-{host}-{now:x}-{:x}", std::process::id()),
            true,
        ),
    };
    let body = serde_json::to_vec(&Kept {
        id: id.clone(),
        last_seen_ms: now,
    })
    .map_err(|e| e.to_string())?;
    rewind_host::disk::write_own_file(&path, &body).map_err(|e| e.to_string())?;
    Ok((id, new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_until_renewed_or_idle() {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("rewind.db");
        let (a, new) = session(&db, "claude-code", "kiro", false).expect("minted");
        assert!(new);
        assert_eq!(
            session(&db, "claude-code", "kiro", false),
            Ok((a.clone(), false))
        );
        let (other, _) = session(&db, "codex", "kiro", false).expect("minted");
        assert_ne!(other, a, "per agent");
        std::thread::sleep(Duration::from_millis(2));
        let (renewed, new) = session(&db, "claude-code", "kiro", true).expect("renewed");
        assert!(new);
        assert_ne!(renewed, a);
        // Idle for longer than IDLE: a new one.
        let path = file(&db, "claude-code", "kiro");
        let old = Kept {
            id: renewed.clone(),
            last_seen_ms: now_ms() - u64::try_from(IDLE.as_millis()).expect("fits") - 1,
        };
        std::fs::write(&path, serde_json::to_vec(&old).expect("json")).expect("write");
        // Ids are minted from the millisecond (and the process): not the one `renewed` had.
        std::thread::sleep(Duration::from_millis(2));
        let (fresh, _) = session(&db, "claude-code", "kiro", false).expect("minted");
        assert_ne!(fresh, renewed);
    }
}
