//! The `preview` and `apply` verbs over a since / turn / checkpoint target.

use super::dirs::plan;
use super::execute::{Finish, execute};
use super::gather::{gather, log_for};
use super::writes::{Executed, RestoredFile};
use super::{Error, Preview, Target};
use crate::batch::Batch;
use crate::ctx::Ports;
use crate::id::{CheckpointId, MessageId, OperationId, SessionId, TurnId};
use crate::load::SessionLog;
use crate::model::{OpTarget, OperationKind, Policy};
use crate::path::WorkPath;
use serde::{Deserialize, Serialize};

/// Exactly one target plus an optional path filter.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetOptions {
    /// Rewind to before this prompt: its turn and everything after.
    #[serde(default)]
    pub since: Option<MessageId>,
    /// Only one turn: a turn id, or any message id of the turn.
    #[serde(default)]
    pub turn: Option<String>,
    /// Only one checkpoint.
    #[serde(default)]
    pub checkpoint: Option<CheckpointId>,
    /// Only these paths (a directory covers what lies below it). Empty = every path.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Also undo the person's own changes that workspace snapshots recorded between turns
    /// (`external` checkpoints). Off by default: those are kept, and shown as conflicts where
    /// the agent's changes being undone touched the same files.
    #[serde(default)]
    pub include_external: bool,
}

impl TargetOptions {
    pub(crate) fn target(&self) -> Result<Target, Error> {
        let turn = match self.turn.as_deref() {
            None => None,
            Some(t) if t.starts_with(TurnId::PREFIX) => Some(Target::Turn(
                TurnId::parse(t).map_err(|e| Error::InvalidInput(e.to_string()))?,
            )),
            Some(m) => Some(Target::TurnOf(
                MessageId::parse(m).map_err(|e| Error::InvalidInput(e.to_string()))?,
            )),
        };
        let all = [
            self.since.clone().map(Target::Since),
            turn,
            self.checkpoint.clone().map(Target::Checkpoint),
        ];
        let mut given = all.into_iter().flatten();
        match (given.next(), given.next()) {
            (Some(t), None) => Ok(t),
            (None, _) => Err(Error::InvalidInput(
                "give one target: since, turn or checkpoint".into(),
            )),
            (Some(_), Some(_)) => Err(Error::InvalidInput(
                "give only one target: since, turn or checkpoint".into(),
            )),
        }
    }

    pub(crate) fn filter(&self) -> Result<Vec<WorkPath>, Error> {
        Ok(self
            .paths
            .iter()
            .map(|p| WorkPath::parse(p))
            .collect::<Result<_, _>>()?)
    }
}

/// Options of [`preview`].
pub type PreviewOptions = TargetOptions;

/// Options of [`apply`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyOptions {
    /// What to rewind.
    #[serde(flatten)]
    pub target: TargetOptions,
    /// How to treat unsafe paths (default `block`).
    #[serde(default)]
    pub policy: Policy,
}

/// What [`apply`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyOutcome {
    /// Whether files were written and the operation recorded.
    pub applied: bool,
    /// The recorded operation (undo it with `undo`).
    pub operation_id: Option<OperationId>,
    /// What was written.
    pub restored_files: Vec<RestoredFile>,
    /// Unsafe paths left as they are.
    pub skipped_files: Vec<String>,
    /// Paths that already held their target: not written.
    pub unchanged_files: Vec<String>,
    /// Why nothing was applied.
    pub cause: Option<String>,
    /// The plan it acted on.
    pub preview: Preview,
}

pub(crate) fn op_target(t: &Target, log: &SessionLog) -> OpTarget {
    match t {
        Target::Since(m) => OpTarget::Since {
            message_id: m.clone(),
        },
        Target::Turn(t) => OpTarget::Turn { turn_id: t.clone() },
        Target::TurnOf(m) => match log.message(m).and_then(|m| m.turn_id.clone()) {
            Some(turn_id) => OpTarget::Turn { turn_id },
            None => OpTarget::Since {
                message_id: m.clone(),
            },
        },
        Target::Checkpoint(c) => OpTarget::Checkpoint {
            checkpoint_id: c.clone(),
        },
    }
}

/// Preview a file rewind: what would be restored, what is unsafe and why. Writes nothing.
pub fn preview(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: TargetOptions,
) -> Result<Preview, Error> {
    let target = opts.target()?;
    let filter = opts.filter()?;
    let log = log_for(p.store, session, &target)?;
    let gathered = gather(&log, &target, &filter, opts.include_external)?;
    Ok(plan(p.store, p.workspace, session.clone(), gathered)?.preview())
}

/// The model-facing notice of a file-only rewind, so the model does not assume files it wrote
/// are still there.
pub(crate) fn notice_text(op: &str, restored: &[RestoredFile]) -> String {
    let files: Vec<String> = restored
        .iter()
        .map(|f| format!("{} {}", f.action.as_str(), f.path))
        .collect();
    format!(
        "Workspace files were rewound by operation {op}: {}. The conversation history was not changed; \
         do not assume the undone file changes are still in place.",
        files.join(", ")
    )
}

pub(crate) fn outcome(ex: Executed, preview: Preview) -> ApplyOutcome {
    ApplyOutcome {
        applied: ex.applied,
        operation_id: ex.operation_id,
        restored_files: ex.restored,
        skipped_files: ex.skipped,
        unchanged_files: preview.unchanged_files.clone(),
        cause: ex.cause,
        preview,
    }
}

/// Apply a file rewind under a policy: re-plan, journal, write with re-checks, record.
pub fn apply(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: ApplyOptions,
) -> Result<ApplyOutcome, Error> {
    let target = opts.target.target()?;
    let filter = opts.target.filter()?;
    let log = log_for(p.store, session, &target)?;
    let gathered = gather(&log, &target, &filter, opts.target.include_external)?;
    let plan = plan(p.store, p.workspace, session.clone(), gathered)?;
    let preview = plan.preview();
    let finish = Finish {
        kind: OperationKind::FileRewind,
        target: Some(op_target(&target, &log)),
        policy: opts.policy,
        undoes: None,
        branch_move: None,
        notice: Some(String::new()),
        extra: Batch::new(),
        note: None,
        operation_id: None,
    };
    let ex = execute_with_notice(p, &plan, finish)?;
    Ok(outcome(ex, preview))
}

/// Run `execute`, filling the notice (when one was asked for) with what will be restored.
pub(crate) fn execute_with_notice(
    p: &mut Ports<'_>,
    plan: &super::Plan,
    mut finish: Finish,
) -> Result<Executed, Error> {
    if finish.notice.is_some() {
        let preview_files: Vec<RestoredFile> = plan
            .paths
            .iter()
            .filter(|pp| !pp.unchanged)
            .filter_map(|pp| {
                let bytes = if pp.conflict.is_none() {
                    pp.target.clone()
                } else {
                    match finish.policy {
                        Policy::Merge => pp.merged.clone().map(Some),
                        Policy::Force if pp.forceable() => pp.target.clone(),
                        _ => None,
                    }
                }?;
                Some(RestoredFile {
                    path: pp.path.to_string(),
                    action: super::plan::PathPlan::action_of(&bytes),
                    merged: false,
                    forced: false,
                })
            })
            .collect();
        finish.notice = Some(notice_text("(this rewind)", &preview_files));
    }
    execute(p, plan, finish)
}
