//! Background work the agent started and that may still be writing: a shell command it ran in
//! the background (Claude Code's Bash `run_in_background`, Qwen Code's and Gemini CLI's
//! `is_background`), or what Claude Code's turn end lists as in flight (`background_tasks`:
//! shells, sub-agents, monitors). While such work is known to be running, what a snapshot finds
//! between the agent's actions is that work's, recorded in the turn that started it, not the
//! person's.
//!
//! Known running from its tool event until the agent says it is not (a `background_tasks` list
//! that no longer has it; an empty list ends all), or until `REWIND_HOOK_BACKGROUND_SECS`
//! (default 10 min) passed without a sign of it (its start, or a turn end that lists it). The
//! bound is there because Qwen Code and Gemini CLI never say when background work ends, and
//! work that outlives the agent's session (a `nohup` server) is never reported at all: past the
//! bound, what changes is the person's again (kept by rewinds, and a conflict when a rewind
//! would touch it), which is the safe side to err on.
//!
//! The state is one small file per agent session beside the database, read and written under
//! an exclusive lock on a file of its own (`flock`, released by the system when a hook dies),
//! held for the whole event: two hook processes of one session never decide from the same
//! state.

use rewind_core::hash::ContentHash;
use rewind_core::id::TurnId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const DIR: &str = "hook-background";
const WINDOW_SECS: u64 = 600;

/// One piece of background work known to be running.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Running {
    /// The turn that started it: its later changes are recorded there.
    pub(super) turn: TurnId,
    /// The tool that started it (`Bash`, `run_shell_command`), or the kind of task the agent
    /// listed (`subagent`, `monitor`).
    pub(super) tool_name: String,
    /// The tool call's id.
    #[serde(default)]
    pub(super) call_id: Option<String>,
    /// The agent's id of it, once a turn end listed it.
    #[serde(default)]
    pub(super) task_id: Option<String>,
    /// Its command line (or the agent's description of the task).
    #[serde(default)]
    pub(super) command: Option<String>,
    /// When it was last known running (ms since the epoch).
    pub(super) seen_ms: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    running: Vec<Running>,
}

