//! The Edit hook pair as a person's agent pays for it: PreToolUse + PostToolUse of one Edit of a
//! 10 KB file, two whole processes timed as one measurement, beside the two floors it is judged
//! by, sampled interleaved in the same run: the process floor (`rewind --version`: start the
//! binary, print, exit) and the I/O floor (one whole process copying the file's 10 KB and
//! fsyncing it, `dd conv=fsync`, about what any durable record of the edit must cost).
//! After the samples the store is read back through `rewind checkpoints`: every pair must have
//! recorded its edit, so the bench cannot time a hook that did nothing.

use crate::corpus::{Corpus, code_bytes};
use crate::harness::{Measured, Result, Samples, ratio};
use crate::hook_io::{checkpoints, payload, send_env};
use crate::report::{Met, Table};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The file the Edit changes (workspace path) and its size.
const FILE: &str = "edit-10k.rs";
const BYTES: usize = 10 * 1024;

/// The three measurements.
#[derive(Debug)]
pub(crate) struct EditPair {
    floor: Measured,
    copy: Measured,
    pair: Measured,
}

/// Write the 10 KB file (real code) before the session's files age past the racy window.
pub(crate) fn prepare(root: &Path, corpus: &Corpus) -> Result<()> {
    std::fs::write(root.join(FILE), code_bytes(corpus, 11, BYTES)?)?;
    Ok(())
}

fn measured(times: Vec<Duration>) -> Measured {
    Measured {
        samples: Samples::new(times),
        peak_kib: None,
    }
}

fn timed(cmd: &mut Command) -> Result<Duration> {
    let t0 = Instant::now();
    let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status()?;
    let dt = t0.elapsed();
    if !status.success() {
        return Err(format!("{cmd:?} exited {status}").into());
    }
    Ok(dt)
}

/// Sample the floors and the pair interleaved: `warmup` rounds, then `n`.
pub(crate) fn measure(bin: &Path, root: &Path, (warmup, n): (usize, usize)) -> Result<EditPair> {
    let path = root.join(FILE);
    // Outside the workspace: the copy is no file of the agent's.
    let copy_to: PathBuf = root.with_extension("copy");
    let (mut floor, mut copy, mut pair) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..warmup + n {
        let f = timed(Command::new(bin).arg("--version"))?;
        let c = timed(
            Command::new("dd")
                .arg(format!("if={}", path.display()))
                .arg(format!("of={}", copy_to.display()))
                .args(["conv=fsync", "status=none"]),
        )?;
        let tool = json!({
            "tool_name": "Edit",
            "tool_input": { "file_path": path, "old_string": "a", "new_string": "b" },
            "tool_use_id": format!("toolu_edit10k_{i}"),
        });
        let t0 = Instant::now();
        send_env(
            bin,
            &payload(root, "bench-session", "PreToolUse", tool.clone()),
            &[],
        )?;
        let pre = t0.elapsed();
        // The edit itself (untimed): the agent's tool changes one line, the size stays 10 KB.
        let mut bytes = std::fs::read(&path)?;
        let stamp = format!("// edit {i:06}\n");
        bytes[..stamp.len()].copy_from_slice(stamp.as_bytes());
        std::fs::write(&path, &bytes)?;
        let t1 = Instant::now();
        send_env(
            bin,
            &payload(root, "bench-session", "PostToolUse", tool),
            &[],
        )?;
        let post = t1.elapsed();
        if i >= warmup {
            floor.push(f);
            copy.push(c);
            pair.push(pre + post);
        }
    }
    let _ = std::fs::remove_file(&copy_to);
    let recorded = checkpoints(bin, root, None)?
        .iter()
        .filter(|c| c.paths.iter().any(|p| p == FILE))
        .count();
    if recorded != warmup + n {
        return Err(format!(
            "the Edit pairs recorded {recorded} checkpoints of {FILE}, not {}",
            warmup + n
        )
        .into());
    }
    Ok(EditPair {
        floor: measured(floor),
        copy: measured(copy),
        pair: measured(pair),
    })
}

/// The pair's rows in the hook table.
pub(crate) fn rows(t: &mut Table, m: &EditPair) {
    let floor = m.floor.samples.median();
    let pair = m.pair.samples.median();
    let x = ratio(pair, floor);
    t.timed("process floor: `rewind --version`", &m.floor, "", Met::None)
        .timed(
            "I/O floor: one process copying the 10 KB file + fsync (`dd conv=fsync`)",
            &m.copy,
            "",
            Met::None,
        )
        .timed(
            "Edit pair, 10 KB file: PreToolUse + PostToolUse (two processes)",
            &m.pair,
            "≤ 2× process floor",
            Met::from(x <= 2.0),
        )
        .value(
            "Edit pair / process floor",
            format!("{x:.1}×"),
            "≤ 2×",
            Met::None,
        )
        .value(
            "Edit pair / I/O floor",
            format!("{:.1}×", ratio(pair, m.copy.samples.median())),
            "",
            Met::None,
        );
}
