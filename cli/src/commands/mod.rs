//! The subcommands: the clap definitions and the dispatch. One file per subcommand; each
//! returns a [`Report`] (one JSON document for `--json`, short text for people). `rewind hook`
//! and `rewind serve` are dispatched from here to their own modules beside this one.

mod agent_resume;
mod apply;
mod both;
mod candidates;
mod checkpoints;
mod completions;
mod config;
mod context;
mod conversation;
mod demo;
mod diff;
mod doctor;
mod fork;
mod gc;
mod help;
mod hook_settings;
mod import;
mod init;
mod kinds;
mod log;
mod notes;
mod open_turn;
mod ops;
mod pick;
mod preview;
mod prompt;
mod record_change;
mod recover;
mod refs;
mod reply;
mod report;
mod resume;
mod revise;
mod session;
mod session_admin;
mod shell;
mod show;
mod side_chat;
mod stats;
mod status;
mod target;
mod trust;
mod turn_end;
mod undo;
mod verdict;
mod watch;

pub(crate) use completions::complete_if_asked;
pub(crate) use help::parse;
pub use report::Report;

use crate::{CliError, locate, style};
use clap::{Parser, Subcommand};
use context::{Context, SessionArg, parse_id};
use rewind_host::native::Verb;
use rewind_host::native::{NativeEngine, is_postgres_url};
use std::path::PathBuf;

/// Checkpoints, rewinds and undo for AI coding-agent sessions.
#[derive(Debug, Parser)]
#[command(
    name = "rewind",
    version,
    about = "Checkpoints, rewinds and undo for AI coding-agent sessions",
    long_about = None,
    disable_help_subcommand = true
)]
// The field docs are the `--help` text, where `<workspace>` reads as a placeholder, not HTML.
#[allow(rustdoc::invalid_html_tags)]
pub struct Cli {
    /// The workspace the agent edits (default: the nearest directory holding .rewind/, from the
    /// current one up; else the current directory).
    #[arg(
        help_heading = "Global options",
        long,
        global = true,
        value_name = "DIR"
    )]
    workspace: Option<PathBuf>,
    /// The database (default: <workspace>/.rewind/rewind.db).
    #[arg(
        help_heading = "Global options",
        long,
        global = true,
        value_name = "PATH",
        env = "REWIND_DB"
    )]
    db: Option<PathBuf>,
    /// Keep the records in PostgreSQL instead of the SQLite file: a `postgres://` URL
    /// (`postgres://user@host:port/db`; a unix socket as `?host=/run/postgresql`). The
    /// database path then only says where the workspace's own files go (config, current
    /// session).
    #[arg(
        help_heading = "Global options",
        long,
        global = true,
        value_name = "URL",
        env = "REWIND_STORE"
    )]
    store: Option<String>,
    /// Print one JSON document (camelCase fields) instead of text.
    #[arg(help_heading = "Global options", long, global = true)]
    json: bool,
    /// Print directly: no pager (else on a terminal `diff`, `log`, `ops`, `preview` page).
    #[arg(long = "no-pager", short = 'P', global = true)]
    no_pager: bool,
    /// Colour the text: on a terminal (auto, unless NO_COLOR is set), always or never.
    #[arg(
        help_heading = "Global options",
        long,
        global = true,
        value_enum,
        default_value_t,
        value_name = "WHEN"
    )]
    color: style::ColorChoice,
    /// None: bare `rewind`, the picker on a terminal (see `pick`).
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Install rewind's hooks in an agent's settings (or take them out with --remove).
    Init(init::Args),
    /// Check every agent's rewind hooks: installed, current, runnable, let run; what arrived.
    Doctor(doctor::Args),
    /// The current session, its running turn, pending journals, what a rewind would touch now.
    Status(status::Args),
    /// Build rewind sessions from an agent's own records of its sessions in this workspace.
    Import(import::Args),
    /// Create, list, pick (the current one), rename or remove sessions.
    #[command(subcommand)]
    Session(session::Args),
    /// Record a user prompt (starts a turn).
    Prompt(prompt::Args),
    /// Record an assistant reply.
    Reply(reply::Args),
    /// Record a file change a tool made.
    Edit(record_change::Args),
    /// Change the latest prompt (rewinds the conversation to before it and records the new one).
    EditPrompt(revise::EditArgs),
    /// Ask for the latest reply again (rewinds the conversation to before its turn).
    Retry(revise::RetryArgs),
    /// Record a notice (hidden from the UI unless --show).
    Notice(notes::NoticeArgs),
    /// Record a compaction summary: the model sees it instead of the history before it.
    Compaction(notes::CompactionArgs),
    /// Record that a file's before-state could not be captured.
    FailedCapture(notes::FailedCaptureArgs),
    /// Mark a turn as ended (writes its stable boundary).
    TurnEnd(turn_end::Args),
    /// Run a command in the workspace and record what it changed as one checkpoint.
    Exec(shell::ExecArgs),
    /// Record what changed in the workspace since the session's last snapshot.
    Snapshot(shell::SnapshotArgs),
    /// Show the conversation by turn, with checkpoints.
    Log(log::Args),
    /// List a session's checkpoints.
    Checkpoints(checkpoints::Args),
    /// Show the operation log.
    Ops(ops::Args),
    /// Preview a file rewind: what would be restored, and every conflict.
    Preview(preview::Args),
    /// Show what a file rewind would write, as a unified diff (or --stat).
    Diff(diff::Args),
    /// Show one turn: its prompt, checkpoints and what the agent changed (or --stat).
    Show(show::Args),
    /// Apply a file rewind.
    Apply(apply::Args),
    /// Rewind the conversation to before a prompt.
    Conversation(conversation::Args),
    /// Rewind conversation and files together, as one unit.
    Both(both::Args),
    /// Undo a rewind: the latest one still in effect, or the operation given.
    Undo(undo::Args),
    /// Redo: undo the latest undo.
    Redo(undo::RedoArgs),
    /// Choose a prompt and what to restore, preview, confirm and rewind (bare `rewind` too).
    Pick(pick::Args),
    /// Fork a session at a message, a checkpoint or a completed turn.
    Fork(fork::Args),
    /// Open a side chat about a session (hidden history, reference only).
    SideChat(side_chat::Args),
    /// Delete old checkpoints, idle sessions and content nothing references any more.
    Gc(gc::Args),
    /// Show or change limits and retention defaults.
    Config(config::Args),
    /// Bytes recorded versus bytes stored.
    Stats(stats::Args),
    /// Show the derived state of a session.
    Resume(resume::Args),
    /// Settle applies interrupted by a crash, or abandon one that cannot be settled.
    Recover(recover::Args),
    /// Trust a store that came from elsewhere (another path or user) to act on this workspace.
    Trust(trust::Args),
    /// Run a scripted session in a scratch directory and show each step.
    Demo(demo::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Print the man page (roff), e.g. `rewind man | man -l -`.
    Man,
    /// Show the everyday commands, every command (--all), or one command's flags.
    Help(help::Args),
    /// Handle one agent hook event (JSON on stdin); always prints `{}` and exits 0.
    Hook(crate::hook::Args),
    /// Serve the JS API as JSON-RPC 2.0, on stdin/stdout (--stdio) or HTTP (--http ADDR).
    Serve(crate::serve::Args),
    /// Serve an MCP server on stdin/stdout: tools to list, diff, preview and (confirmed) rewind.
    Mcp(crate::mcp::Args),
    /// The workspace's change watcher, started by the hook (README: the change watcher).
    #[command(hide = true)]
    Watch(watch::Args),
}

