//! `rewind preview [SESSION] (--since MSG | --turn MSG | --checkpoint ID) [--path P]...`.

use super::refs::{Lookup, Ref, TurnOrMessage, resolve_opt};
use super::{Access, CliError, Context, Report, SessionArg};
use rewind_core::files::TargetOptions;
use rewind_core::id::{CheckpointId, MessageId, SessionId};

/// Exactly one target, plus an optional path filter (shared with `apply`).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["since", "turn", "checkpoint"])))]
pub(super) struct TargetArgs {
    #[command(flatten)]
    pub(super) session: SessionArg,
    /// Back to before this prompt (an id or prefix, or #N, @, @-1): its turn and everything after.
    #[arg(long, value_name = "MSG")]
    since: Option<String>,
    /// Only this turn (#N, @, @-1, a turn id, or a message of it).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// Only this checkpoint (an id or a unique prefix).
    #[arg(long, value_name = "ID")]
    checkpoint: Option<String>,
    /// Only these paths (repeatable; a directory covers what is below it).
    #[arg(long = "path", value_name = "P")]
    paths: Vec<String>,
    /// Also undo the changes you made between turns that snapshots recorded (`external`
    /// checkpoints); by default they are kept and shown as conflicts.
    #[arg(long)]
    include_external: bool,
}

/// A [`TargetArgs`] whose ids are checked for form, before anything is opened.
#[derive(Debug)]
pub(super) struct Target {
    since: Option<Ref<MessageId>>,
    turn: Option<Ref<TurnOrMessage>>,
    checkpoint: Option<Ref<CheckpointId>>,
    paths: Vec<String>,
    include_external: bool,
}

impl TargetArgs {
    /// Check the ids' form (nothing is opened yet).
    pub(super) fn target(&self) -> Result<Target, CliError> {
        Ok(Target {
            since: Ref::opt(self.since.as_deref())?,
            turn: Ref::opt(self.turn.as_deref())?,
            checkpoint: Ref::opt(self.checkpoint.as_deref())?,
            paths: self.paths.clone(),
            include_external: self.include_external,
        })
    }
}

impl Target {
    /// The engine's options, with prefixes, `#N` and `@` resolved in `session`.
    pub(super) fn options(
        &self,
        at: Lookup<'_>,
        session: &SessionId,
    ) -> Result<TargetOptions, CliError> {
        Ok(TargetOptions {
            since: resolve_opt(self.since.as_ref(), at, session)?,
            turn: resolve_opt(self.turn.as_ref(), at, session)?.map(|t| t.0),
            checkpoint: resolve_opt(self.checkpoint.as_ref(), at, session)?,
            paths: self.paths.clone(),
            include_external: self.include_external,
        })
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    target: TargetArgs,
    /// Also show the unified diff of what the rewind would write (as `rewind diff`).
    #[arg(short = 'p', long)]
    patch: bool,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let target = a.target.target()?;
    let mut engine = ctx.engine(Access::Read)?;
    let session = ctx.session(&engine, &a.target.session)?;
    let opts = target.options(ctx.lookup(&engine), &session)?;
    let retry = super::verdict::retry_command("apply", &session, &opts);
    let diff = match a.patch {
        true => Some(engine.diff_file_rewind(&session, opts.clone())?),
        false => None,
    };
    let preview = engine.preview_file_rewind(&session, opts)?;
    let mut text = super::verdict::preview(&ctx.style, &preview, Some(&retry));
    let mut doc = serde_json::to_value(&preview).unwrap_or_default();
    if let Some(d) = diff {
        text.push_str("\n\n");
        text.push_str(&super::diff::render(&ctx.style, &d));
        // The preview's fields stay as they are; the diff comes beside them.
        if let serde_json::Value::Object(fields) = &mut doc {
            fields.insert("diff".into(), serde_json::to_value(&d).unwrap_or_default());
        }
    }
    Ok(Report::new(&doc, text))
}
