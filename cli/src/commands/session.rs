//! `rewind session new|list|use|rename|rm`. The session `new` starts, or `use` names, becomes the
//! workspace's current session: the one every other command acts on when it is given none.
//! `rename` and `rm` are in `session_admin`.

use super::{CliError, Context, Report, Verb};
use crate::style::{Role, Style, count, visible};
use rewind_core::id::SessionId;
use rewind_core::model::{Message, Millis, Session};
use rewind_core::ports::{SeqRange, Store as _};
use rewind_core::record::SessionOptions;
use rewind_host::current;
use rewind_host::native::NativeEngine;
use std::fmt::Write as _;

#[derive(Debug, clap::Subcommand)]
pub(super) enum Args {
    /// Start a session (and make it the current one).
    New {
        /// Its title.
        #[arg(long)]
        title: Option<String>,
    },
    /// List sessions (forks under their parent; `*` marks the current one).
    List,
    /// Make a session the current one: commands given no session act on it.
    Use {
        /// The session.
        #[arg(add = super::candidates::sessions())]
        session: String,
    },
    /// Give a session a new title (nothing else changes): `rename TITLE` retitles the current one.
    #[command(allow_missing_positional = true)]
    Rename {
        /// The session (an id or a unique prefix of at least 4 characters; default: the current
        /// one).
        #[arg(add = super::candidates::sessions())]
        session: Option<String>,
        /// Its new title (one line, 1 to 500 characters).
        title: String,
    },
    /// Delete a session and everything recorded in it; workspace files are not touched.
    #[command(visible_alias = "remove")]
    Rm {
        /// The session (an id or a unique prefix of at least 4 characters).
        #[arg(add = super::candidates::sessions())]
        session: String,
        /// Also delete its forks and side chats (and theirs); without it a session that has
        /// any is refused.
        #[arg(long)]
        with_forks: bool,
        /// Show what would be deleted; delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// Mark `session` current once it exists, saying what already happened if that fails.
fn mark(ctx: &Context, session: &SessionId, done: &str) -> Result<(), CliError> {
    current::mark(&ctx.db, session).map_err(|e| {
        CliError::host(e.to_string()).context(&format!(
            "{done}, but it could not be made the current session"
        ))
    })
}

/// A session's turn count and its last activity (its newest message, else its creation).
#[derive(Clone, Copy)]
struct Activity {
    turns: usize,
    last: Millis,
}

fn activity(engine: &NativeEngine, s: &Session) -> Result<Activity, CliError> {
    let host = |e: rewind_core::HostError| CliError::host(e.to_string());
    let store = engine.store();
    // A count over the turns index, not every turn row decoded.
    let turns = store.turn_count_in(&s.id, SeqRange::ALL).map_err(host)?;
    let turns = usize::try_from(turns).unwrap_or(usize::MAX);
    let newest = store
        .last_messages_in(&s.id, SeqRange::ALL, 1)
        .map_err(host)?
        .into_iter()
        .next()
        .and_then(|row| serde_json::from_str::<Message>(&row.body).ok())
        .map(|m| m.created_at);
    Ok(Activity {
        turns,
        last: newest.unwrap_or(s.created_at).max(s.created_at),
    })
}

/// Children under their parent, indented; a child whose parent is missing is shown at the top.
fn tree(
    all: &[(Session, Activity)],
    style: &Style,
    parent: Option<&SessionId>,
    current: Option<&SessionId>,
    depth: usize,
    out: &mut String,
) {
    for (s, act) in all.iter().filter(|(s, _)| match parent {
        Some(p) => s.parent_id.as_ref() == Some(p),
        None => s
            .parent_id
            .as_ref()
            .is_none_or(|p| !all.iter().any(|(x, _)| &x.id == p)),
    }) {
        let mark = if current == Some(&s.id) { '*' } else { ' ' };
        let _ = write!(
            out,
            "{}{} {mark} {:<11} {}",
            "  ".repeat(depth),
            visible(s.id.as_str()),
            s.kind.as_str(),
            visible(&s.title)
        );
        if let Some(a) = &s.agent {
            let _ = write!(out, "  [{} {}]", visible(&a.agent), visible(&a.session_id));
        }
        let _ = write!(
            out,
            "  {}",
            style.paint(
                Role::Dim,
                format!(
                    "({}, last active {})",
                    count(act.turns, "turn"),
                    style.time(act.last)
                )
            )
        );
        out.push('\n');
        tree(all, style, Some(&s.id), current, depth + 1, out);
    }
}

pub(super) fn run(ctx: &Context, args: Args) -> Result<Report, CliError> {
    match args {
        Args::New { title } => {
            let mut engine = ctx.engine(Verb::CreateSession)?;
            let s = engine.create_session(SessionOptions {
                title,
                workspace_label: None,
                agent: None,
            })?;
            mark(ctx, &s.id, &format!("session {} was created", s.id))?;
            let text = format!("{}  {}", s.id, visible(&s.title));
            Ok(Report::new(&s, text))
        }
        Args::Use { session } => {
            let engine = ctx.engine(Verb::ActiveBranch)?;
            let id = super::refs::session(ctx.lookup(&engine), &session)?;
            let s = rewind_core::load::session(engine.store(), &id)?;
            mark(ctx, &s.id, &format!("session {} exists", s.id))?;
            let text = format!("current session: {}  {}", s.id, visible(&s.title));
            Ok(Report::new(&s, text))
        }
        Args::Rename { session, title } => super::session_admin::rename(ctx, session, &title),
        Args::Rm {
            session,
            with_forks,
            dry_run,
        } => super::session_admin::rm(ctx, &session, with_forks, dry_run),
        Args::List => {
            let engine = ctx.engine(Verb::ListSessions)?;
            let sessions = engine.sessions()?;
            let current =
                current::read(&ctx.db).filter(|c| sessions.items.iter().any(|s| &s.id == c));
            let listed = sessions
                .items
                .into_iter()
                .map(|s| activity(&engine, &s).map(|a| (s, a)))
                .collect::<Result<Vec<_>, _>>()?;
            let rows: Vec<serde_json::Value> = listed
                .iter()
                .map(|(s, act)| {
                    serde_json::json!({
                        "id": s.id,
                        "parentId": s.parent_id,
                        "kind": s.kind,
                        "title": s.title,
                        "createdAt": s.created_at,
                        "agent": s.agent,
                        "current": current.as_ref() == Some(&s.id),
                        "turns": act.turns,
                        "lastActiveAt": act.last,
                    })
                })
                .collect();
            let mut text = String::new();
            tree(&listed, &ctx.style, None, current.as_ref(), 0, &mut text);
            if rows.is_empty() {
                text.push_str("no sessions yet (rewind session new)");
            }
            Ok(Report::new(&rows, text))
        }
    }
}
