//! `rewind log` and `rewind resume` as a person runs them, whole processes of the release
//! binary, on the 1,000- and 50,000-message sessions of the scaling table: the samples of every
//! command and size interleaved (one of each per round), beside an anchor (`rewind --version`,
//! the cost of starting the binary at all) in the same rounds, so a busy moment of the machine
//! lands on all of them alike. Peak memory: one extra run of each under `/usr/bin/time`.

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, Samples, child_peak_kib, fmt_ms};
use crate::hook::rewind_bin;
use crate::report::{Met, Table};
use crate::scale_data::{self, Scaled};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The sizes, in messages.
const SIZES: [usize; 2] = [1_000, 50_000];
/// Target: `rewind resume` of the 50,000-message session.
const RESUME_MS: f64 = 100.0;

/// One command line to time, at one size (`None`: the anchor).
struct Case {
    name: String,
    size: Option<usize>,
    args: Vec<OsString>,
    times: Vec<Duration>,
}

fn run_once(bin: &Path, args: &[OsString]) -> Result<Duration> {
    let t0 = Instant::now();
    let status = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let dt = t0.elapsed();
    if !status.success() {
        return Err(format!("rewind {args:?} exited {status}").into());
    }
    Ok(dt)
}

/// The cases: the anchor, then `log`, `log -n 10` and `resume` at each size.
fn cases(works: &[(usize, PathBuf)]) -> Vec<Case> {
    let mut cases = vec![Case {
        name: "anchor: `rewind --version`".into(),
        size: None,
        args: vec!["--version".into()],
        times: Vec::new(),
    }];
    for (what, extra) in [
        ("log", &["log"][..]),
        ("log -n 10", &["log", "-n", "10"][..]),
        ("resume", &["resume"][..]),
    ] {
        for (size, work) in works {
            let mut args: Vec<OsString> = vec![
                "--workspace".into(),
                work.join("ws").into(),
                "--db".into(),
                work.join("rewind.db").into(),
                "-P".into(),
            ];
            args.extend(extra.iter().map(OsString::from));
            cases.push(Case {
                name: format!("`rewind {what}`, {}k messages", size / 1000),
                size: Some(*size),
                args,
                times: Vec::new(),
            });
        }
    }
    cases
}

/// The table.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Table> {
    let bin = rewind_bin()?;
    let sessions: Vec<Scaled> = SIZES
        .iter()
        .map(|&m| scale_data::prepare(data, corpus, m))
        .collect::<Result<_>>()?;
    let mut works = Vec::new();
    for s in &sessions {
        let work = data.join(format!("cli-log{}.work", s.messages));
        drop(scale_data::working_copy(s, &work)?);
        works.push((s.messages, work));
    }
    let mut cases = cases(&works);
    let rounds = samples.max(9);
    eprintln!("bench: rewind log and resume at 1k and 50k messages, {rounds} rounds");
    for c in &cases {
        run_once(&bin, &c.args)?; // warm-up: the page cache, as a second run finds it
    }
    for _ in 0..rounds {
        for c in &mut cases {
            c.times.push(run_once(&bin, &c.args)?);
        }
    }
    let bin_s = bin.to_string_lossy().into_owned();
    let mut t = Table::new("`rewind log` and `rewind resume`, whole processes (native SQLite)");
    let median = |c: &Case| Samples::new(c.times.clone()).median();
    for c in &cases {
        let args: Vec<&std::ffi::OsStr> = c.args.iter().map(OsString::as_os_str).collect();
        let m = Measured {
            samples: Samples::new(c.times.clone()),
            peak_kib: child_peak_kib(&bin_s, &args, data),
        };
        let ms = m.samples.median().as_secs_f64() * 1000.0;
        let (target, met) = match (c.name.starts_with("`rewind resume"), c.size) {
            (true, Some(50_000)) => ("< 100 ms", Met::from(ms < RESUME_MS)),
            _ => ("", Met::None),
        };
        t.timed(&c.name, &m, target, met);
    }
    for what in ["log", "log -n 10", "resume"] {
        let at = |k: usize| {
            cases
                .iter()
                .find(|c| c.name == format!("`rewind {what}`, {k}k messages"))
                .map(median)
        };
        if let (Some(small), Some(big)) = (at(1), at(50)) {
            let ratio = big.as_secs_f64() / small.as_secs_f64().max(1e-9);
            t.value(
                &format!("`rewind {what}`: 50k / 1k"),
                format!("{ratio:.2}× ({} · {})", fmt_ms(small), fmt_ms(big)),
                "",
                Met::None,
            );
        }
    }
    t.note(format!(
        "Medians of {rounds} rounds; each round runs every row once, in table order, so the \
         sizes and the anchor are measured side by side. Output to /dev/null (no pager). The \
         sessions are the scaling table's (turns of a prompt, one file edit, four replies). \
         Peak memory: one extra run of each under /usr/bin/time -f %M."
    ));
    for (_, work) in &works {
        std::fs::remove_dir_all(work)?;
    }
    Ok(t)
}
