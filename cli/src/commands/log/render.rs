//! One message of the log as text and as its JSON entry, the header and footer around them, and
//! the JSON document whose `messages` are encoded as the pages are read.

use super::pages::Item;
use super::{Entry, Log, Walk, first_line};
use crate::style::{Role, count, visible};
use rewind_core::branch::MessageView;
use rewind_core::id::SessionId;
use rewind_core::load::Diagnostic;
use rewind_core::resume::CheckpointSummary;
use serde::ser::{Error as _, SerializeSeq as _};
use serde::{Serialize, Serializer};
use std::cell::RefCell;
use std::fmt::Write as _;

impl Log<'_> {
    /// The first line (or two): the session, its generation and its turns.
    pub(super) fn header(&self, turns: usize, shown: usize) -> String {
        let style = &self.style;
        let mut n = count(turns, "turn");
        if shown < turns {
            let _ = write!(n, " (the latest {shown} shown)");
        }
        if !self.all && self.session.generation > 0 {
            let _ = write!(
                n,
                "\n{}",
                style.paint(
                    Role::Dim,
                    "rewinds took turns off the branch: `rewind log --all` shows them, `rewind \
                     undo` brings the latest back"
                )
            );
        }
        format!(
            "session {} {}, generation {}, {n}\n",
            style.id(self.session.id.as_str()),
            style.text(Role::Heading, format!("({})", self.session.title)),
            self.session.generation,
        )
    }

    /// The lines after the last message: rows that did not decode, and what `x` means.
    pub(super) fn footer(&self, diagnostics: &[Diagnostic]) -> String {
        let mut t = String::new();
        for d in diagnostics {
            let _ = writeln!(
                t,
                "{} {} {} (seq {}) could not be read: {}",
                self.style.paint(Role::Bad, "!"),
                d.kind,
                visible(&d.id),
                d.seq,
                visible(&d.reason)
            );
        }
        if self.all {
            t.push_str("(x = not on the active branch)\n");
        }
        t
    }

    /// A message's entry and its lines: the message, a prompt's checkpoints and, with `--stat`
    /// or `-p`, its turn's changes (a blank line around them: `gap`).
    pub(super) fn entry(&self, item: Item, gap: &mut bool) -> (Entry, String) {
        let style = &self.style;
        let m = &item.message;
        let checkpoints: Vec<CheckpointSummary> = item
            .checkpoints
            .iter()
            .map(|c| CheckpointSummary::of(c, &self.undone))
            .collect();
        let mark = if item.on_branch { " " } else { "x" };
        let head = match item.turn_number {
            Some(n) => style.paint(Role::Meta, format!("{:<5}", format!("#{n}"))),
            None if m.is_prompt() => style.paint(Role::Dim, "#-   "),
            None => "     ".to_owned(),
        };
        let line = first_line(&m.text(), 70);
        let text = if m.is_prompt() {
            style.paint(Role::Heading, line)
        } else {
            line
        };
        let mut t = String::new();
        if std::mem::take(gap) {
            t.push('\n');
        }
        let _ = writeln!(
            t,
            "{mark} {head}{} {:<10} {}  {text}",
            style.id(m.id.as_str()),
            super::super::verdict::word(&m.kind),
            style.time(m.created_at),
        );
        for c in &checkpoints {
            for f in &c.files {
                let state = if f.undone {
                    style.paint(Role::Dim, " (undone)")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    t,
                    "{mark}         {} {} {}{state}",
                    style.id(c.checkpoint_id.as_str()),
                    visible(&c.tool_name),
                    visible(f.path.as_str())
                );
            }
        }
        let diff = (m.is_prompt() && (self.stat || self.patch)).then(|| {
            let store = self.engine.store();
            super::super::show::forward(store, &self.session.id, &item.checkpoints)
        });
        if let Some(d) = &diff
            && !d.files.is_empty()
        {
            t.push('\n');
            t.push_str(&super::super::show::changes(style, d, self.stat));
            if self.stat && self.patch {
                t.push('\n');
                t.push_str(super::super::diff::render(style, d).trim_end());
            }
            t.push('\n');
            *gap = true;
        }
        let diff = diff.map(|mut d| {
            if !self.patch {
                d.files.iter_mut().for_each(|f| f.hunks.clear());
            }
            d
        });
        let entry = Entry {
            message: MessageView::from(m),
            on_branch: item.on_branch,
            turn_number: item.turn_number,
            checkpoints,
            diff,
        };
        (entry, t)
    }
}

/// `rewind log --json`: the fields in the order of the document a whole read gives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Doc<'a, 'w> {
    pub(super) session_id: SessionId,
    pub(super) generation: u64,
    pub(super) messages: Messages<'a, 'w>,
    pub(super) diagnostics: Diagnostics<'a, 'w>,
}

/// The entries, read page by page while they are encoded.
pub(super) struct Messages<'a, 'w>(pub(super) &'w RefCell<Walk<'a>>);

impl Serialize for Messages<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut walk = self.0.borrow_mut();
        let mut seq = s.serialize_seq(None)?;
        loop {
            match walk.page() {
                Ok(Some(page)) => {
                    for (entry, _) in page {
                        seq.serialize_element(&entry)?;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    walk.failed = Some(e);
                    return Err(S::Error::custom("reading the store failed"));
                }
            }
        }
        seq.end()
    }
}

/// The rows that did not decode, known once every page was read; then the operations' (given).
pub(super) struct Diagnostics<'a, 'w>(
    pub(super) &'w RefCell<Walk<'a>>,
    pub(super) RefCell<Option<Vec<Diagnostic>>>,
);

impl Serialize for Diagnostics<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let more = self.1.borrow_mut().take().unwrap_or_default();
        self.0.borrow_mut().pages.diagnostics(more).serialize(s)
    }
}
