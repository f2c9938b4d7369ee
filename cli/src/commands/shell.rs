//! `rewind exec [SESSION] [--turn T] -- CMD [ARGS…]` and `rewind snapshot [SESSION] [--turn T]`: shell
//! capture. `exec` snapshots the workspace, runs the command in it (stdin, stdout and stderr
//! are the command's own), snapshots again and records the difference as one `shell`
//! checkpoint, then exits with the command's exit code: what the first snapshot finds is the
//! person's (`external`), what the second finds is the command's. `snapshot` records whatever
//! changed since the session's last snapshot, for hosts that run commands themselves, as
//! `--as` says.
//!
//! Output: text goes to stderr for `exec` (its stdout is the command's, so `rewind exec … -- cat
//! f > out` stays clean); with `--json` the report is the last document on stdout.

use super::{CliError, Context, Report, SessionArg, Verb};
use crate::output;
use rewind_core::id::SessionId;
use rewind_core::shell::{self, Outcome, Progress};
use rewind_host::disk::{FileId, file_id, gone_since};
use rewind_host::native::NativeEngine;
use serde::Serialize;
use std::io::IsTerminal as _;
use std::process::Command;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
pub(super) struct SnapshotArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The running turn the changes belong to (#N, @, an id; default: the session's one running
    /// turn).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// The command that ran since the last snapshot (recorded as the checkpoint's tool input).
    #[arg(long, value_name = "CMD")]
    command: Option<String>,
    /// The tool's name (default `shell`).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The tool call's id.
    #[arg(long, value_name = "ID")]
    tool_call_id: Option<String>,
    /// Whose the changes found are: `command` (taken after a command: the command's), `external`
    /// (taken before one, or at a turn's start or end: yours), `auto` (the command's unless
    /// this is the turn's first snapshot).
    #[arg(long = "as", value_enum, default_value_t = As::Auto, value_name = "WHOSE")]
    attribution: As,
}

/// `rewind snapshot --as`: [`shell::Attribution`] on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum As {
    Command,
    External,
    Auto,
}

impl From<As> for shell::Attribution {
    fn from(a: As) -> Self {
        match a {
            As::Command => Self::Command,
            As::External => Self::External,
            As::Auto => Self::Auto,
        }
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct ExecArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The running turn the command's changes belong to (#N, @, an id; default: the session's
    /// one running turn).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// The tool's name (default `shell`).
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// The tool call's id.
    #[arg(long, value_name = "ID")]
    tool_call_id: Option<String>,
    /// The command and its arguments (after `--`, so that they never read as the session).
    #[arg(required = true, last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// A snapshot's outcome with the time it took.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Timed {
    #[serde(flatten)]
    outcome: Outcome,
    elapsed_ms: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Executed {
    /// The snapshot after the command: what the command changed.
    #[serde(flatten)]
    after: Timed,
    /// The snapshot before it, when it recorded something (changes made since the last one).
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<Timed>,
    /// The command's exit code (128 + the signal when a signal ended it).
    exit_code: i32,
    /// How long the command itself ran.
    command_ms: u64,
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A progress line on a terminal, once a snapshot has taken more than a second; cleared when
/// the snapshot is done. Nothing at all when stderr is not a terminal.
struct Line {
    start: Instant,
    tty: bool,
    shown: bool,
}

impl Line {
    fn new() -> Self {
        Self {
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            shown: false,
        }
    }
    fn update(&mut self, p: Progress) {
        if self.tty && self.start.elapsed() > Duration::from_secs(1) {
            self.shown = true;
            output::progress(&format!(
                "snapshot: {}/{} files, {} read",
                p.done, p.total, p.reread
            ));
        }
    }
    fn done(self) {
        if self.shown {
            output::progress("");
        }
    }
}

fn take(
    engine: &mut NativeEngine,
    session: &SessionId,
    opts: shell::Options,
) -> Result<Timed, CliError> {
    let mut line = Line::new();
    let result = engine.snapshot_workspace_with_progress(session, opts, &mut |p| line.update(p));
    let elapsed_ms = ms(line.start.elapsed());
    line.done();
    Ok(Timed {
        outcome: result?,
        elapsed_ms,
    })
}

fn summary(t: &Timed) -> String {
    let o = &t.outcome;
    let what = match (&o.checkpoint_id, o.kind, o.baseline) {
        (Some(id), Some(kind), _) => format!(
            "recorded {id} ({}): {} created, {} modified, {} deleted{}",
            serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            o.changed.created.len(),
            o.changed.modified.len(),
            o.changed.deleted.len(),
            match o.changed.uncaptured.len() {
                0 => String::new(),
                n => format!(", {n} not captured"),
            }
        ),
        (_, _, true) => format!("baseline of {} files", o.files),
        _ => "nothing changed".to_owned(),
    };
    let untracked = match o.untracked.len() {
        0 => String::new(),
        n => format!("; {n} untracked (too large, links)"),
    };
    format!(
        "{what} — {} read, {} unchanged by stat, {} ms{untracked}",
        o.reread, o.skipped, t.elapsed_ms
    )
}

/// The identity of the store's database as this command opened it (SQLite only: a PostgreSQL
/// store has no file to lose).
fn opened_store(ctx: &Context) -> Option<FileId> {
    ctx.store.is_none().then(|| file_id(&ctx.db)).flatten()
}

/// A commit that went to a database no longer at the store's place (removed, moved, replaced
/// while the command ran) was not kept: what was lost and why (`None`: it was kept).
fn not_kept(ctx: &Context, opened: Option<FileId>, t: &Timed) -> Option<String> {
    let why = gone_since(&ctx.db, opened)?;
    let lost = match &t.outcome.checkpoint_id {
        Some(id) => format!("checkpoint {id} was not kept"),
        None => "the snapshot was not kept".to_owned(),
    };
    Some(format!("{lost}: {why} while it ran"))
}

pub(super) fn run_snapshot(ctx: &Context, a: SnapshotArgs) -> Result<Report, CliError> {
    let turn = super::open_turn::check(a.turn.as_deref())?;
    let mut engine = ctx.engine(Verb::SnapshotWorkspace)?;
    let opened = opened_store(ctx);
    let session = ctx.session(&engine, &a.session)?;
    let opts = shell::Options {
        turn_id: super::open_turn::resolve(ctx, &engine, &session, turn.as_ref())?,
        command: a.command,
        tool_name: a.tool,
        tool_call_id: a.tool_call_id,
        tool_message_id: None,
        attribution: a.attribution.into(),
    };
    let timed = take(&mut engine, &session, opts)?;
    if let Some(lost) = not_kept(ctx, opened, &timed) {
        return Err(CliError::host(lost));
    }
    let text = summary(&timed);
    Ok(Report::new(&timed, text))
}

/// The command's exit code the way a shell reports it.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(sig) = status.signal() {
            return 128 + sig;
        }
    }
    status.code().unwrap_or(1)
}

