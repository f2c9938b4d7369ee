//! `rewind pick [SESSION] [--to TARGET] [--scope code|conversation|both] [--policy …] [--yes]`,
//! and bare `rewind` on a terminal: choose a prompt of the active branch (newest first), choose
//! what to restore, read the preview and the diff, confirm, and rewind through the engine.
//!
//! Flags answer questions beforehand, so `rewind pick --to 3 --scope both --yes` needs no
//! terminal. Without one (or with `--json`) a question left unanswered is `invalid_input` naming
//! the flag, before anything changes: a script never hangs on a prompt nobody sees.

mod ask;
mod list;

use super::apply::PolicyArg;
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::Role;
use ask::Asker;
use list::Prompt;
use rewind_core::ErrorKind;
use rewind_core::branch::Scope;
use rewind_core::files::{Preview, RewindDiff, TargetOptions};
use rewind_core::id::SessionId;
use rewind_core::model::Policy;
use rewind_core::rewind::{Options, Outcome};
use std::fmt::Write as _;

/// What to restore, as the picker's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ScopeArg {
    /// The workspace files only.
    Code,
    /// The conversation only; files untouched.
    Conversation,
    /// Code and conversation, as one unit.
    Both,
}

impl ScopeArg {
    fn scope(self) -> Scope {
        match self {
            Self::Code => Scope::Workspace,
            Self::Conversation => Scope::Conversation,
            Self::Both => Scope::Both,
        }
    }
    fn files(self) -> bool {
        self != Self::Conversation
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The prompt to go back to: `#N` / `N` (its number in the list), or its message or turn id
    /// (a unique prefix of a listed one will do).
    #[arg(long = "to", aliases = ["turn", "since"], value_name = "TARGET")]
    turn: Option<String>,
    /// What to restore.
    #[arg(long, value_enum)]
    scope: Option<ScopeArg>,
    /// How to treat files edited since the agent's change (asked only when there are some).
    #[arg(long, value_enum)]
    policy: Option<PolicyArg>,
    /// Do it without asking for confirmation.
    #[arg(long, short)]
    yes: bool,
}

impl Args {
    /// Bare `rewind`: everything asked, for the current session.
    pub(super) fn bare() -> Self {
        Self {
            session: SessionArg { session: None },
            turn: None,
            scope: None,
            policy: None,
            yes: false,
        }
    }
}

/// Bare `rewind` where no one can be asked: the usage error it always was (clap's own, as when
/// the subcommand was required), shown instead of the picker.
pub(super) fn bare_without_terminal() -> Option<clap::Error> {
    use clap::CommandFactory as _;
    use std::io::IsTerminal as _;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return None;
    }
    super::Cli::command()
        .subcommand_required(true)
        .arg_required_else_help(true)
        .try_get_matches()
        .err()
}

/// The question with no one to ask it.
fn unanswered(flags: &[&str]) -> CliError {
    CliError::new(
        ErrorKind::InvalidInput,
        format!(
            "no terminal to ask at (--json, or stdin or stderr is not a terminal): give {}",
            flags.join(", ")
        ),
    )
}

/// Without a terminal to ask at, every answer must be given: the flags still missing.
fn all_answered(a: &Args) -> Result<(), CliError> {
    let missing: Vec<&str> = [
        (a.turn.is_none(), "--to <TARGET>"),
        (a.scope.is_none(), "--scope code|conversation|both"),
        (!a.yes, "--yes"),
    ]
    .into_iter()
    .filter_map(|(m, flag)| m.then_some(flag))
    .collect();
    match missing.as_slice() {
        [] => Ok(()),
        missing => Err(unanswered(missing)),
    }
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let asker = Asker::open(ctx);
    if asker.is_none() {
        all_answered(&a)?;
    }
    // A script's answers are all known: one engine with the rights the rewind needs. A person
    // takes their time, so the questions run on a read-only engine (no apply lock held while
    // they think) and the rewind reopens; the engine re-plans then, so a change made meanwhile
    // is caught by its checks, not overwritten.
    let first = match (&asker, a.scope) {
        (None, Some(scope)) => verb(scope),
        _ => Verb::ActiveBranch,
    };
    let mut engine = ctx.engine(first)?;
    let session_id = ctx.session(&engine, &a.session)?;
    let session = rewind_core::load::session(engine.store(), &session_id)?;
    let rows = list::latest(&engine, &session)?;
    if rows.is_empty() {
        return Err(CliError::new(
            ErrorKind::InvalidInput,
            format!("session {session_id} has no prompt to go back to"),
        ));
    }
    let chosen = match (&a.turn, &asker) {
        (Some(r), _) => list::find(ctx.lookup(&engine), &session, &rows, r)?,
        (None, Some(asker)) => match ask::choose_prompt(asker, &ctx.style, &rows)? {
            Some(i) => rows[i].clone(),
            None => return Ok(cancelled()),
        },
        (None, None) => unreachable!("checked above"),
    };
    let scope = match (a.scope, &asker) {
        (Some(s), _) => s,
        (None, Some(asker)) => match ask::choose_scope(asker, &ctx.style, &chosen)? {
            Some(s) => s,
            None => return Ok(cancelled()),
        },
        (None, None) => unreachable!("checked above"),
    };
    let newest = rows[0].number;
    let target = TargetOptions {
        since: Some(chosen.id.clone()),
        ..TargetOptions::default()
    };
    let preview = if scope.files() {
        Some(engine.preview_file_rewind(&session_id, target.clone())?)
    } else {
        None
    };
    if let Some(asker) = &asker {
        // The person reads the diff before saying yes; a script has nobody to show it to.
        let diff = match scope.files() {
            true => Some(engine.diff_file_rewind(&session_id, target)?),
            false => None,
        };
        let files = preview.as_ref().map(|p| (p, diff.as_ref()));
        asker.page(&what_happens(ctx, &chosen, newest, scope, files));
        // The last thing on screen before the questions: what it comes to, not the last hunk.
        asker.show(&summary(ctx, &chosen, newest, scope, preview.as_ref()));
    }
    let unsafe_files = preview.as_ref().is_some_and(|p| !p.unsafe_files.is_empty());
    let policy = match (a.policy, &asker, &preview) {
        (Some(p), _, _) => p.into(),
        (None, Some(asker), Some(p)) if unsafe_files => match ask::choose_policy(asker, p)? {
            Some(p) => p,
            None => return Ok(cancelled()),
        },
        (None, None, Some(_)) if unsafe_files => {
            return Err(unanswered(&["--policy block|skip|merge|force"])
                .context("files were edited since the agent changed them"));
        }
        _ => Policy::Block,
    };
    let confirmed = match &asker {
        _ if a.yes => true,
        Some(asker) => asker.confirm(&ask::question(scope))?,
        None => unreachable!("checked above"),
    };
    if !confirmed {
        return Ok(cancelled());
    }
    if first != verb(scope) {
        drop(engine);
        engine = ctx.engine(verb(scope))?;
    }
    let opts = Options {
        scope: scope.scope(),
        to: chosen.id,
        policy,
        paths: Vec::new(),
    };
    let mut out = engine.rewind(&session_id, opts)?;
    rewind_host::agent_copy::settle_rewind(&mut out);
    rewind_host::agent_copy::bind::expect_rewind(&ctx.db, &out, &session_id);
    let (text, refused) = outcome_text(ctx, &session_id, &out);
    Ok(Report::new(&out, text).refused(refused))
}

