//! `rewind edit [SESSION] --turn T --path P [--before-file F | --created] [--after-file F | --deleted]`:
//! record what a tool changed. The after-state defaults to the file now on disk.

use super::{Access, CliError, Context, Report, SessionArg, parse_id};
use rewind_core::ErrorKind;
use rewind_core::model::CheckpointKind;
use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use rewind_core::record::{EditChange, EditOptions};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("before").required(true).args(["before_file", "created"])))]
#[command(group(clap::ArgGroup::new("after").args(["after_file", "deleted"])))]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The live turn whose tool made the change.
    #[arg(long)]
    turn: String,
    /// The file, relative to the workspace.
    #[arg(long)]
    path: String,
    /// A file holding the exact bytes before the change.
    #[arg(long, value_name = "FILE")]
    before_file: Option<PathBuf>,
    /// The tool created the file (it did not exist before).
    #[arg(long)]
    created: bool,
    /// A file holding the exact bytes after the change (default: the file now on disk).
    #[arg(long, value_name = "FILE")]
    after_file: Option<PathBuf>,
    /// The tool deleted the file.
    #[arg(long)]
    deleted: bool,
    /// The tool's name.
    #[arg(long, default_value = "Edit")]
    tool: String,
}

fn read(path: &PathBuf) -> Result<Vec<u8>, CliError> {
    // Only regular files: reading a FIFO or a device could block forever or never end.
    let meta = std::fs::metadata(path).map_err(|e| {
        CliError::new(
            ErrorKind::InvalidInput,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    if !meta.is_file() {
        return Err(CliError::new(
            ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    std::fs::read(path).map_err(|e| {
        CliError::new(
            ErrorKind::InvalidInput,
            format!("cannot read {}: {e}", path.display()),
        )
    })
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Access::Record)?;
    let session = ctx.session(&engine, &a.session)?;
    let before = match &a.before_file {
        Some(f) => Some(read(f)?),
        None => None,
    };
    let after = match (&a.after_file, a.deleted) {
        (Some(f), _) => Some(read(f)?),
        (None, true) => None,
        (None, false) => {
            let p = WorkPath::parse(&a.path)
                .map_err(|e| CliError::new(ErrorKind::InvalidPath, e.to_string()))?;
            let now = engine
                .workspace_mut()
                .read(&p)
                .map_err(|e| CliError::from_engine(e.error_kind(), e))?;
            Some(now.ok_or_else(|| {
                CliError::new(
                    ErrorKind::InvalidInput,
                    format!("{p} does not exist; pass --deleted if the tool removed it"),
                )
            })?)
        }
    };
    let kind = if before.is_none() {
        CheckpointKind::Write
    } else {
        CheckpointKind::Edit
    };
    let opts = EditOptions {
        turn_id: parse_id(&a.turn)?,
        tool_name: a.tool,
        tool_call_id: None,
        tool_message_id: None,
        kind,
        changes: vec![EditChange {
            path: a.path,
            before,
            after,
            patch: None,
            before_mode: None,
            after_mode: None,
        }],
    };
    let out = engine.record_edit(&session, opts)?;
    let mut text = format!("checkpoint {}", out.checkpoint_id);
    for f in &out.files {
        let _ = write!(
            text,
            "\n  {}  +{} -{}",
            f.path, f.stats.additions, f.stats.deletions
        );
        if let Some(why) = &f.capture_failed {
            let _ = write!(text, "  (not restorable: {why})");
        }
    }
    Ok(Report::new(&out, text))
}
