//! `rewind fork [SESSION] (--at MSG | --checkpoint ID | --turn TURN) [--command-id ID]
//! [--workspace-mode shared|restore]`.

use super::refs::{Ref, resolve_opt};
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::Style;
use rewind_core::fork::{Options, Outcome, WorkspaceMode};
use std::fmt::Write as _;

/// What a fork does to the files.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum)]
pub(super) enum ModeArg {
    /// Touch no file.
    #[default]
    Shared,
    /// Undo the changes recorded after the fork point (refused on any conflict).
    Restore,
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("point").required(true).args(["at", "checkpoint", "turn"])))]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// Fork through the turn of this message.
    #[arg(long, value_name = "MSG", add = super::candidates::turns())]
    at: Option<String>,
    /// Fork right after this checkpoint.
    #[arg(long, value_name = "ID", add = super::candidates::checkpoints())]
    checkpoint: Option<String>,
    /// Fork at this completed turn's stable boundary (conversation only).
    #[arg(long, value_name = "TURN", add = super::candidates::turns())]
    turn: Option<String>,
    /// Idempotency key (any key of yours: a UUID, `cmd_…`): the same key returns the same child
    /// and writes nothing.
    #[arg(long, value_name = "ID")]
    command_id: Option<String>,
    /// Shared (touch no file) or restore (put files back to the fork point).
    #[arg(long, value_enum, default_value_t)]
    workspace_mode: ModeArg,
}

/// The human form, shared with `side-chat`.
pub(super) fn describe(style: &Style, out: &Outcome, what: &str) -> String {
    let mut t = format!(
        "{what} {}: {} and {} copied{}",
        out.child_id,
        crate::style::count(out.copied_messages, "message"),
        crate::style::count(out.copied_checkpoints, "checkpoint"),
        if out.replayed {
            " (replayed: this command had already run; nothing was written)"
        } else {
            ""
        }
    );
    for f in &out.restored_files {
        let _ = write!(
            t,
            "\n  {:<8} {}",
            format!("{:?}", f.action).to_lowercase(),
            crate::style::visible(f.path.as_str())
        );
    }
    t.push_str(&super::agent_resume::describe(
        style,
        out.agent_resume.as_deref(),
    ));
    t
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let (at, checkpoint, turn) = (
        Ref::opt(a.at.as_deref())?,
        Ref::opt(a.checkpoint.as_deref())?,
        Ref::opt(a.turn.as_deref())?,
    );
    let command_id = a
        .command_id
        .as_deref()
        .map(super::refs::command_id)
        .transpose()?;
    let restore = matches!(a.workspace_mode, ModeArg::Restore);
    // Only a restoring fork writes files; every fork commits under the apply lock.
    let mut engine = ctx.engine(Verb::Fork { restore })?;
    let session = ctx.session(&engine, &a.session)?;
    let opts = Options {
        at: resolve_opt(at.as_ref(), ctx.lookup(&engine), &session)?,
        checkpoint: resolve_opt(checkpoint.as_ref(), ctx.lookup(&engine), &session)?,
        turn: resolve_opt(turn.as_ref(), ctx.lookup(&engine), &session)?,
        command_id,
        workspace_mode: match a.workspace_mode {
            ModeArg::Shared => WorkspaceMode::Shared,
            ModeArg::Restore => WorkspaceMode::Restore,
        },
    };
    let mut out = engine.fork(&session, opts)?;
    rewind_host::agent_copy::settle(&mut out.agent_resume);
    rewind_host::agent_copy::bind::expect(&ctx.db, out.agent_resume.as_deref(), &out.child_id);
    let text = describe(&ctx.style, &out, "forked into");
    Ok(Report::new(&out, text))
}
