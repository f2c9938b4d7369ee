//! `rewind undo [SESSION] [OPERATION] [--policy …]` and `rewind redo [SESSION]`. Like jj's
//! `op undo`: with no operation, `undo` takes back the session's latest rewind still in effect
//! (again and again, walking back), and `redo` takes back the latest undo.

use super::apply::PolicyArg;
use super::refs::Ref;
use super::{CliError, Context, NativeEngine, Report, SessionArg, Verb};
use rewind_core::ErrorKind;
use rewind_core::files::in_effect;
use rewind_core::id::{OperationId, SessionId};
use rewind_core::model::{Operation, OperationKind};
use rewind_core::undo::Options;

/// `undo`, `undo OP` or `undo SESSION OP`: a lone argument that is not a session id (`ses_…`) is
/// the operation.
#[derive(Debug, clap::Args)]
#[command(allow_missing_positional = true)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The operation to take back (an id or unique prefix, see `rewind ops`; default: the
    /// latest rewind still in effect).
    operation: Option<String>,
    /// How to treat files edited since.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

/// `redo [SESSION]`.
#[derive(Debug, clap::Args)]
pub(super) struct RedoArgs {
    #[command(flatten)]
    session: SessionArg,
    /// How to treat files edited since.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
}

/// Which operation a bare `undo` or `redo` means.
#[derive(Clone, Copy)]
enum Latest {
    /// The latest rewind (file rewind, both, restoring fork) still in effect.
    Rewind,
    /// The latest undo still in effect.
    Undo,
}

fn latest(
    engine: &NativeEngine,
    session: &SessionId,
    which: Latest,
) -> Result<OperationId, CliError> {
    let ops = engine.operations(session)?.items;
    let kind_of = |id: &OperationId| ops.iter().find(|o| &o.id == id).map(|o| o.kind);
    // Only the undo of a rewind can be redone: a redo is itself an undo (of that undo), and
    // redoing it again would undo the rewind once more, which is `undo`'s job.
    let wanted = |o: &Operation| match which {
        Latest::Rewind => o.kind.writes_files() && o.kind != OperationKind::Undo,
        Latest::Undo => {
            o.kind == OperationKind::Undo
                && o.undoes
                    .as_ref()
                    .and_then(kind_of)
                    .is_some_and(|k| k != OperationKind::Undo)
        }
    };
    ops.iter()
        .rev()
        .find(|o| wanted(o) && !o.files.is_empty() && in_effect(&ops, &o.id))
        .map(|o| o.id.clone())
        .ok_or_else(|| {
            let what = match which {
                Latest::Rewind => "nothing to undo: the session has no file rewind in effect",
                Latest::Undo => "nothing to redo: no rewind of this session is undone",
            };
            CliError::new(ErrorKind::NotFound, format!("{what} (see `rewind ops`)"))
        })
}

fn take_back(
    ctx: &Context,
    session: &SessionArg,
    operation: Option<Ref<OperationId>>,
    which: Latest,
    policy: PolicyArg,
) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Verb::Undo)?;
    let session = ctx.session(&engine, session)?;
    let operation_id = match operation {
        Some(op) => op.resolve(ctx.lookup(&engine), &session)?,
        None => latest(&engine, &session, which)?,
    };
    let opts_id = operation_id.clone();
    let opts = Options {
        operation_id,
        policy: policy.into(),
    };
    let out = engine.undo(&session, opts)?;
    let retry = format!(
        "rewind undo {} {}",
        crate::style::short_id(session.as_str()),
        crate::style::short_id(opts_id.as_str())
    );
    // Taking back a rewind is redone with `redo`; a redo is itself undone with `undo`.
    let text = match which {
        Latest::Rewind if !redoing(&engine, &session, &opts_id)? => {
            super::verdict::outcome_of_undo(&ctx.style, &session, &out, Some(&retry))
        }
        _ => super::verdict::outcome(&ctx.style, &session, &out, Some(&retry)),
    };
    Ok(Report::new(&out, text).refused(super::verdict::refused(&out)))
}

/// Whether `op` is an undo (so taking it back redoes a rewind).
fn redoing(engine: &NativeEngine, session: &SessionId, op: &OperationId) -> Result<bool, CliError> {
    Ok(engine
        .operations(session)?
        .items
        .iter()
        .any(|o| &o.id == op && o.kind == OperationKind::Undo))
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    // clap gives a lone argument to the operation: a session id there means "its latest".
    let (session, operation) = match (a.session.session, a.operation) {
        (None, Some(lone)) if lone.trim().starts_with(SessionId::PREFIX) => (Some(lone), None),
        pair => pair,
    };
    let operation = Ref::opt(operation.as_deref())?;
    take_back(
        ctx,
        &SessionArg { session },
        operation,
        Latest::Rewind,
        a.policy,
    )
}

pub(super) fn run_redo(ctx: &Context, a: RedoArgs) -> Result<Report, CliError> {
    take_back(ctx, &a.session, None, Latest::Undo, a.policy)
}
