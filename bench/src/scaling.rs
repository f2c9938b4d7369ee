//! Every everyday call at 1,000, 10,000 and 50,000 messages, on the native SQLite host: the
//! cost must follow the turn, not the session (target: 50k / 1k ≤ 1.5 for each call). Each
//! call is timed alone; its setup (untimed) records whatever it needs first, e.g. a whole turn
//! before a rewind of it. Fork and resume, which must read the whole session, are reported at
//! 10k and 50k.

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, fmt_ms, measure};
use crate::report::{Met, Table};
use crate::scale_data::{self, FILES, Scaled, file_path};
use crate::workload::{self, Change};
use rewind_core::conversation;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::fork::{self, WorkspaceMode};
use rewind_core::id::{MessageId, OperationId, SessionId, TurnId};
use rewind_core::model::Policy;
use rewind_core::revise::{EditOptions, RetryOptions, WorkspaceMode as EditMode};
use rewind_core::{both, undo};
use rewind_host::NativeEngine;
use std::path::Path;

/// Session sizes, in messages.
pub const SIZES: [usize; 3] = [1_000, 10_000, 50_000];

/// The engine over a working copy, the session, and a counter for fresh content.
struct Cx {
    e: NativeEngine,
    s: SessionId,
    ws: std::path::PathBuf,
    round: usize,
}

/// A recorded turn: its ids.
struct Turn {
    turn: TurnId,
    prompt: MessageId,
}

impl Cx {
    fn prompt(&mut self) -> Result<Turn> {
        self.round += 1;
        let (turn, prompt) =
            workload::prompt(&mut self.e, &self.s, format!("round {}", self.round))?;
        Ok(Turn { turn, prompt })
    }

    /// The tool's change of one file: appended to what is on disk now, written, and returned.
    fn change(&self) -> Result<Change> {
        let path = file_path(self.round % FILES);
        let full = self.ws.join(&path);
        let before = std::fs::read(&full)?;
        let mut after = before.clone();
        after.extend_from_slice(format!("// round {}\n", self.round).as_bytes());
        std::fs::write(&full, &after)?;
        Ok(Change {
            path,
            before,
            after,
        })
    }

    fn edit(&mut self, t: &Turn) -> Result<()> {
        let c = self.change()?;
        workload::edit(&mut self.e, &self.s, &t.turn, std::slice::from_ref(&c))
    }

    fn reply(&mut self, t: &Turn) -> Result<()> {
        workload::reply(&mut self.e, &self.s, &t.turn, "done".into())
    }

    /// A whole turn: prompt, one edit, a reply, completion.
    fn turn(&mut self) -> Result<Turn> {
        let t = self.prompt()?;
        self.edit(&t)?;
        self.reply(&t)?;
        workload::complete(&mut self.e, &self.s, &t.turn)?;
        Ok(t)
    }

    fn since(t: &Turn) -> TargetOptions {
        TargetOptions {
            since: Some(t.prompt.clone()),
            ..TargetOptions::default()
        }
    }

    fn apply(&mut self, t: &Turn) -> Result<OperationId> {
        let out = self.e.apply_file_rewind(
            &self.s,
            ApplyOptions {
                target: Self::since(t),
                policy: Policy::Block,
            },
        )?;
        out.operation_id.filter(|_| out.applied).ok_or_else(|| {
            format!(
                "apply did not apply: {:?} {:?}",
                out.cause, out.preview.unsafe_files
            )
            .into()
        })
    }
}

/// The names of the calls, in table order.
const CALLS: &[&str] = &[
    "record_prompt",
    "record_edit (one 2–6 KB file)",
    "record_reply",
    "complete_turn",
    "preview (since the last prompt)",
    "apply (since the last prompt)",
    "undo of that apply",
    "rewind_conversation to the last prompt",
    "both (files + conversation) to the last prompt",
    "edit_last_prompt (files preserved)",
    "retry_last_reply",
];

