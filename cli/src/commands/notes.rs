//! What is recorded beside prompts and replies: `rewind notice`, `rewind compaction` (the
//! summary the model sees instead of the earlier history) and `rewind failed-capture` (a file
//! whose before-state could not be read, so a rewind reports it instead of guessing).

use super::refs::Ref;
use super::{CliError, Context, Report, SessionArg, Verb};
use rewind_core::id::TurnId;
use rewind_core::record::{CompactionOptions, FailedCaptureOptions, NoticeOptions};

#[derive(Debug, clap::Args)]
pub(super) struct NoticeArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The notice text.
    #[arg(long)]
    text: String,
    /// The turn it belongs to (an id or prefix, #N, @).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// Show it in the UI (notices are hidden by default).
    #[arg(long)]
    show: bool,
    /// Keep it from the model (notices are sent by default).
    #[arg(long)]
    hide_from_model: bool,
}

#[derive(Debug, clap::Args)]
pub(super) struct CompactionArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The summary the model sees instead of the history before it.
    #[arg(long)]
    summary: String,
    /// The turn during which the history was compacted (an id or prefix, #N, @).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
}

#[derive(Debug, clap::Args)]
pub(super) struct FailedCaptureArgs {
    #[command(flatten)]
    session: SessionArg,
    /// The running turn (an id or prefix, or @).
    #[arg(long, value_name = "TURN")]
    turn: String,
    /// The file whose before-state could not be captured.
    #[arg(long, value_name = "P")]
    path: String,
    /// Why (e.g. `read_failed`, `too_large`).
    #[arg(long)]
    reason: String,
    /// The tool that changed it.
    #[arg(long, default_value = "Edit")]
    tool: String,
}

pub(super) fn run_notice(ctx: &Context, a: NoticeArgs) -> Result<Report, CliError> {
    let turn = Ref::<TurnId>::opt(a.turn.as_deref())?;
    let mut engine = ctx.engine(Verb::RecordNotice)?;
    let session = ctx.session(&engine, &a.session)?;
    let opts = NoticeOptions {
        turn_id: super::refs::resolve_opt(turn.as_ref(), ctx.lookup(&engine), &session)?,
        text: a.text,
        visible_to_ui: a.show,
        visible_to_model: !a.hide_from_model,
    };
    let out = engine.record_notice(&session, opts)?;
    let text = format!("notice {}", out.message_id);
    Ok(Report::new(&out, text))
}

pub(super) fn run_compaction(ctx: &Context, a: CompactionArgs) -> Result<Report, CliError> {
    let turn = Ref::<TurnId>::opt(a.turn.as_deref())?;
    let mut engine = ctx.engine(Verb::RecordCompaction)?;
    let session = ctx.session(&engine, &a.session)?;
    let opts = CompactionOptions {
        turn_id: super::refs::resolve_opt(turn.as_ref(), ctx.lookup(&engine), &session)?,
        text: a.summary,
    };
    let out = engine.record_compaction(&session, opts)?;
    let text = format!(
        "compaction summary {}: the model now sees it instead of the history before it",
        out.message_id
    );
    Ok(Report::new(&out, text))
}

pub(super) fn run_failed_capture(ctx: &Context, a: FailedCaptureArgs) -> Result<Report, CliError> {
    let turn = Ref::<TurnId>::new(&a.turn)?;
    let mut engine = ctx.engine(Verb::RecordFailedCapture)?;
    let session = ctx.session(&engine, &a.session)?;
    let opts = FailedCaptureOptions {
        turn_id: turn.resolve(ctx.lookup(&engine), &session)?,
        tool_name: a.tool,
        path: a.path,
        reason: a.reason,
    };
    let out = engine.record_failed_capture(&session, opts)?;
    let text = format!(
        "checkpoint {}: the before-state of {} is unknown; a rewind will report it, not guess",
        out.checkpoint_id,
        out.files
            .iter()
            .map(|f| crate::style::visible(f.path.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(Report::new(&out, text))
}