/// The apply lock only when files are written.
fn verb(scope: ScopeArg) -> Verb {
    Verb::Rewind {
        files: scope.files(),
    }
}

fn cancelled() -> Report {
    Report::new(
        &serde_json::json!({ "cancelled": true }),
        "cancelled; nothing changed",
    )
}

/// What the rewind would do: the conversation part, the file preview and its diff.
fn what_happens(
    ctx: &Context,
    p: &Prompt,
    newest: u64,
    scope: ScopeArg,
    files: Option<(&Preview, Option<&RewindDiff>)>,
) -> String {
    let mut t = String::new();
    let _ = writeln!(t);
    if scope != ScopeArg::Code {
        let gone = newest.saturating_sub(p.number) + 1;
        let _ = writeln!(
            t,
            "conversation: back to before {}; {} leave the active branch (kept in the log)",
            ctx.style.paint(Role::Meta, format!("#{}", p.number)),
            crate::style::count(usize::try_from(gone).unwrap_or(usize::MAX), "turn")
        );
    }
    if let Some((preview, diff)) = files {
        // No commands to run instead: the next question asks how to treat conflicts.
        let _ = writeln!(
            t,
            "files:\n{}",
            super::verdict::preview(&ctx.style, preview, None)
        );
        if let Some(diff) = diff.filter(|d| !d.files.is_empty()) {
            let _ = writeln!(t, "\n{}", super::diff::render(&ctx.style, diff).trim_end());
        }
    } else {
        let _ = writeln!(t, "files: untouched");
    }
    t
}

/// One or two lines after the paged text: where the conversation goes and what the files
/// come to (the preview's totals and verdict).
fn summary(
    ctx: &Context,
    p: &Prompt,
    newest: u64,
    scope: ScopeArg,
    preview: Option<&Preview>,
) -> String {
    let mut t = format!(
        "{} before {}:",
        ctx.style.paint(Role::Heading, "Going back to"),
        ctx.style.paint(Role::Meta, format!("#{}", p.number))
    );
    if scope != ScopeArg::Code {
        let gone = usize::try_from(newest.saturating_sub(p.number) + 1).unwrap_or(usize::MAX);
        let _ = write!(
            t,
            "\n  conversation: {} leave the active branch",
            crate::style::count(gone, "turn")
        );
    }
    match preview {
        Some(preview) => {
            let text = super::verdict::preview(&ctx.style, preview, None);
            let last = text.lines().last().unwrap_or_default();
            let _ = write!(t, "\n  files: {last}");
        }
        None => t.push_str("\n  files: untouched"),
    }
    t
}

/// The report of the rewind done, as its own command reports it, and whether it was refused.
fn outcome_text(ctx: &Context, session: &SessionId, out: &Outcome) -> (String, bool) {
    match out {
        Outcome::Conversation(o) => (
            format!(
                "{}\nthe removed turns stay in the log: {}",
                super::conversation::describe(&ctx.style, session, o),
                ctx.style.hint("rewind log --all")
            ),
            false,
        ),
        Outcome::Workspace(o) => (
            super::verdict::outcome(&ctx.style, session, o, None),
            super::verdict::refused(o),
        ),
        Outcome::Both(o) => {
            let mut t = super::both::describe(&ctx.style, session, o, None);
            if o.rewound {
                t.push_str("\n`rewind undo` takes back both: the files and the conversation");
            }
            (t, !o.rewound)
        }
    }
}