/// The command line as one string, each argument quoted where a shell would need it.
fn command_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| super::verdict::shell_word(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the command runs: the current directory when it is inside the workspace (as a shell
/// would run it: `rewind exec -- sh -c 'echo x >> util.py'` from `src/` appends to
/// `src/util.py`), else the workspace's root. The snapshot is of the whole workspace either way,
/// so the paths it reports stay relative to the workspace.
fn run_in(ctx: &Context) -> Result<std::path::PathBuf, CliError> {
    let root = std::fs::canonicalize(&ctx.workspace).map_err(|e| {
        CliError::host(format!(
            "cannot open the workspace {}: {e}",
            ctx.workspace.display()
        ))
    })?;
    let here = std::env::current_dir().and_then(std::fs::canonicalize);
    Ok(match here {
        Ok(dir) if dir.starts_with(&root) => dir,
        _ => root,
    })
}

pub(super) fn run_exec(ctx: &Context, a: ExecArgs) -> Result<Report, CliError> {
    let turn = super::open_turn::check(a.turn.as_deref())?;
    let mut engine = ctx.engine(Verb::SnapshotWorkspace)?;
    let opened = opened_store(ctx);
    let session = ctx.session(&engine, &a.session)?;
    let turn = super::open_turn::resolve(ctx, &engine, &session, turn.as_ref())?;
    let dir = run_in(ctx)?;
    let line = command_line(&a.command);
    // Before the command nothing of the agent's ran since the last snapshot: what changed is
    // the person's. After it, what changed is the command's, whatever came before.
    let opts = |command: Option<String>| shell::Options {
        turn_id: turn.clone(),
        attribution: match command {
            Some(_) => shell::Attribution::Command,
            None => shell::Attribution::External,
        },
        command,
        tool_name: a.tool.clone(),
        tool_call_id: a.tool_call_id.clone(),
        tool_message_id: None,
    };
    let before = take(&mut engine, &session, opts(None))?;
    let started = Instant::now();
    let status = Command::new(&a.command[0])
        .args(&a.command[1..])
        .current_dir(&dir)
        .status()
        .map_err(|e| {
            CliError::new(
                rewind_core::ErrorKind::InvalidInput,
                format!("cannot run {}: {e}", a.command[0]),
            )
            .with_exit(127)
        })?;
    let command_ms = ms(started.elapsed());
    let exit = exit_code(status);
    // Not kept: the command's own failure is its exit code; else the store's failure is.
    let failed = |e: CliError, what: &str| {
        let code = if exit == 0 { e.exit_code() } else { exit };
        e.context(&format!("the command ran (exit {exit}), but {what}"))
            .with_exit(code)
    };
    let after = take(&mut engine, &session, opts(Some(line)))
        .map_err(|e| failed(e, "its changes were not recorded"))?;
    if let Some(lost) = not_kept(ctx, opened, &after) {
        let code = if exit == 0 { 3 } else { exit };
        let message = format!("the command ran (exit {exit}), but {lost}");
        return Err(CliError::host(message).with_exit(code));
    }
    let mut text = summary(&after);
    if before.outcome.checkpoint_id.is_some() {
        text = format!("before the command: {}\n{text}", summary(&before));
    }
    let report = Executed {
        before: before.outcome.checkpoint_id.is_some().then_some(before),
        after,
        exit_code: exit,
        command_ms,
    };
    Ok(Report::new(&report, text).on_stderr().with_exit(exit))
}
