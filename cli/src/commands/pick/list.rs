//! The picker's list: the latest prompts of the session's active branch, newest first, each with
//! its turn number and the files its turn changed (+/− lines). It reads only what it shows: the
//! branch backwards from its end until [`LIMIT`] prompts are found, the checkpoints recorded
//! since the oldest of them, the operation log (it grows with rewinds, not with messages) and one
//! indexed count of the turns before them for the numbers. Line counts come from the patches the
//! checkpoints store, so no preview is computed per row.

use super::super::refs::{Lookup, Ref, TurnOrMessage};
use super::super::{CliError, parse_id};
use crate::style::{Role, Style};
use rewind_core::ErrorKind;
use rewind_core::files::undone_changes;
use rewind_core::id::{MessageId, TurnId};
use rewind_core::load;
use rewind_core::model::{Checkpoint, CheckpointKind, Message, Millis, Session};
use rewind_core::patch;
use rewind_core::ports::{SeqRange, Store};
use rewind_host::native::NativeEngine;
use std::collections::BTreeMap;

/// The most prompts listed. People rewind to recent prompts; an older one can still be named
/// with `--turn <message id>`, and stopping here keeps the cost independent of the session.
pub(super) const LIMIT: usize = 50;

/// Rows read by the first backward read of a branch range; each further read doubles it.
const FIRST_WINDOW: usize = 64;

/// One prompt the person can go back to.
#[derive(Clone, Debug)]
pub(super) struct Prompt {
    /// 1-based along the active branch.
    pub(super) number: u64,
    pub(super) id: MessageId,
    pub(super) text: String,
    pub(super) at: Millis,
    /// Files whose change by this turn is still in effect: (additions, deletions) per path.
    pub(super) files: BTreeMap<String, (u32, u32)>,
    /// Changes of this turn an earlier rewind already undid.
    pub(super) undone: usize,
}

impl Prompt {
    /// The first line of the prompt, its control characters made visible (the picker draws
    /// it on the terminal itself, not through the output writer).
    pub(super) fn first_line(&self) -> std::borrow::Cow<'_, str> {
        crate::style::visible(self.text.lines().next().unwrap_or_default().trim_end())
    }

    /// `2 files +12 -3`, `no file changes` or `changes undone`.
    pub(super) fn changes(&self, style: &Style) -> String {
        if self.files.is_empty() {
            return if self.undone > 0 {
                style.paint(Role::Dim, "changes undone")
            } else {
                style.paint(Role::Dim, "no file changes")
            };
        }
        let (add, del) = self.files.values().fold((0u32, 0u32), |(a, d), (x, y)| {
            (a.saturating_add(*x), d.saturating_add(*y))
        });
        format!(
            "{} {} {}",
            crate::style::count(self.files.len(), "file"),
            style.paint(Role::Added, format!("+{add}")),
            style.paint(Role::Removed, format!("-{del}"))
        )
    }
}

/// The latest prompts on the session's active branch, newest first (at most [`LIMIT`]).
pub(super) fn latest(engine: &NativeEngine, session: &Session) -> Result<Vec<Prompt>, CliError> {
    let store = engine.store();
    let messages = latest_prompts(store, session, LIMIT)?;
    let Some(oldest) = messages.last().map(|m| m.seq) else {
        return Ok(Vec::new());
    };
    // Turn numbers: the turns on the branch before the oldest row, then one per row.
    let before: u64 = spans(session, oldest)
        .into_iter()
        .map(|span| store.turn_count_in(&session.id, span))
        .sum::<Result<u64, _>>()
        .map_err(load::Error::from)?;
    let undone = undone_changes(&load::operations(store, &session.id)?.items);
    let mut by_prompt: BTreeMap<MessageId, Vec<Checkpoint>> = BTreeMap::new();
    for row in store
        .checkpoints_in(&session.id, SeqRange::from(oldest))
        .map_err(load::Error::from)?
    {
        // A row that does not decode is left out of the counts; preview and apply report it.
        if let Ok(c) = serde_json::from_str::<Checkpoint>(&row.body) {
            by_prompt.entry(c.prompt_id.clone()).or_default().push(c);
        }
    }
    let total = messages.len() as u64;
    Ok(messages
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let mut p = Prompt {
                number: before + total - i as u64,
                text: m.text(),
                id: m.id,
                at: m.created_at,
                files: BTreeMap::new(),
                undone: 0,
            };
            // The person's own edits (`external`) are not the turn's and are kept by a rewind.
            let agent = |c: &&Checkpoint| c.kind != CheckpointKind::External;
            for c in by_prompt.get(&p.id).into_iter().flatten().filter(agent) {
                for fc in &c.changes {
                    if undone.contains(&(c.id.clone(), fc.path.clone())) {
                        p.undone += 1;
                        continue;
                    }
                    let s = fc.patch.as_deref().map(patch::stats).unwrap_or_default();
                    let e = p.files.entry(fc.path.to_string()).or_default();
                    *e = (
                        e.0.saturating_add(s.additions),
                        e.1.saturating_add(s.deletions),
                    );
                }
            }
            p
        })
        .collect())
}

