//! `rewind import <agent> [--session ID | --all] [--dry-run]`: build rewind sessions from an
//! agent's own records of its sessions in this workspace (sessions run before rewind's hooks
//! were installed, or on another machine). Each agent's reader (one file each) finds its
//! session files and turns them into an [`build::Imported`]; `build` records it. What the
//! records cannot make exact is a failed capture with the reason; a damaged record is a
//! diagnostic; the agent's files are only read.

mod build;
mod claude;
mod claude_after;
mod claude_history;
mod gemini;
mod qwen;
mod qwen_history;

use super::{CliError, Context, Report};
use rewind_core::ErrorKind;
use std::path::{Path, PathBuf};

/// The largest transcript read (an agent's JSONL grows with the session).
const MAX_RECORD_BYTES: u64 = 512 << 20;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(super) enum Agent {
    /// Claude Code: ~/.claude/projects/<cwd>/<session>.jsonl and ~/.claude/file-history/.
    ClaudeCode,
    /// Qwen Code: ~/.qwen/projects/<cwd>/chats/<session>.jsonl.
    QwenCode,
    /// Gemini CLI: ~/.gemini/tmp/<project>/chats/session-*.jsonl.
    GeminiCli,
}

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The agent whose records to read.
    #[arg(value_enum)]
    agent: Agent,
    /// The agent's session to import (default: its latest in this workspace).
    #[arg(long, value_name = "ID", conflicts_with = "all")]
    session: Option<String>,
    /// Every session of the agent in this workspace.
    #[arg(long)]
    all: bool,
    /// Say what would be imported; write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Which sessions the person asked for.
pub(super) enum Which<'a> {
    Latest,
    One(&'a str),
    All,
}

/// A session file of an agent: its id and where it is.
pub(super) struct Found {
    pub id: String,
    pub path: PathBuf,
}

/// The agent's name for a directory (`/tmp/a.b` → `-tmp-a-b`): Claude Code and Qwen Code name
/// a workspace's project directory so.
pub(super) fn munged(dir: &Path) -> String {
    dir.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The home directory the agents keep their records under.
pub(super) fn home() -> Result<PathBuf, CliError> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            CliError::new(
                ErrorKind::Unavailable,
                "HOME is not set: cannot find the agent's records",
            )
        })
}

/// The `*.jsonl` files of `dir`, newest last (by modification time, then name).
pub(super) fn sessions_in(dir: &Path) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(std::time::SystemTime, Found)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let id = path
                .file_name()?
                .to_str()?
                .strip_suffix(".jsonl")?
                .to_owned();
            let meta = e.metadata().ok().filter(|m| m.is_file())?;
            Some((meta.modified().ok()?, Found { id, path }))
        })
        .collect();
    found.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
    found.into_iter().map(|(_, f)| f).collect()
}

/// The sessions `which` names among `all` (oldest first).
pub(super) fn pick(
    all: Vec<Found>,
    which: &Which<'_>,
    agent: &str,
) -> Result<Vec<Found>, CliError> {
    let none = || {
        CliError::new(
            ErrorKind::NotFound,
            format!("{agent} has no session records for this workspace"),
        )
    };
    match which {
        Which::All if all.is_empty() => Err(none()),
        Which::All => Ok(all),
        Which::Latest => all.into_iter().last().map(|f| vec![f]).ok_or_else(none),
        Which::One(id) => {
            let ids: Vec<String> = all.iter().map(|f| f.id.clone()).collect();
            match all.into_iter().find(|f| f.id == *id) {
                Some(f) => Ok(vec![f]),
                None => Err(CliError::new(
                    ErrorKind::NotFound,
                    format!("{agent} has no session {id} in this workspace"),
                )
                .with_candidates(ids)),
            }
        }
    }
}

/// A record file's bytes: a regular file, bounded.
pub(super) fn read_record(path: &Path) -> Result<Vec<u8>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    if meta.len() > MAX_RECORD_BYTES {
        return Err(format!(
            "{}: {} bytes, not read",
            path.display(),
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The JSON lines of a transcript; a line that does not parse is a diagnostic (a transcript cut
/// short by a crash ends in half a line).
pub(super) fn json_lines(
    bytes: &[u8],
    path: &Path,
    diagnostics: &mut Vec<String>,
) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(v) => out.push(v),
            Err(e) => diagnostics.push(format!(
                "{} line {}: not a JSON record ({e}): passed over",
                path.display(),
                i + 1
            )),
        }
    }
    out
}

/// A JSONL session record read whole and split into its lines (a damaged line is a
/// diagnostic), with the agent version the first record naming one says: the start every JSONL
/// reader shares. A record that cannot be read is an error.
fn open_jsonl(
    agent: &'static str,
    f: Found,
) -> Result<(build::Imported, Vec<serde_json::Value>), CliError> {
    let bytes = read_record(&f.path).map_err(|e| CliError::new(ErrorKind::InvalidInput, e))?;
    let mut s = build::Imported {
        agent,
        session_id: f.id,
        transcript: f.path,
        version: None,
        turns: Vec::new(),
        diagnostics: Vec::new(),
        refused: None,
    };
    let lines = json_lines(&bytes, &s.transcript, &mut s.diagnostics);
    s.version = lines
        .iter()
        .find_map(|v| v.get("version").and_then(serde_json::Value::as_str))
        .map(str::to_owned);
    Ok((s, lines))
}

/// `file` (absolute, as the agent names it) relative to the workspace `root`, or why not.
pub(super) fn in_workspace(root: &Path, file: &str) -> Result<String, String> {
    let p = Path::new(file);
    let rel = if p.is_absolute() {
        p.strip_prefix(root)
            .map_err(|_| format!("{file} is outside the workspace: not imported"))?
    } else {
        p
    };
    let text = rel.to_str().ok_or_else(|| format!("{file}: not UTF-8"))?;
    rewind_core::path::WorkPath::parse(text)
        .map(|w| w.as_str().to_owned())
        .map_err(|e| format!("{file}: {e}"))
}

/// The major.minor of a version string (`2.1.332` → (2, 1)).
pub(super) fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let which = match (&a.session, a.all) {
        (Some(id), _) => Which::One(id),
        (None, true) => Which::All,
        (None, false) => Which::Latest,
    };
    let root = std::fs::canonicalize(&ctx.workspace).unwrap_or_else(|_| ctx.workspace.clone());
    let sessions = match a.agent {
        Agent::ClaudeCode => claude::read(&root, &which)?,
        Agent::QwenCode => qwen::read(&root, &which)?,
        Agent::GeminiCli => gemini::read(&root, &which)?,
    };
    // The one session asked for by id, when it cannot be imported, is an error (with --all or
    // the latest, it is reported among the others as `not-imported`).
    if let (Which::One(_), Some(why)) = (&which, sessions.first().and_then(|s| s.refused.clone())) {
        return Err(CliError::new(ErrorKind::InvalidInput, why));
    }
    let out = build::import(ctx, sessions, a.dry_run)?;
    let text = out
        .iter()
        .map(|o| {
            let mut line = format!(
                "{} {}  {}  {} turns, {} checkpoints, {} failed captures",
                o.status,
                o.agent_session_id,
                o.session_id
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                o.turns,
                o.checkpoints,
                o.failed_captures
            );
            for d in &o.diagnostics {
                line.push_str("\n  ");
                line.push_str(d);
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(&serde_json::json!({ "sessions": out }), text))
}