/// Run the command `cli` names (bare `rewind`: the picker).
pub(crate) fn run(cli: Cli) -> Result<Report, CliError> {
    dispatch(cli, true)
}

/// Run the command `cli` names; `streams`: it may write its output as it makes it.
fn dispatch(cli: Cli, streams: bool) -> Result<Report, CliError> {
    let command = cli
        .command
        .unwrap_or_else(|| Command::Pick(pick::Args::bare()));
    if let Command::Hook(a) = &command {
        // The workspace comes from the event's cwd unless given; nothing it meets is an error.
        let store = cli.store.as_deref().filter(|s| is_postgres_url(s));
        crate::hook::run(a, cli.workspace.as_deref(), cli.db.as_deref(), store);
        return Ok(Report::new(&serde_json::json!({}), "{}"));
    }
    if let Command::Watch(a) = &command {
        return watch::run(a);
    }
    let store = locate::store_url(cli.store)?;
    if let Command::Serve(a) = command {
        // The server writes its own replies (one line each), and prints nothing at the end.
        crate::serve::run(a, cli.workspace, cli.db, store)?;
        return Ok(Report::raw(String::new()));
    }
    if let Command::Mcp(a) = command {
        return run_mcp(&a, cli.workspace, cli.db, store);
    }
    let located = locate::locate(cli.workspace, cli.db)?;
    // Where there is no store, a command that needs one opens nothing that could create it:
    // one about a session says there is none (see `Context::session`), the rest say so here.
    // A PostgreSQL store is always there to ask (an empty database reads as an empty store).
    let no_store = (store.is_none() && !located.exists() && !command.works_without_store())
        .then(|| located.missing());
    if no_store.is_some() && !command.acts_on_a_session() && !command.nothing_to_do_without_store()
    {
        return Err(located.missing());
    }
    let (workspace, db) = (located.workspace, located.db);
    if !cli.json && (command.pages() || matches!(command, Command::Pick(_))) {
        crate::output::set_up_paging(command.pages(), cli.no_pager, &db);
    }
    let color = !cli.json && cli.color.enabled(command.text_to_stderr());
    let now = rewind_core::ports::Clock::now_ms(&rewind_host::native::SystemClock);
    let ctx = Context {
        workspace,
        db,
        store,
        no_store,
        json: cli.json,
        style: style::Style::new(color, now),
        changing: std::cell::Cell::new(false),
        streams,
    };
    match command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Doctor(a) => doctor::run(&ctx, a),
        Command::Status(a) => status::run(&ctx, a),
        Command::Import(a) => import::run(&ctx, a),
        Command::Session(a) => session::run(&ctx, a),
        Command::Prompt(a) => prompt::run(&ctx, a),
        Command::Reply(a) => reply::run(&ctx, a),
        Command::Edit(a) => record_change::run(&ctx, a),
        Command::TurnEnd(a) => turn_end::run(&ctx, a),
        Command::EditPrompt(a) => revise::run_edit(&ctx, a),
        Command::Retry(a) => revise::run_retry(&ctx, a),
        Command::Notice(a) => notes::run_notice(&ctx, a),
        Command::Compaction(a) => notes::run_compaction(&ctx, a),
        Command::FailedCapture(a) => notes::run_failed_capture(&ctx, a),
        Command::Exec(a) => shell::run_exec(&ctx, a),
        Command::Snapshot(a) => shell::run_snapshot(&ctx, a),
        Command::Log(a) => log::run(&ctx, a),
        Command::Checkpoints(a) => checkpoints::run(&ctx, a),
        Command::Ops(a) => ops::run(&ctx, a),
        Command::Preview(a) => preview::run(&ctx, a),
        Command::Diff(a) => diff::run(&ctx, a),
        Command::Show(a) => show::run(&ctx, a),
        Command::Apply(a) => apply::run(&ctx, a),
        Command::Conversation(a) => conversation::run(&ctx, a),
        Command::Both(a) => both::run(&ctx, a),
        Command::Undo(a) => undo::run(&ctx, a),
        Command::Redo(a) => undo::run_redo(&ctx, a),
        Command::Pick(a) => pick::run(&ctx, a),
        Command::Fork(a) => fork::run(&ctx, a),
        Command::SideChat(a) => side_chat::run(&ctx, a),
        Command::Gc(a) => gc::run(&ctx, a),
        Command::Config(a) => config::run(&ctx, a),
        Command::Stats(a) => stats::run(&ctx, a),
        Command::Resume(a) => resume::run(&ctx, a),
        Command::Recover(a) => recover::run(&ctx, a),
        Command::Trust(a) => trust::run(&ctx, a),
        Command::Demo(a) => demo::run(&ctx, a),
        Command::Completions(a) => completions::run(&a),
        Command::Man => completions::man(),
        Command::Help(a) => help::run(&a),
        Command::Hook(_) | Command::Serve(_) | Command::Mcp(_) | Command::Watch(_) => {
            unreachable!("handled before the context is built")
        }
    }
}