/// Time call `i` of [`CALLS`] on `cx`.
fn call(cx: &mut Cx, i: usize, n: usize) -> Result<Measured> {
    let w = (2, n);
    match i {
        0 => measure(cx, w, |_| Ok(()), |cx, ()| cx.prompt()),
        1 => measure(cx, w, Cx::prompt, |cx, t| cx.edit(&t)),
        2 => measure(cx, w, Cx::prompt, |cx, t| cx.reply(&t)),
        3 => measure(
            cx,
            w,
            |cx| {
                let t = cx.prompt()?;
                cx.reply(&t)?;
                Ok(t)
            },
            |cx, t| workload::complete(&mut cx.e, &cx.s, &t.turn),
        ),
        4 => measure(cx, w, Cx::turn, |cx, t| {
            Ok(cx.e.preview_file_rewind(&cx.s, Cx::since(&t))?)
        }),
        5 => measure(cx, w, Cx::turn, |cx, t| cx.apply(&t)),
        6 => measure(
            cx,
            w,
            |cx| {
                let t = cx.turn()?;
                cx.apply(&t)
            },
            |cx, operation_id| {
                let out = cx.e.undo(
                    &cx.s,
                    undo::Options {
                        operation_id: Some(operation_id),
                        policy: Policy::Block,
                    },
                )?;
                if out.files.applied {
                    Ok(())
                } else {
                    Err("undo did not apply".into())
                }
            },
        ),
        7 => measure(cx, w, Cx::turn, |cx, t| {
            Ok(cx
                .e
                .rewind_conversation(&cx.s, conversation::Options { to: t.prompt })?)
        }),
        8 => measure(cx, w, Cx::turn, |cx, t| {
            let out = cx.e.rewind_both(
                &cx.s,
                both::Options {
                    to: t.prompt,
                    policy: Policy::Block,
                    paths: Vec::new(),
                },
            )?;
            if out.rewound {
                Ok(())
            } else {
                Err("both did not rewind".into())
            }
        }),
        9 => measure(cx, w, Cx::turn, |cx, t| {
            Ok(cx.e.edit_last_prompt(
                &cx.s,
                EditOptions {
                    message_id: t.prompt,
                    text: "the same, but better".into(),
                    workspace: EditMode::Preserve,
                },
            )?)
        }),
        _ => measure(
            cx,
            w,
            |cx| {
                let t = cx.prompt()?;
                let reply = cx.e.record_reply(
                    &cx.s,
                    rewind_core::record::ReplyOptions {
                        turn_id: t.turn,
                        text: "an answer".into(),
                        error: false,
                        payload: None,
                    },
                )?;
                Ok(reply.message_id)
            },
            |cx, message_id| Ok(cx.e.retry_last_reply(&cx.s, RetryOptions { message_id })?),
        ),
    }
}

/// The scaling table.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Vec<Table>> {
    let sessions: Vec<Scaled> = SIZES
        .iter()
        .map(|&m| scale_data::prepare(data, corpus, m))
        .collect::<Result<_>>()?;
    let mut cxs = Vec::new();
    for s in &sessions {
        let work = data.join(format!("scale{}.work", s.messages));
        cxs.push(Cx {
            e: scale_data::working_copy(s, &work)?,
            s: s.session.clone(),
            ws: work.join("ws"),
            round: 0,
        });
    }
    // Sizes side by side for each call, so a busy moment of the machine lands on one call at
    // every size rather than on one size for every call.
    let mut medians = vec![Vec::new(); CALLS.len()];
    for (i, med) in medians.iter_mut().enumerate() {
        eprintln!("bench: {} at 1k, 10k and 50k messages", CALLS[i]);
        for cx in &mut cxs {
            med.push(call(cx, i, samples * 3)?.samples.median());
        }
    }
    drop(cxs);
    for s in &sessions {
        std::fs::remove_dir_all(data.join(format!("scale{}.work", s.messages)))?;
    }
    let mut t = Table::new("Everyday calls at 1k, 10k and 50k messages (native SQLite)");
    for (name, med) in CALLS.iter().zip(&medians) {
        let ratio = med[2].as_secs_f64() / med[0].as_secs_f64().max(1e-9);
        t.value(
            name,
            format!(
                "{} · {} · {} (50k/1k {ratio:.2}×)",
                fmt_ms(med[0]),
                fmt_ms(med[1]),
                fmt_ms(med[2])
            ),
            "50k/1k ≤ 1.5×",
            Met::from(ratio <= 1.5),
        );
    }
    t.note(
        "Medians at 1,000 · 10,000 · 50,000 messages (turns of a prompt, one file edit and four \
         replies; one checkpoint a turn; 100 files, so at 50k each file has 100 versions, at 1k \
         two), three times the usual samples, the three sizes measured side by side for each \
         call. Each call is timed alone on a working copy of the session's database and \
         workspace; its untimed setup records what it needs (e.g. a whole turn before a rewind \
         of that turn), so every rewind covers one recent turn. Commits are durable as in the \
         shipped host (record batches NORMAL, journals FULL).",
    );
    Ok(vec![t, whole_session(&sessions[1..], samples)?])
}

