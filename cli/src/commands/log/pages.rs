//! The log read in pages of seqs, so `rewind log` holds one page at a time, whatever the
//! session's length: the messages and checkpoints of [`PAGE`] seqs, each prompt with its
//! checkpoints. A checkpoint recorded for an older turn after a later prompt (a tool the agent
//! left running) lies in a later page than its prompt: a first pass over the turns and the
//! checkpoints finds those few ("late"), and the page of their prompt reads them by id.

use rewind_core::id::{CheckpointId, MessageId};
use rewind_core::load::{self, Diagnostic};
use rewind_core::model::{Checkpoint, Message, Session, Turn};
use rewind_core::ports::{Row, SeqRange, Store};
use rewind_core::window;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;

/// Seqs per page. Messages and checkpoints share a session's seqs, so a page holds at most this
/// many rows.
const PAGE: u64 = 512;

/// One message of the log, as listed.
pub(super) struct Item {
    pub(super) message: Message,
    pub(super) on_branch: bool,
    /// The prompt's turn number along the active branch (`#N`); prompts on it only.
    pub(super) turn_number: Option<usize>,
    /// A prompt's checkpoints, by seq.
    pub(super) checkpoints: Vec<Checkpoint>,
}

/// The log from a seq on, page by page.
pub(super) struct Pages<'a> {
    store: &'a dyn Store,
    session: &'a Session,
    all: bool,
    next: u64,
    end: u64,
    /// The number of the last prompt of the active branch listed so far.
    turns: usize,
    /// Checkpoints that lie after a later turn's prompt, by their own prompt: (seq, id).
    late: BTreeMap<MessageId, Vec<(u64, CheckpointId)>>,
    /// Rows that did not decode: messages, turns, checkpoints.
    bad: [Vec<Diagnostic>; 3],
}

/// Decode `rows`, each one that does not decode a diagnostic of `kind`.
fn decode<T: DeserializeOwned>(kind: &str, rows: Vec<Row>, bad: &mut Vec<Diagnostic>) -> Vec<T> {
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        match serde_json::from_str(&row.body) {
            Ok(item) => items.push(item),
            Err(e) => bad.push(Diagnostic {
                kind: kind.to_owned(),
                id: row.id,
                seq: row.seq,
                reason: e.to_string(),
            }),
        }
    }
    items
}

/// The pages of `[from, to)`.
fn pages(from: u64, to: u64) -> impl Iterator<Item = SeqRange> {
    (from..to)
        .step_by(usize::try_from(PAGE).unwrap_or(usize::MAX))
        .map(move |a| SeqRange::new(a, a.saturating_add(PAGE).min(to)))
}

impl<'a> Pages<'a> {
    /// The log of `session` from seq `from` on (`all`: off the active branch too); the active
    /// branch has `turns_before` turns before `from`.
    pub(super) fn new(
        store: &'a dyn Store,
        session: &'a Session,
        all: bool,
        from: u64,
        turns_before: usize,
    ) -> Result<Self, load::Error> {
        let end = store.last_seq(&session.id)?.saturating_add(1);
        let mut p = Self {
            store,
            session,
            all,
            next: from,
            end,
            turns: turns_before,
            late: BTreeMap::new(),
            bad: Default::default(),
        };
        p.find_late()?;
        Ok(p)
    }

