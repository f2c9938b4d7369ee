//! `rewind session new|list`.

use super::{CliError, Context, Report};
use rewind_core::record::SessionOptions;
use std::fmt::Write as _;

#[derive(Debug, clap::Subcommand)]
pub(super) enum Args {
    /// Start a session.
    New {
        /// Its title.
        #[arg(long)]
        title: Option<String>,
    },
    /// List sessions (forks under their parent).
    List,
}

pub(super) fn run(ctx: &Context, args: Args) -> Result<Report, CliError> {
    let mut engine = ctx.engine()?;
    match args {
        Args::New { title } => {
            let s = engine.create_session(SessionOptions {
                title,
                workspace_label: None,
            })?;
            let text = format!("{}  {}", s.id, s.title);
            Ok(Report::new(&s, text))
        }
        Args::List => {
            let sessions = engine.sessions()?;
            let mut text = String::new();
            let rows: Vec<serde_json::Value> = sessions
                .items
                .iter()
                .map(|s| {
                    let _ = writeln!(text, "{}  {:<11} {}", s.id, s.kind.as_str(), s.title);
                    serde_json::json!({ "id": s.id, "parentId": s.parent_id, "kind": s.kind, "title": s.title, "createdAt": s.created_at })
                })
                .collect();
            if rows.is_empty() {
                text.push_str("no sessions yet (rewind session new)");
            }
            Ok(Report::new(&rows, text))
        }
    }
}
