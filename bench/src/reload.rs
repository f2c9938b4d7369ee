//! The wasm package in a web IDE: how fast it reloads the 10,000-message session (from the
//! whole batch log, and from a snapshot plus the batches after it), and how much it weighs
//! (what ships: the one .wasm and the two JS entry points, raw and gzip -9).

use crate::harness::{Measured, Result, Samples, run};
use crate::reload_whole::{ReloadJs, check_counts};
use crate::report::{Met, Table};
use crate::resume::wasm_pkg;
use crate::session::{self, LongSession};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Target: either reload of the 10,000-message session under 250 ms.
const RELOAD_MS: f64 = 250.0;
/// Target (issue 30): the `.wasm` at most 300 KB gzipped. The glue is reported beside it.
const GZIP_KB: f64 = 300.0;
/// Batches committed after the snapshot (about 14 turns of the session).
const TAIL: usize = 100;

fn gzip_len(path: &Path) -> Result<u64> {
    Ok(run(Command::new("gzip").arg("-9").arg("-c").arg(path))?
        .stdout
        .len() as u64)
}

fn kb(bytes: u64) -> String {
    format!("{:.1} KB", bytes as f64 / 1000.0)
}

fn measured(v: &serde_json::Value) -> Result<Measured> {
    let times = v["times"]
        .as_array()
        .ok_or("no times from node")?
        .iter()
        .map(|x| Duration::from_secs_f64(x.as_f64().unwrap_or(0.0) / 1000.0))
        .collect();
    Ok(Measured {
        samples: Samples::new(times),
        peak_kib: None,
    })
}

fn size_table(pkg: &Path) -> Result<Table> {
    let mut t = Table::new("wasm package size (what ships)");
    let files = [
        (
            "rewind_wasm_bg.wasm",
            "the .wasm (one file, both entry points)",
        ),
        ("web/rewind_wasm.js", "JS glue, web (ES module)"),
        ("node/rewind_wasm.js", "JS glue, Node (CommonJS)"),
    ];
    let mut sizes = Vec::new();
    for (i, (file, what)) in files.into_iter().enumerate() {
        let path = pkg.join(file);
        let (r, g) = (std::fs::metadata(&path)?.len(), gzip_len(&path)?);
        sizes.push((r, g));
        // The target is the .wasm's: the glue is small, generated, and the same at any size.
        let (target, met) = match i {
            0 => ("gzip ≤ 300 KB", Met::from(g as f64 / 1000.0 <= GZIP_KB)),
            _ => ("", Met::None),
        };
        t.value(what, format!("{} raw, {} gzip", kb(r), kb(g)), target, met);
    }
    let sum = |n: usize| {
        sizes[..n]
            .iter()
            .fold((0, 0), |(a, b), (r, g)| (a + r, b + g))
    };
    let (page_raw, page_gz) = sum(2);
    let (all_raw, all_gz) = sum(3);
    t.value(
        "what a page downloads: .wasm + web glue",
        format!("{} raw, {} gzip", kb(page_raw), kb(page_gz)),
        "",
        Met::None,
    )
    .value(
        "the .wasm + both glue files",
        format!("{} raw, {} gzip", kb(all_raw), kb(all_gz)),
        "",
        Met::None,
    );
    t.note(
        "scripts/build-wasm's output (wasm-release profile: opt-level z with the JSON, base64 and \
         SHA-256 crates at 3, LTO, one codegen unit; name and producers sections removed; no \
         wasm-opt, which makes it larger gzipped), each file gzip -9 on its own. A host loads \
         the .wasm and one of the two glue files; the .d.ts files and package.json are not \
         loaded at run time.",
    );
    Ok(t)
}

/// Run the scenario; without a built package, say so in the tables.
pub fn run_scenario(root: &Path, long: &LongSession, samples: usize) -> Result<Vec<Table>> {
    eprintln!("bench: reload (wasm fromLog, fromSnapshot) and package size");
    let mut t = Table::new(format!(
        "wasm reload of the {}-message session, in Node",
        5 * session::TURNS
    ));
    let Some(node) = wasm_pkg(root) else {
        t.value(
            "wasm reload",
            "wasm package not built (run scripts/build-wasm)".into(),
            "< 250 ms",
            Met::None,
        );
        return Ok(vec![t]);
    };
    let js = ReloadJs {
        root,
        node: &node,
        long,
        snap_file: long.dir.join("snapshot.bin"),
        tail: TAIL,
    };
    let (v, _) = js.run_timed("warm", samples)?;
    let whole = crate::reload_whole::measure(root, &js, long, samples.max(9))?;
    check_counts("fromLog", &v["fromLog"])?;
    check_counts("fromSnapshot", &v["fromSnapshot"])?;
    let from_log = measured(&v["fromLog"])?;
    let from_snapshot = measured(&v["fromSnapshot"])?;
    let ms = |m: &Measured| m.samples.median().as_secs_f64() * 1000.0;
    let batches = v["batches"].as_u64().unwrap_or(0);
    t.timed(
        &format!("Engine.fromLog of all {batches} batches"),
        &from_log,
        "< 250 ms",
        Met::from(ms(&from_log) < RELOAD_MS),
    )
    .timed(
        &format!("Engine.fromSnapshot + the last {TAIL} batches"),
        &from_snapshot,
        "< 250 ms",
        Met::from(ms(&from_snapshot) < RELOAD_MS),
    )
    .timed(
        "engine.snapshot()",
        &measured(&v["snapshot"])?,
        "",
        Met::None,
    )
    .value(
        "batch log / snapshot size",
        format!(
            "{} / {}",
            kb(v["logBytes"].as_u64().unwrap_or(0)),
            kb(v["snapshotBytes"].as_u64().unwrap_or(0))
        ),
        "",
        Met::None,
    );
    t.note(format!(
        "Each sample loads a fresh engine from bytes already in memory (the time a web IDE spends \
         after reading its store) and is checked by a resume of the session, untimed; the warm \
         rows are {samples} samples after a warm-up in one process, the cold rows the first load \
         in each of the fresh Node processes below (V8 compiles wasm functions lazily, on \
         their first call, so a page reload pays that compile inside its first load). The \
         snapshot is taken {TAIL} batches before the end, as a host that snapshots now and then \
         would have it (the tail replays through the same path as fromLog)."
    ));
    crate::reload_whole::rows(&mut t, &whole, TAIL);
    Ok(vec![t, size_table(node.parent().ok_or("no package dir")?)?])
}
