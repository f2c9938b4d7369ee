//! When each event last arrived, for `rewind doctor`: `hook-seen.json` beside the database,
//! `{"<agent> <host> <event>": {"ms", "count"}}`. One small read and one write per hook call,
//! under `hook-seen.lock` (two hooks at once must not lose each other's count), replaced
//! atomically. Bounded: past `KEEP` keys the longest unseen go, and an event name is cut at 64
//! characters. Written only where a store already is; reading it writes nothing.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const KEEP: usize = 200;

/// One agent, host and event: when it last arrived (ms since the epoch) and how often.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Seen {
    pub ms: u64,
    pub count: u64,
}

fn file(db: &Path) -> PathBuf {
    db.parent().unwrap_or(Path::new(".")).join("hook-seen.json")
}

/// The ledger, keyed by `(agent, host, event)`; empty when there is none or it is unreadable.
pub fn read(db: &Path) -> BTreeMap<(String, String, String), Seen> {
    parse(&std::fs::read_to_string(file(db)).unwrap_or_default())
        .into_iter()
        .filter_map(|(key, seen)| {
            let mut parts = key.splitn(3, ' ').map(str::to_owned);
            Some(((parts.next()?, parts.next()?, parts.next()?), seen))
        })
        .collect()
}

fn parse(text: &str) -> BTreeMap<String, Seen> {
    serde_json::from_str(text).unwrap_or_default()
}

/// Count one arrival; failures are swallowed (nothing depends on it).
pub(super) fn note(db: &Path, agent: &str, host: &str, event: &str) {
    if !db.exists() {
        return;
    }
    let path = file(db);
    let Ok(lock) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path.with_extension("lock"))
    else {
        return;
    };
    if lock.lock().is_err() {
        return;
    }
    let mut ledger = parse(&std::fs::read_to_string(&path).unwrap_or_default());
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let event: String = event.chars().take(64).collect();
    let event = if event.is_empty() { "?" } else { &event };
    let entry = ledger
        .entry(format!("{agent} {host} {event}"))
        .or_insert(Seen { ms, count: 0 });
    entry.ms = ms;
    entry.count = entry.count.saturating_add(1);
    while ledger.len() > KEEP {
        let oldest = ledger
            .iter()
            .min_by_key(|(_, s)| s.ms)
            .map(|(k, _)| k.clone());
        match oldest {
            Some(k) => ledger.remove(&k),
            None => break,
        };
    }
    let Ok(text) = serde_json::to_string(&ledger) else {
        return;
    };
    let tmp = path.with_extension("json.tmp");
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_are_counted_and_the_ledger_stays_bounded() {
        let dir = tempfile::tempdir().expect("dir");
        let db = dir.path().join("rewind.db");
        note(&db, "claude-code", "installed", "Stop");
        assert!(read(&db).is_empty(), "no store, no ledger");
        std::fs::write(&db, b"").expect("db");
        note(&db, "claude-code", "installed", "Stop");
        note(&db, "claude-code", "installed", "Stop");
        note(&db, "claude-code", "vscode", "Stop");
        let ledger = read(&db);
        let key = |host: &str| ("claude-code".to_owned(), host.to_owned(), "Stop".to_owned());
        assert_eq!(ledger[&key("installed")].count, 2);
        assert_eq!(ledger[&key("vscode")].count, 1);
        for i in 0..KEEP + 10 {
            note(&db, "cursor", "cursor", &format!("event{i}"));
        }
        assert_eq!(read(&db).len(), KEEP);
        note(&db, "cursor", "cursor", &"x".repeat(500));
        assert!(read(&db).keys().all(|(_, _, e)| e.chars().count() <= 64));
    }
}