/// Fork and resume, which read the whole session, at 10k and 50k messages.
fn whole_session(sessions: &[Scaled], samples: usize) -> Result<Table> {
    let mut t = Table::new("Fork and resume at 10k and 50k messages (native SQLite)");
    for s in sessions {
        eprintln!("bench: fork and resume at {} messages", s.messages);
        let work = s.db.with_file_name("whole.work");
        let mut e = scale_data::working_copy(s, &work)?;
        let resume = measure(
            &mut e,
            (1, samples),
            |_| Ok(()),
            |e, ()| {
                let state = e.resume(&s.session)?;
                if state.messages.len() < s.messages {
                    return Err(format!("resume saw {} messages", state.messages.len()).into());
                }
                Ok(state)
            },
        )?;
        let before = db_bytes(&work);
        let (forks, mut rows) = (1 + samples.min(5), 0);
        let fork = measure(
            &mut e,
            (1, samples.min(5)),
            |_| Ok(()),
            |e, ()| {
                let made = e.fork(
                    &s.session,
                    fork::Options {
                        at: Some(s.last_prompt.clone()),
                        workspace_mode: WorkspaceMode::Shared,
                        ..fork::Options::default()
                    },
                )?;
                rows = made.copied_messages + made.copied_checkpoints;
                Ok(made)
            },
        )?;
        let grown = db_bytes(&work).saturating_sub(before) / forks as u64;
        let k = s.messages / 1000;
        t.timed(&format!("resume, {k}k messages"), &resume, "", Met::None);
        let fork_ms = fork.samples.median().as_secs_f64() * 1000.0;
        let (target, met) = match s.messages {
            50_000 => ("≤ 100 ms", Met::from(fork_ms <= 100.0)),
            _ => ("", Met::None),
        };
        t.timed(
            &format!("fork at the last prompt, {k}k messages"),
            &fork,
            target,
            met,
        );
        t.value(
            &format!("rows and bytes one fork adds, {k}k messages"),
            format!(
                "{rows} message and checkpoint rows; the database grew {:.1} MB per fork",
                grown as f64 / 1e6
            ),
            "O(1) rows",
            Met::from(rows <= 1),
        );
        drop(e);
        std::fs::remove_dir_all(&work)?;
    }
    t.note(
        "Resume derives the whole state (branch, model history, active checkpoints). Fork copies \
         the history through the last prompt into a child (bundle + validate + one commit). A \
         fork's growth is the database file and its WAL, before the first fork and after the \
         last, over the forks made (warm-up included).",
    );
    Ok(t)
}

/// The bytes of the working copy's database and its WAL.
fn db_bytes(work: &std::path::Path) -> u64 {
    ["rewind.db", "rewind.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(work.join(f)).ok())
        .map(|m| m.len())
        .sum()
}