/// `rewind mcp`: like the server, every message it writes is its own line; nothing at the end.
fn run_mcp(
    a: &crate::mcp::Args,
    workspace: Option<PathBuf>,
    db: Option<PathBuf>,
    store: Option<String>,
) -> Result<Report, CliError> {
    let located = locate::locate(workspace, db)?;
    let runner = Box::new(|argv: &[String]| {
        run_argv(argv).map(|r| crate::mcp::Ran {
            exit: r.exit_code(),
            json: r.json,
            text: r.text,
        })
    });
    crate::mcp::run(a, located.workspace, located.db, store, runner)?;
    Ok(Report::raw(String::new()))
}

/// Run one command for another front end (`rewind mcp`): `argv` is what follows `rewind`,
/// parsed as a command line is, so every rule (locate, the rights table, `#N`, the session
/// default) is the command's own. Only commands that neither prompt nor run anything else.
pub(crate) fn run_argv(argv: &[String]) -> Result<Report, CliError> {
    let words = std::iter::once("rewind".to_owned()).chain(argv.iter().cloned());
    let cli = Cli::try_parse_from(words).map_err(|e| {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default();
        CliError::new(
            rewind_core::ErrorKind::InvalidInput,
            first.trim_start_matches("error: "),
        )
    })?;
    let served = matches!(
        &cli.command,
        Some(
            Command::Session(session::Args::List)
                | Command::Log(_)
                | Command::Ops(_)
                | Command::Preview(_)
                | Command::Diff(_)
                | Command::Apply(_)
                | Command::Conversation(_)
                | Command::Both(_)
                | Command::Undo(_)
                | Command::Fork(_)
        )
    );
    if !served {
        return Err(CliError::new(
            rewind_core::ErrorKind::InvalidInput,
            format!("not a command another front end may run: {argv:?}"),
        ));
    }
    dispatch(cli, false)
}

/// The usage error of a bare `rewind` where the picker cannot run (no terminal), if so.
pub(crate) fn bare_without_terminal(cli: &Cli) -> Option<clap::Error> {
    cli.command.is_none().then(pick::bare_without_terminal)?
}

impl Cli {
    /// Whether the command's output is one JSON document.
    pub(crate) fn json(&self) -> bool {
        self.json
    }
}
