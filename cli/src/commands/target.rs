//! What a file rewind restores, as `preview`, `diff` and `apply` take it: exactly one of
//! `--to TARGET` (once `--since`, still accepted), `--turn TURN`, `--checkpoint ID`, plus `--path`
//! filters. `--to` is the target flag of every rewind (`conversation`, `both`, `pick` too): a
//! point written the same way everywhere (`#N`, `@`, `@-N`, an id or a unique prefix).

use super::refs::{Lookup, Ref, TurnOrMessage, resolve_opt};
use super::{CliError, SessionArg};
use rewind_core::files::TargetOptions;
use rewind_core::id::{CheckpointId, MessageId, SessionId};

/// Exactly one target, plus an optional path filter (shared with `apply`).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["to", "turn", "checkpoint"])))]
pub(super) struct TargetArgs {
    #[command(flatten)]
    pub(super) session: SessionArg,
    /// Back to before this prompt (#N, @, @-1, an id or prefix): its turn and everything after.
    #[arg(long, alias = "since", value_name = "TARGET", add = super::candidates::turns())]
    to: Option<String>,
    /// Only this turn (#N, @, @-1, a turn id, or a message of it).
    #[arg(long, value_name = "TURN", add = super::candidates::turns())]
    turn: Option<String>,
    /// Only this checkpoint (an id or a unique prefix).
    #[arg(long, value_name = "ID", add = super::candidates::checkpoints())]
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
            since: Ref::opt(self.to.as_deref())?,
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
