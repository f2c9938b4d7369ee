//! `rewind preview [SESSION] (--since MSG | --turn MSG | --checkpoint ID) [--path P]...`.

use super::target::TargetArgs;
use super::{CliError, Context, Report, Verb};

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
    let mut engine = ctx.engine(Verb::PreviewFileRewind)?;
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