/// The branch's ranges below `below`, newest first.
fn spans(session: &Session, below: u64) -> Vec<SeqRange> {
    let mut spans: Vec<SeqRange> = session
        .branch
        .ranges
        .iter()
        .map(|r| SeqRange::new(r.start, r.end.unwrap_or(u64::MAX).min(below)))
        .filter(|r| !r.is_empty())
        .collect();
    spans.reverse();
    spans
}

/// Up to `limit` prompts of the active branch, newest first, read backwards in growing windows.
fn latest_prompts(
    store: &dyn Store,
    session: &Session,
    limit: usize,
) -> Result<Vec<Message>, CliError> {
    let mut found = Vec::new();
    for mut span in spans(session, u64::MAX) {
        let mut window = FIRST_WINDOW;
        while !span.is_empty() && found.len() < limit {
            let rows = store
                .last_messages_in(&session.id, span, window)
                .map_err(load::Error::from)?;
            let Some(first) = rows.first().map(|r| r.seq) else {
                break;
            };
            let exhausted = rows.len() < window;
            // Undecodable rows are passed over, as the branch selection does.
            let prompts = rows
                .iter()
                .rev()
                .filter_map(|r| serde_json::from_str::<Message>(&r.body).ok())
                .filter(Message::is_prompt);
            found.extend(prompts.take(limit - found.len()));
            if exhausted {
                break;
            }
            span.to = first;
            window = window.saturating_mul(2);
        }
        if found.len() >= limit {
            break;
        }
    }
    Ok(found)
}

/// The prompt `r` names, as every turn argument takes it (`#N` or a bare number, `@`, `@-N`, a
/// message or turn id or unique prefix): a listed row, or an older prompt of the branch.
pub(super) fn find(
    at: Lookup<'_>,
    session: &Session,
    rows: &[Prompt],
    r: &str,
) -> Result<Prompt, CliError> {
    let bad = |m: String| CliError::new(ErrorKind::InvalidInput, m);
    let typed = match r.trim().parse::<u64>() {
        Ok(_) => format!("#{}", r.trim()),
        Err(_) => r.to_owned(),
    };
    let named = Ref::<TurnOrMessage>::new(&typed)?
        .resolve(at, &session.id)?
        .0;
    let id: MessageId = if named.starts_with(TurnId::PREFIX) {
        load::turn(at.engine.store(), &session.id, &parse_id(&named)?)?.prompt_id
    } else {
        parse_id(&named)?
    };
    if let Some(p) = rows.iter().find(|p| p.id == id) {
        return Ok(p.clone());
    }
    let m = rewind_core::window::message(at.engine.store(), &session.id, &id)?;
    if !m.is_prompt() || !session.branch.contains(m.seq) {
        return Err(bad(format!(
            "{id} is not a prompt on the session's active branch"
        )));
    }
    let before: u64 = spans(session, m.seq)
        .into_iter()
        .map(|span| at.engine.store().turn_count_in(&session.id, span))
        .sum::<Result<u64, _>>()
        .map_err(load::Error::from)?;
    Ok(Prompt {
        number: before + 1,
        text: m.text(),
        id: m.id,
        at: m.created_at,
        files: BTreeMap::new(),
        undone: 0,
    })
}
