//! What the hook left beside the database: when each event last arrived (`hook-seen.json`),
//! the events it did not understand (`hook-ignored.jsonl`), and what it could not capture
//! (`hook.log`). Read only; a file that is not there reads as nothing.

use crate::agents::Agent;
use crate::hook::Seen;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// How far back `hook.log` counts as recent, and how many of its lines are shown.
const WEEK_MS: u64 = 7 * 24 * 3600 * 1000;
const SHOWN: usize = 20;

/// One event of an agent, as it arrived from one host.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Arrival {
    pub(super) host: String,
    pub(super) event: String,
    pub(super) last_ms: u64,
    pub(super) count: u64,
}

/// The agent's arrivals, newest first.
pub(super) fn arrivals(
    seen: &BTreeMap<(String, String, String), Seen>,
    agent: Agent,
) -> Vec<Arrival> {
    let mut out: Vec<Arrival> = seen
        .iter()
        .filter(|((a, _, _), _)| a == agent.as_str())
        .map(|((_, host, event), s)| Arrival {
            host: host.clone(),
            event: event.clone(),
            last_ms: s.ms,
            count: s.count,
        })
        .collect();
    out.sort_by_key(|a| std::cmp::Reverse(a.last_ms));
    out
}

/// Events received and not understood, by agent, host, event and tool.
#[derive(Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub(super) struct Ignored {
    pub(super) agent: String,
    pub(super) host: String,
    pub(super) event: String,
    pub(super) tool: String,
    pub(super) count: u64,
    pub(super) last_ms: u64,
}

pub(super) fn ignored(db: &Path) -> Vec<Ignored> {
    let file = crate::hook::ignored_file(db);
    let mut counts: BTreeMap<[String; 4], (u64, u64)> = BTreeMap::new();
    for path in [file.with_extension("jsonl.1"), file] {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for row in text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            let field = |k: &str| row.get(k).and_then(|v| v.as_str()).unwrap_or("").to_owned();
            let key = [field("agent"), field("host"), field("event"), field("tool")];
            let ms = row
                .get("ms")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            let entry = counts.entry(key).or_default();
            entry.0 += 1;
            entry.1 = entry.1.max(ms);
        }
    }
    counts
        .into_iter()
        .map(|([agent, host, event, tool], (count, last_ms))| Ignored {
            agent,
            host,
            event,
            tool,
            count,
            last_ms,
        })
        .collect()
}

/// `hook.log`'s lines of the last week (the newest `SHOWN`), oldest first.
pub(super) fn not_captured(db: &Path, now: u64) -> Vec<String> {
    let dir = db.parent().unwrap_or(Path::new("."));
    let mut lines: Vec<String> = [dir.join("hook.log.1"), dir.join("hook.log")]
        .iter()
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            text.lines().map(str::to_owned).collect::<Vec<_>>()
        })
        .filter(|l| {
            let ms = l.split(' ').next().and_then(|m| m.parse::<u64>().ok());
            ms.is_some_and(|ms| ms + WEEK_MS >= now)
        })
        .collect();
    let skip = lines.len().saturating_sub(SHOWN);
    lines.drain(..skip);
    lines
}
