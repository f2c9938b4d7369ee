//! CLI calls that name turns by position (`@`, `#N`) at 1,000 and 50,000 messages, whole
//! processes of the release binary, beside the same calls with explicit ids (issue 30: every
//! everyday call flat from 1k to 50k messages with `@` / `#N` too). `#N` walks the
//! `turns_by_seq` index to its offset, so `#1`, a turn in the middle and `@` (the latest) are
//! all measured. Reads (`show`, `preview`) run on one working copy of each session; calls that
//! change it (`reply`, `apply`, `conversation`) on another, each sample on a turn its untimed
//! setup records (also whole processes), so `@` is always that fresh turn and every sample does
//! the same work. The samples of every call, form and size are interleaved (one of each per
//! round) beside `rewind --version` (the cost of starting the binary at all).

use crate::corpus::Corpus;
use crate::harness::{Result, Samples, fmt_ms, json_str, rewind_json};
use crate::report::{Met, Table};
use crate::scale_data::{self, Scaled};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The sizes, in messages.
const SIZES: [usize; 2] = [1_000, 50_000];
/// Target: 50k / 1k of each call naming `@` / `#N`.
const FLAT: f64 = 1.5;
/// Target for the calls in [`REWINDS_BACK`]: naming the turn by position over naming its id.
const OWN: f64 = 1.2;

/// One working copy of a session: `rewind --json --workspace W --db D -P` and the session id.
struct Copy {
    dir: PathBuf,
    base: Vec<OsString>,
    session: String,
}

impl Copy {
    fn new(s: &Scaled, dir: PathBuf) -> Result<Self> {
        drop(scale_data::working_copy(s, &dir)?);
        let base = vec![
            "--json".into(),
            "--workspace".into(),
            dir.join("ws").into(),
            "--db".into(),
            dir.join("rewind.db").into(),
            "-P".into(),
        ];
        Ok(Self {
            dir,
            base,
            session: s.session.to_string(),
        })
    }

    /// `rewind <base> args…`: its JSON and how long the whole process took.
    fn run(&self, bin: &Path, args: &[&str]) -> Result<(Value, Duration)> {
        rewind_json(Command::new(bin).args(&self.base).args(args))
    }

    /// A new turn recorded by `rewind prompt` (untimed setup): its turn and prompt ids.
    fn prompt(&self, bin: &Path, text: &str) -> Result<(String, String)> {
        let (v, _) = self.run(bin, &["prompt", &self.session, "--text", text])?;
        Ok((json_str(&v, "turnId")?, json_str(&v, "messageId")?))
    }
}

/// Each size's two copies and the ids the explicit forms name.
struct Size {
    reads: Copy,
    writes: Copy,
    /// `#1`, the middle turn's `#N`, `@`: each as typed and as its turn id.
    turns: [(String, String); 3],
    last_prompt: String,
}

impl Size {
    fn new(bin: &Path, data: &Path, s: &Scaled) -> Result<Self> {
        let work = |what: &str| data.join(format!("cli-refs{}-{what}.work", s.messages));
        let reads = Copy::new(s, work("reads"))?;
        let writes = Copy::new(s, work("writes"))?;
        let middle = s.messages / scale_data::MESSAGES_PER_TURN / 2;
        let mut turns: [(String, String); 3] = Default::default();
        for (slot, typed) in turns
            .iter_mut()
            .zip(["#1".into(), format!("#{middle}"), "@".into()])
        {
            let (v, _) = reads.run(bin, &["show", &typed, &reads.session, "--stat"])?;
            *slot = (typed, json_str(&v, "turnId")?);
        }
        Ok(Self {
            reads,
            writes,
            turns,
            last_prompt: s.last_prompt.to_string(),
        })
    }
}

/// The calls, in table order; each is measured naming `@` / `#N` and naming ids.
const CALLS: &[&str] = &[
    "`show` `#1`",
    "`show` the middle `#N`",
    "`show` `@`",
    "`preview --turn` `#1`",
    "`preview --turn` the middle `#N`",
    "`preview --to` `@`",
    "`reply --turn` `@` (an open turn)",
    "`apply --to` `@` (a turn that created a file)",
    "`conversation --to` `@`",
];

/// The calls that rewind to an old turn, so undo every turn after it: at 50k `#1` undoes
/// 10,000 turns and the middle `#N` 5,000, at 1k 200 and 100.
const REWINDS_BACK: [&str; 2] = [CALLS[3], CALLS[4]];

