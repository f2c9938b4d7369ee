//! `rewind session rename [SESSION] TITLE` and `rewind session rm SESSION [--with-forks]
//! [--dry-run]`: the core's `rename` and `remove` verbs. Both change the store, so a session
//! given by prefix needs at least `MIN_PREFIX_TO_CHANGE` characters; neither asks anything.
//! A removed session that was the workspace's current one stops being current.

use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, Style, count, visible};
use rewind_core::remove::{Options, Outcome, Removed};
use rewind_core::rename;
use rewind_host::current;
use std::fmt::Write as _;

/// `session rename`: the title is checked before anything is opened.
pub(super) fn rename(
    ctx: &Context,
    session: Option<String>,
    title: &str,
) -> Result<Report, CliError> {
    rename::checked_title(title)?;
    let mut engine = ctx.engine(Verb::RenameSession)?;
    let id = ctx.session(&engine, &SessionArg { session })?;
    let out = engine.rename_session(
        &id,
        rename::Options {
            title: title.to_owned(),
        },
    )?;
    let s = &ctx.style;
    let text = if out.changed {
        format!(
            "renamed {}: {} → {}",
            s.id(id.as_str()),
            visible(&out.previous_title),
            visible(&out.title)
        )
    } else {
        format!(
            "{} is already titled {}; nothing changed",
            s.id(id.as_str()),
            visible(&out.title)
        )
    };
    Ok(Report::new(&out, text))
}

/// One removed session's line.
fn line(s: &Style, r: &Removed, depth: usize) -> String {
    let what = match &r.parent_id {
        Some(p) => format!("{} of {}", r.kind.as_str(), s.id(p.as_str())),
        None => r.kind.as_str().to_owned(),
    };
    format!(
        "{}{}  {}  {}",
        "  ".repeat(depth),
        s.id(r.session_id.as_str()),
        visible(&r.title),
        s.paint(
            Role::Dim,
            format!(
                "({what}: {}, {}, {})",
                count(r.turns, "turn"),
                count(usize::try_from(r.messages).unwrap_or(usize::MAX), "message"),
                count(r.checkpoints, "checkpoint")
            )
        )
    )
}

fn describe(s: &Style, out: &Outcome) -> String {
    let mut t = String::new();
    let head = if out.applied {
        "removed"
    } else {
        "would remove"
    };
    let _ = writeln!(t, "{head} {}:", count(out.removed.len(), "session"));
    for r in &out.removed {
        let depth = std::iter::successors(r.parent_id.as_ref(), |p| {
            out.removed
                .iter()
                .find(|x| &x.session_id == *p)
                .and_then(|x| x.parent_id.as_ref())
        })
        .take_while(|p| out.removed.iter().any(|x| &x.session_id == *p))
        .count();
        let _ = writeln!(t, "  {}", line(s, r, depth));
    }
    if out.applied {
        let _ = write!(
            t,
            "files in the workspace were not touched; {} frees the content only these sessions \
             referenced",
            s.hint("rewind gc")
        );
    } else {
        let _ = write!(
            t,
            "nothing was removed (--dry-run); run it without --dry-run to remove {}",
            if out.removed.len() == 1 { "it" } else { "them" }
        );
    }
    t
}

/// `session rm`.
pub(super) fn rm(
    ctx: &Context,
    session: &str,
    with_forks: bool,
    dry_run: bool,
) -> Result<Report, CliError> {
    let mut engine = ctx.engine(Verb::RemoveSession)?;
    let id = super::refs::session(ctx.lookup(&engine), session)?;
    let out = engine.remove_session(
        &id,
        Options {
            with_forks,
            dry_run,
        },
    )?;
    if out.applied {
        for r in &out.removed {
            current::clear_if(&ctx.db, &r.session_id).map_err(|e| {
                CliError::host(e.to_string()).context(&format!(
                    "session {id} was removed, but the workspace still names it current"
                ))
            })?;
        }
    }
    let text = describe(&ctx.style, &out);
    Ok(Report::new(&out, text))
}