    /// The first pass: each checkpoint whose turn is not the latest one begun before it.
    fn find_late(&mut self) -> Result<(), load::Error> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Probe {
            prompt_id: MessageId,
        }
        let s = &self.session.id;
        let mut current: Option<MessageId> = None;
        for range in pages(self.next, self.end) {
            let turns: Vec<Turn> = decode("turn", self.store.turns_in(s, range)?, &mut self.bad[1]);
            let mut turns = turns.into_iter().peekable();
            for row in self.store.checkpoints_in(s, range)? {
                while let Some(t) = turns.next_if(|t| t.prompt_seq < row.seq) {
                    current = Some(t.prompt_id);
                }
                // One that does not decode is reported by the page that holds it.
                let Ok(probe) = serde_json::from_str::<Probe>(&row.body) else {
                    continue;
                };
                if current.as_ref() != Some(&probe.prompt_id) {
                    let id = CheckpointId::parse(&row.id).map_err(|e| load::Error::Corrupt {
                        what: "checkpoint",
                        id: row.id.clone(),
                        reason: e.to_string(),
                    })?;
                    self.late
                        .entry(probe.prompt_id)
                        .or_default()
                        .push((row.seq, id));
                }
            }
            if let Some(t) = turns.last() {
                current = Some(t.prompt_id);
            }
        }
        Ok(())
    }

    /// The next page's messages; `None` after the last.
    pub(super) fn next_page(&mut self) -> Result<Option<Vec<Item>>, load::Error> {
        if self.next >= self.end {
            return Ok(None);
        }
        let range = SeqRange::new(self.next, self.next.saturating_add(PAGE).min(self.end));
        self.next = range.to;
        let s = &self.session.id;
        let messages = window::messages_in(self.store, s, range)?;
        self.bad[0].extend(messages.diagnostics);
        let mut by_prompt: BTreeMap<MessageId, Vec<Checkpoint>> = BTreeMap::new();
        let rows = self.store.checkpoints_in(s, range)?;
        for c in decode::<Checkpoint>("checkpoint", rows, &mut self.bad[2]) {
            by_prompt.entry(c.prompt_id.clone()).or_default().push(c);
        }
        let mut items = Vec::new();
        for m in messages.items {
            let on_branch = self.session.branch.contains(m.seq);
            if !on_branch && !self.all {
                continue;
            }
            let mut checkpoints = Vec::new();
            if m.is_prompt() {
                checkpoints = by_prompt.remove(&m.id).unwrap_or_default();
                checkpoints.extend(self.late_of(&m.id, range.to)?);
            }
            let turn_number = (m.is_prompt() && on_branch).then(|| {
                self.turns += 1;
                self.turns
            });
            items.push(Item {
                message: m,
                on_branch,
                turn_number,
                checkpoints,
            });
        }
        Ok(Some(items))
    }

    /// The late checkpoints of `prompt` in pages from `after` on, read by id (the ones before
    /// are in the prompt's page). One that does not decode is reported by its own page.
    fn late_of(&mut self, prompt: &MessageId, after: u64) -> Result<Vec<Checkpoint>, load::Error> {
        let mut found = Vec::new();
        for (_, id) in self
            .late
            .remove(prompt)
            .into_iter()
            .flatten()
            .filter(|(seq, _)| *seq >= after)
        {
            if let Some(row) = self.store.checkpoint(&self.session.id, &id)?
                && let Ok(c) = serde_json::from_str(&row.body)
            {
                found.push(c);
            }
        }
        Ok(found)
    }

    /// The rows that did not decode, in the order a whole read lists them (messages, turns,
    /// checkpoints), then `more`.
    pub(super) fn diagnostics(&mut self, more: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let mut all: Vec<Diagnostic> = std::mem::take(&mut self.bad)
            .into_iter()
            .flatten()
            .collect();
        all.extend(more);
        all
    }
}

/// The seq of the `n`th latest prompt of the active branch (0 when it has fewer), read
/// backwards in growing windows: what the latest `n` turns cost, whatever the session's length.
pub(super) fn latest_start(
    store: &dyn Store,
    session: &Session,
    n: usize,
) -> Result<u64, load::Error> {
    if n == 0 {
        return Ok(u64::MAX);
    }
    let mut spans: Vec<SeqRange> = session
        .branch
        .ranges
        .iter()
        .map(|r| SeqRange::new(r.start, r.end.unwrap_or(u64::MAX)))
        .collect();
    spans.reverse();
    let mut found = 0;
    for mut span in spans {
        let mut window = 16;
        while !span.is_empty() {
            let rows = store.last_messages_in(&session.id, span, window)?;
            let Some(first) = rows.first().map(|r| r.seq) else {
                break;
            };
            let exhausted = rows.len() < window;
            for r in rows.iter().rev() {
                // Rows that do not decode are passed over, as the branch selection does.
                if serde_json::from_str::<Message>(&r.body).is_ok_and(|m| m.is_prompt()) {
                    found += 1;
                    if found == n {
                        return Ok(r.seq);
                    }
                }
            }
            if exhausted {
                break;
            }
            span.to = first;
            window = window.saturating_mul(2);
        }
    }
    Ok(0)
}
