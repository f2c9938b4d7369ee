//! `rewind trust`: say that a store which came from elsewhere (made for another path, or by
//! another user) is yours, so that it may write this workspace's files again.

use super::{CliError, Context, Report};
use rewind_host::native::{Trust, trust_store_in};

#[derive(Debug, clap::Args)]
pub(super) struct Args {}

pub(super) fn run(ctx: &Context, _: Args) -> Result<Report, CliError> {
    let before = trust_store_in(&ctx.workspace, &ctx.db, ctx.store.as_deref())
        .map_err(|e| CliError::from_engine(e.error_kind(), e))?;
    let text = match &before {
        Trust::Owned => format!("{} already belonged to this workspace", ctx.db.display()),
        Trust::Foreign(why) => format!(
            "trusted {} for {} (before: {why})",
            ctx.db.display(),
            ctx.workspace.display()
        ),
    };
    let doc = serde_json::json!({ "db": ctx.db, "workspace": ctx.workspace, "before": before });
    Ok(Report::new(&doc, text))
}