/// The background state of one agent session, locked while this value lives.
pub(super) struct Held {
    file: PathBuf,
    state: State,
    changed: bool,
    now_ms: u64,
    _lock: File,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn window_ms() -> u64 {
    std::env::var("REWIND_HOOK_BACKGROUND_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(WINDOW_SECS)
        .saturating_mul(1000)
}

/// Lock and read the state of `agent`'s session `session` (kept beside `db`), dropping work
/// not seen for longer than the window. Waits for another hook of the session; the hook's
/// watchdog bounds the wait.
pub(super) fn hold(db: &Path, agent: &str, session: &str) -> Result<Held, String> {
    let key = ContentHash::of(format!("{agent}\n{session}").as_bytes());
    let dir = db.parent().unwrap_or(Path::new(".")).join(DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = &key.as_str()[..32];
    let lock_path = dir.join(format!("{name}.lock"));
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let file = dir.join(format!("{name}.json"));
    // Unreadable state is no reason to lose the event: it is started over (and said).
    let mut state: State = match std::fs::read(&file) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
        Err(_) => State::default(),
    };
    let now = now_ms();
    let window = window_ms();
    let before = state.running.len();
    state
        .running
        .retain(|r| now.saturating_sub(r.seen_ms) <= window);
    Ok(Held {
        changed: state.running.len() != before,
        file,
        state,
        now_ms: now,
        _lock: lock,
    })
}

/// Whether a shell tool's input asks for it to run in the background.
pub(super) fn asked(tool_input: Option<&Value>) -> bool {
    let flag = |key: &str| {
        tool_input
            .and_then(|i| i.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    flag("run_in_background") || flag("is_background")
}

/// Whether `listed` (the agent's, perhaps clipped: "… [+N chars]") is the command `ours`.
fn same_command(ours: &str, listed: &str) -> bool {
    match listed.find("\u{2026} [+") {
        Some(i) => ours.starts_with(listed[..i].trim_end()),
        None => ours == listed,
    }
}

impl Held {
    /// The work changes found now are attributed to: the one started last.
    pub(super) fn newest(&self) -> Option<&Running> {
        self.state.running.last()
    }

    /// `tool` (call `call_id`, command `command`) was started in the background in `turn`.
    pub(super) fn started(
        &mut self,
        turn: &TurnId,
        tool: &str,
        call_id: Option<&str>,
        command: &str,
    ) {
        let run = Running {
            turn: turn.clone(),
            tool_name: tool.to_owned(),
            call_id: call_id.map(str::to_owned),
            task_id: None,
            command: Some(command.to_owned()),
            seen_ms: self.now_ms,
        };
        // The same call reported twice (a retried hook) is one piece of work.
        self.state
            .running
            .retain(|r| r.call_id.is_none() || r.call_id != run.call_id);
        self.state.running.push(run);
        self.changed = true;
    }

    /// What a turn end (of `turn`) says is in flight: `Some(list)` replaces what is known
    /// (work it no longer lists has ended; work it lists that was not seen starting, such as a
    /// sub-agent's, is added in `turn`); `None` (the agent does not say) changes nothing.
    pub(super) fn listed(&mut self, tasks: Option<&Value>, turn: &TurnId) {
        let Some(tasks) = tasks.and_then(Value::as_array) else {
            return;
        };
        let text = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).map(str::to_owned);
        let is = |r: &Running, t: &Value| match (&r.task_id, text(t, "id")) {
            (Some(mine), Some(id)) => *mine == id,
            _ => {
                matches!((&r.command, text(t, "command")), (Some(a), Some(b)) if same_command(a, &b))
            }
        };
        let mut unmatched: Vec<&Value> = tasks.iter().collect();
        let mut kept = Vec::new();
        for mut run in std::mem::take(&mut self.state.running) {
            if let Some(i) = unmatched.iter().position(|t| is(&run, t)) {
                run.task_id = text(unmatched.remove(i), "id").or(run.task_id);
                run.seen_ms = self.now_ms;
                kept.push(run);
            }
        }
        for t in unmatched {
            kept.push(Running {
                turn: turn.clone(),
                tool_name: text(t, "type").unwrap_or_else(|| "background".into()),
                call_id: None,
                task_id: text(t, "id"),
                command: text(t, "command").or_else(|| text(t, "description")),
                seen_ms: self.now_ms,
            });
        }
        self.state.running = kept;
        self.changed = true;
    }

    /// Forget work whose turn is no longer there to record into.
    pub(super) fn forget(&mut self, turn: &TurnId) {
        self.state.running.retain(|r| &r.turn != turn);
        self.changed = true;
    }

    /// Write the state back (atomically), then let go of the lock.
    pub(super) fn save(self) -> Result<(), String> {
        if !self.changed {
            return Ok(());
        }
        if self.state.running.is_empty() {
            return match std::fs::remove_file(&self.file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
                _ => Ok(()),
            };
        }
        let body = serde_json::to_vec(&self.state).map_err(|e| e.to_string())?;
        rewind_host::disk::write_own_file(&self.file, &body).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clipped_command_matches_the_one_it_was_clipped_from() {
        assert!(same_command("npm run build", "npm run build"));
        assert!(!same_command("npm run build", "npm run test"));
        assert!(same_command(
            "sleep 1; echo done > out.txt",
            "sleep 1; echo d\u{2026} [+15 chars]"
        ));
        assert!(!same_command("sleep 2", "sleep 1\u{2026} [+3 chars]"));
    }

    #[test]
    fn only_a_true_flag_asks_for_the_background() {
        let v = |j: &str| serde_json::from_str::<Value>(j).expect("json");
        assert!(asked(Some(&v(r#"{"run_in_background": true}"#))));
        assert!(asked(Some(&v(r#"{"is_background": true}"#))));
        assert!(!asked(Some(&v(r#"{"is_background": false}"#))));
        assert!(!asked(Some(&v(r#"{"run_in_background": "yes"}"#))));
        assert!(!asked(None));
    }
}
