//! Resume of the 10,000-message, 2,000-checkpoint session: natively over SQLite (the shipped
//! host), natively over the in-memory store, and through the wasm package in Node on the same
//! batches.

use crate::harness::{Measured, Result, Samples, measure, ratio, run};
use crate::report::{Met, Table};
use crate::session::{self, LongSession};
use rewind_core::Engine;
use rewind_core::batch::Batch;
use rewind_core::id::SessionId;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::testkit::{MemStore, MemWorkspace};
use rewind_host::{RandomIds, SystemClock};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Target: resume of the 10,000-message session under 100 ms natively.
const TARGET_MS: f64 = 100.0;
/// Target: the wasm build within 2.5× of native on the same session.
const WASM_FACTOR: f64 = 2.5;

/// Resume `samples` times; fails unless the whole session came back.
fn time_resume<S: StoreWrite, W: Workspace>(
    e: &mut Engine<S, W>,
    s: &SessionId,
    samples: usize,
) -> Result<Measured> {
    measure(
        e,
        (2, samples),
        |_| Ok(()),
        |e, ()| {
            let state = e.resume(s)?;
            if state.messages.len() != 5 * session::TURNS
                || state.active_checkpoints.len() != session::TURNS
            {
                return Err(format!(
                    "resume returned {} messages, {} checkpoints",
                    state.messages.len(),
                    state.active_checkpoints.len()
                )
                .into());
            }
            Ok(state)
        },
    )
}

/// The wasm package's nodejs build, if someone built it (scripts/build-wasm; the .wasm sits
/// beside the entry-point folders).
pub(crate) fn wasm_pkg(root: &Path) -> Option<std::path::PathBuf> {
    let pkg = root.join("wasm/pkg");
    let node = pkg.join("node");
    (node.join("rewind_wasm.js").exists() && pkg.join("rewind_wasm_bg.wasm").exists())
        .then_some(node)
}

/// What the Node script measured.
struct WasmRun {
    measured: Measured,
    load: Duration,
}

fn wasm_resume(root: &Path, long: &LongSession, samples: usize) -> Result<Option<WasmRun>> {
    let Some(pkg) = wasm_pkg(root) else {
        return Ok(None);
    };
    let script = root.join("bench/js/resume.cjs");
    let out = run(Command::new("node")
        .arg(script)
        .arg(pkg)
        .arg(&long.batches)
        .arg(long.session.to_string())
        .arg(samples.to_string()))?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let want = (5 * session::TURNS) as u64;
    if v["messages"].as_u64() != Some(want)
        || v["activeCheckpoints"].as_u64() != Some(session::TURNS as u64)
    {
        return Err(format!("wasm resume returned the wrong session: {v}").into());
    }
    let ms = |x: &serde_json::Value| Duration::from_secs_f64(x.as_f64().unwrap_or(0.0) / 1000.0);
    let times = v["times"]
        .as_array()
        .ok_or("no times from node")?
        .iter()
        .map(ms)
        .collect();
    Ok(Some(WasmRun {
        measured: Measured {
            samples: Samples::new(times),
            peak_kib: v["peakKib"].as_u64(),
        },
        load: ms(&v["loadMs"]),
    }))
}

/// Run the scenario.
pub fn run_scenario(root: &Path, long: &LongSession, samples: usize) -> Result<Table> {
    eprintln!("bench: resume (native SQLite, native memory, wasm)");
    let db = session::copy_db(long, "resume.db")?;
    let (mut e, _) = rewind_host::open(&long.workspace, &db)?;
    let sqlite = time_resume(&mut e, &long.session, samples)?;
    drop(e);

    let mut mem = MemStore::new();
    for line in std::fs::read(&long.batches)?.split(|b| *b == b'\n') {
        if !line.is_empty() {
            mem.commit(Batch::from_bytes(line)?)?;
        }
    }
    let mut e = Engine::new(mem, MemWorkspace::new(), SystemClock, RandomIds);
    let memory = time_resume(&mut e, &long.session, samples)?;
    drop(e);

    let mut t = Table::new(format!(
        "Resume of a session with {} messages and {} checkpoints",
        5 * session::TURNS,
        session::TURNS
    ));
    let native_ms = sqlite.samples.median().as_secs_f64() * 1000.0;
    t.timed(
        "native, SQLite store (rewind-host)",
        &sqlite,
        "< 100 ms",
        Met::from(native_ms < TARGET_MS),
    )
    .timed("native, in-memory store", &memory, "", Met::None);
    match wasm_resume(root, long, samples)? {
        Some(w) => {
            let vs_sql = ratio(w.measured.samples.median(), sqlite.samples.median());
            let vs_mem = ratio(w.measured.samples.median(), memory.samples.median());
            t.timed(
                "wasm in Node, in-memory store (Engine.fromLog, then resume)",
                &w.measured,
                "",
                Met::None,
            )
            .value(
                "**wasm / native (SQLite)**",
                format!("{vs_sql:.2}×"),
                "≤ 2.5×",
                Met::from(vs_sql <= WASM_FACTOR),
            )
            .value(
                "**wasm / native (in-memory store, same store kind)**",
                format!("{vs_mem:.2}×"),
                "≤ 2.5×",
                Met::from(vs_mem <= WASM_FACTOR),
            )
            .value(
                "wasm: Engine.fromLog of the session's batches (one run)",
                crate::harness::fmt_ms(w.load),
                "",
                Met::None,
            );
        }
        None => {
            t.value(
                "wasm in Node",
                "wasm package not built (run scripts/build-wasm)".into(),
                "≤ 2.5× native",
                Met::None,
            );
        }
    }
    t.note(
        "Resume = Engine::resume: the active branch, the model history and the active \
         checkpoints (the run checks that all 10,000 messages and 2,000 checkpoints come back). \
         The session is 2,000 turns of prompt + one recorded edit + 4 replies (~650 B each). \
         The wasm run replays the very batches the native build committed (Engine.fromLog) and \
         reads from the package's in-memory store, so its fair native counterpart is the \
         in-memory row; the SQLite row is what the shipped native host does. Node's peak RSS \
         includes the V8 heap and the wasm memory.",
    );
    Ok(t)
}
