// Time how the wasm package (nodejs target) reloads the long session: Engine.fromLog of every
// batch, and Engine.fromSnapshot of a snapshot taken `tail` batches before the end plus those
// batches; also engine.snapshot() itself. Each load is checked with a resume of the session.
//
//   node bench/js/reload.cjs <pkg/node dir> <batches.jsonl> <session id> <samples> <tail> <snapshot file> [mode]
//
// mode `warm` (default): `samples` loads of each kind after a warm-up, in one process; writes
// the snapshot to <snapshot file> and the batches after it to <snapshot file>.tail. Modes
// `cold-log` / `cold-snapshot`: the first load in a fresh process (what a page reload pays: V8
// compiles the wasm functions as they first run), reading only what it loads (the whole log, or
// the snapshot and its tail), with the package's require (compile + instantiate), the read and
// the resume timed on their own.
//
// Prints one JSON line: samples in ms per measurement, the snapshot's size, resume counts.
'use strict';
const fs = require('fs');
const path = require('path');

const [pkgDir, batchesPath, sessionId, samplesArg, tailArg, snapPath, mode = 'warm'] = process.argv.slice(2);
const t0 = process.hrtime.bigint();
const { Engine } = require(path.resolve(pkgDir, 'rewind_wasm.js'));
const requireMs = Number(process.hrtime.bigint() - t0) / 1e6;
const samples = Number(samplesArg || 10);
const tail = Number(tailArg || 100);

const workspace = { read: () => null, write: () => {}, remove: () => {} };
/** The lines of a batch log file, each batch's bytes. Split with the native indexOf: a
 * byte-by-byte JS loop over the 39 MB log costs a process hundreds of milliseconds that no
 * host reading its store would spend. */
function readBatches(file) {
  const raw = fs.readFileSync(file);
  const out = [];
  for (let start = 0; start < raw.length; ) {
    let end = raw.indexOf(0x0a, start);
    if (end < 0) end = raw.length;
    if (end > start) out.push(new Uint8Array(raw.subarray(start, end)));
    start = end + 1;
  }
  return { raw, batches: out };
}
const now = () => process.hrtime.bigint();
const since = (t) => Number(now() - t) / 1e6;
// The batches after the snapshot, in a file of their own beside it: a host that reloads from a
// snapshot reads the snapshot and what came after it, not the whole log.
const tailPath = `${snapPath}.tail`;

/** `samples` timed runs of `f` after one warm-up; `f` returns an engine, freed untimed. */
function time(f) {
  const times = [];
  let counts = null;
  for (let i = 0; i < samples + 1; i++) {
    const t0 = process.hrtime.bigint();
    const engine = f();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i > 0) times.push(ms);
    const state = engine.resume(sessionId);
    counts = { messages: state.messages.length, activeCheckpoints: state.activeCheckpoints.length };
    if (engine.free) engine.free();
  }
  return { times, ...counts };
}

if (mode !== 'warm') {
  // Where a fresh process's time goes: reading the bytes, loading, resuming.
  const tRead = now();
  const fromSnap = mode === 'cold-snapshot';
  const snap = fromSnap ? new Uint8Array(fs.readFileSync(snapPath)) : null;
  const { batches } = readBatches(fromSnap ? tailPath : batchesPath);
  const readMs = since(tRead);
  const t = now();
  const engine = snap ? Engine.fromSnapshot(snap, { workspace, batches }) : Engine.fromLog(batches, { workspace });
  const ms = since(t);
  const tResume = now();
  const state = engine.resume(sessionId);
  const resumeMs = since(tResume);
  console.log(JSON.stringify({ ms, requireMs, readMs, resumeMs, messages: state.messages.length, activeCheckpoints: state.activeCheckpoints.length }));
  process.exit(0);
}

const { raw, batches } = readBatches(batchesPath);
const head = batches.slice(0, batches.length - tail);
const rest = batches.slice(batches.length - tail);
const fromLog = time(() => Engine.fromLog(batches, { workspace }));
const base = Engine.fromLog(head, { workspace });
const snap = base.snapshot();
fs.writeFileSync(snapPath, snap);
fs.writeFileSync(tailPath, Buffer.concat(rest.flatMap((b) => [b, Buffer.from('\n')])));
const snapshotTimes = [];
for (let i = 0; i < samples + 1; i++) {
  const t0 = process.hrtime.bigint();
  base.snapshot();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (i > 0) snapshotTimes.push(ms);
}
base.free();
const fromSnapshot = time(() => Engine.fromSnapshot(snap, { workspace, batches: rest }));
console.log(JSON.stringify({
  batches: batches.length,
  tail,
  logBytes: raw.length,
  snapshotBytes: snap.length,
  fromLog,
  fromSnapshot,
  snapshot: { times: snapshotTimes },
}));
