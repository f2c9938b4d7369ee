// Time how the wasm package (nodejs target) reloads the long session: Engine.fromLog of every
// batch, and Engine.fromSnapshot of a snapshot taken `tail` batches before the end plus those
// batches; also engine.snapshot() itself. Each load is checked with a resume of the session.
//
//   node bench/js/reload.cjs <pkg/node dir> <batches.jsonl> <session id> <samples> <tail> <snapshot file> [mode]
//
// mode `warm` (default): `samples` loads of each kind after a warm-up, in one process; writes
// the snapshot to <snapshot file>. Modes `cold-log` / `cold-snapshot`: the first load in a
// fresh process (what a page reload pays: V8 compiles the wasm functions as they first run),
// with the package's require (compile + instantiate) timed on its own.
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
const raw = fs.readFileSync(batchesPath);
const batches = [];
let start = 0;
for (let i = 0; i < raw.length; i++) {
  if (raw[i] === 0x0a) {
    if (i > start) batches.push(new Uint8Array(raw.subarray(start, i)));
    start = i + 1;
  }
}
const head = batches.slice(0, batches.length - tail);
const rest = batches.slice(batches.length - tail);

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
  const snap = mode === 'cold-snapshot' ? new Uint8Array(fs.readFileSync(snapPath)) : null;
  const t = process.hrtime.bigint();
  const engine = snap ? Engine.fromSnapshot(snap, { workspace, batches: rest }) : Engine.fromLog(batches, { workspace });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  const state = engine.resume(sessionId);
  console.log(JSON.stringify({ ms, requireMs, messages: state.messages.length, activeCheckpoints: state.activeCheckpoints.length }));
  process.exit(0);
}

const fromLog = time(() => Engine.fromLog(batches, { workspace }));
const base = Engine.fromLog(head, { workspace });
const snap = base.snapshot();
fs.writeFileSync(snapPath, snap);
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
