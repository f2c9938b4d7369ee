//! `rewind session new|list`.

use super::{Access, CliError, Context, Report};
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

/// Children under their parent, indented; a child whose parent is missing is shown at the top.
fn tree(
    all: &[rewind_core::model::Session],
    parent: Option<&rewind_core::id::SessionId>,
    depth: usize,
    out: &mut String,
) {
    for s in all.iter().filter(|s| match parent {
        Some(p) => s.parent_id.as_ref() == Some(p),
        None => s
            .parent_id
            .as_ref()
            .is_none_or(|p| !all.iter().any(|x| &x.id == p)),
    }) {
        let _ = writeln!(
            out,
            "{}{}  {:<11} {}",
            "  ".repeat(depth),
            s.id,
            s.kind.as_str(),
            s.title
        );
        tree(all, Some(&s.id), depth + 1, out);
    }
}

pub(super) fn run(ctx: &Context, args: Args) -> Result<Report, CliError> {
    match args {
        Args::New { title } => {
            let mut engine = ctx.engine(Access::Record)?;
            let s = engine.create_session(SessionOptions {
                title,
                workspace_label: None,
                agent: None,
            })?;
            let text = format!("{}  {}", s.id, s.title);
            Ok(Report::new(&s, text))
        }
        Args::List => {
            let engine = ctx.engine(Access::Read)?;
            let sessions = engine.sessions()?;
            let rows: Vec<serde_json::Value> = sessions
                .items
                .iter()
                .map(|s| serde_json::json!({ "id": s.id, "parentId": s.parent_id, "kind": s.kind, "title": s.title, "createdAt": s.created_at }))
                .collect();
            let mut text = String::new();
            tree(&sessions.items, None, 0, &mut text);
            if rows.is_empty() {
                text.push_str("no sessions yet (rewind session new)");
            }
            Ok(Report::new(&rows, text))
        }
    }
}