/// One sample of call `c` in `form` (true: naming `@` / `#N`) at `z`; round `i` names fresh
/// content. Setup and teardown are whole processes too, untimed.
fn sample(bin: &Path, z: &Size, c: usize, by_ref: bool, i: usize) -> Result<Duration> {
    let pick = |typed: &str, id: &str| {
        if by_ref {
            typed.to_owned()
        } else {
            id.to_owned()
        }
    };
    let (r, w) = (&z.reads, &z.writes);
    match c {
        0..=2 => {
            let (typed, id) = &z.turns[c];
            Ok(
                r.run(bin, &["show", &pick(typed, id), &r.session, "--stat"])?
                    .1,
            )
        }
        3..=4 => {
            let (typed, id) = &z.turns[c - 3];
            Ok(
                r.run(bin, &["preview", &r.session, "--turn", &pick(typed, id)])?
                    .1,
            )
        }
        5 => Ok(r
            .run(
                bin,
                &["preview", &r.session, "--to", &pick("@", &z.last_prompt)],
            )?
            .1),
        6 => {
            let (turn, _) = w.prompt(bin, &format!("reply round {i}"))?;
            let args = [
                "reply",
                &w.session,
                "--turn",
                &pick("@", &turn),
                "--text",
                "done",
            ];
            let (_, took) = w.run(bin, &args)?;
            w.run(bin, &["turn-end", &w.session, "--turn", &turn])?;
            Ok(took)
        }
        7 => {
            let (turn, since) = w.prompt(bin, &format!("create round {i}"))?;
            let path = format!("bench-f{i}-{by_ref}.txt");
            std::fs::write(w.dir.join("ws").join(&path), format!("round {i}\n"))?;
            let edit = [
                "edit",
                &w.session,
                "--turn",
                &turn,
                "--path",
                &path,
                "--created",
            ];
            w.run(bin, &edit)?;
            w.run(bin, &["turn-end", &w.session, "--turn", &turn])?;
            let (v, took) = w.run(bin, &["apply", &w.session, "--to", &pick("@", &since)])?;
            match v["applied"] == true {
                true => Ok(took),
                false => Err(format!("apply refused: {v}").into()),
            }
        }
        _ => {
            let (turn, since) = w.prompt(bin, &format!("conversation round {i}"))?;
            w.run(bin, &["turn-end", &w.session, "--turn", &turn])?;
            let args = ["conversation", &w.session, "--to", &pick("@", &since)];
            Ok(w.run(bin, &args)?.1)
        }
    }
}

/// `rewind --version`, spawn to exit.
fn floor(bin: &Path) -> Result<Duration> {
    let start = Instant::now();
    crate::harness::run(Command::new(bin).arg("--version").stdin(Stdio::null()))?;
    Ok(start.elapsed())
}

/// The table.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Table> {
    let bin = crate::hook::rewind_bin()?;
    let mut sizes = Vec::new();
    for &m in &SIZES {
        sizes.push(Size::new(
            &bin,
            data,
            &scale_data::prepare(data, corpus, m)?,
        )?);
    }
    let rounds = samples.max(9);
    eprintln!("bench: CLI calls naming @ / #N at 1k and 50k messages, {rounds} rounds");
    // times[call][form][size]; form 0 names the ref, 1 the id.
    let mut times = vec![<[[Vec<Duration>; 2]; 2]>::default(); CALLS.len()];
    let mut floors = Vec::new();
    for i in 0..=rounds {
        let f = floor(&bin)?;
        for (c, by_call) in times.iter_mut().enumerate() {
            for (form, by_form) in by_call.iter_mut().enumerate() {
                for (z, slot) in sizes.iter().zip(by_form.iter_mut()) {
                    let took = sample(&bin, z, c, form == 0, i)?;
                    // Round 0 warms the page cache, as a second run finds it.
                    if i > 0 {
                        slot.push(took);
                    }
                }
            }
        }
        if i > 0 {
            floors.push(f);
        }
    }
    let mut t = Table::new("CLI calls naming `@` / `#N` at 1k and 50k messages, whole processes");
    let median = |v: &Vec<Duration>| Samples::new(v.clone()).median();
    let floor = crate::harness::Measured {
        samples: Samples::new(floors),
        peak_kib: None,
    };
    t.timed("anchor: `rewind --version`", &floor, "", Met::None);
    for (name, [by_ref, by_id]) in CALLS.iter().zip(&times) {
        let cell = |v: &[Vec<Duration>; 2]| {
            let (small, big) = (median(&v[0]), median(&v[1]));
            let r = big.as_secs_f64() / small.as_secs_f64().max(1e-9);
            (
                format!("{} · {} (50k/1k {r:.2}×)", fmt_ms(small), fmt_ms(big)),
                r,
            )
        };
        // What naming the turn by position costs beyond its id, where it would show: at 50k.
        let own = median(&by_ref[1]).as_secs_f64() / median(&by_id[1]).as_secs_f64().max(1e-9);
        let (text, r) = cell(by_ref);
        let text = format!("{text}; at 50k {own:.2}× the ids'");
        match REWINDS_BACK.contains(name) {
            // Rewinding to an old turn undoes every turn since: that work is the call's own
            // and grows with them; what naming the turn adds must not.
            true => t.value(name, text, "at 50k ≤ 1.2× the ids'", Met::from(own <= OWN)),
            false => t.value(name, text, "50k/1k ≤ 1.5×", Met::from(r <= FLAT)),
        };
        let name = format!("{name}: the same with ids");
        t.value(&name, cell(by_id).0, "", Met::None);
    }
    t.note(format!(
        "Medians at 1,000 · 50,000 messages of {rounds} rounds after a warm-up round; each round \
         runs every row's call once at each size, so forms and sizes are measured side by side. \
         Each call is a whole `rewind --json` process on a working copy of the scaling table's \
         session (turns of a prompt, one file edit and four replies), the session named by its \
         id; `the same with ids` names the turn or prompt by its whole id. The middle `#N` is \
         #{} at 1k and #{} at 50k. `reply`, `apply` and `conversation` act on a turn their \
         untimed setup records (`prompt`, a created file and `edit`, `turn-end`). `preview --turn` \
         of `#1` and of the middle turn previews undoing every turn since (10,000 and 5,000 at \
         50k), so its target is what the position costs over the id; every other call's is \
         flatness.",
        SIZES[0] / scale_data::MESSAGES_PER_TURN / 2,
        SIZES[1] / scale_data::MESSAGES_PER_TURN / 2,
    ));
    for z in &sizes {
        std::fs::remove_dir_all(&z.reads.dir)?;
        std::fs::remove_dir_all(&z.writes.dir)?;
    }
    Ok(t)
}
