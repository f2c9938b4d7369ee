// Time Engine.resume of the wasm package (nodejs target) on the long session.
//
//   node bench/js/resume.cjs <pkg/node dir> <batches.jsonl> <session id> <samples>
//
// Rebuilds the session in memory from the batches the native build committed (Engine.fromLog),
// then times resume() with a warm-up; prints one JSON line: samples in ms, the counts resume
// returned, and the peak RSS (KiB) while the samples ran (VmHWM after resetting it through
// /proc/self/clear_refs, as the Rust harness does).
'use strict';
const fs = require('fs');
const path = require('path');

const [pkgDir, batchesPath, sessionId, samplesArg] = process.argv.slice(2);
const { Engine } = require(path.resolve(pkgDir, 'rewind_wasm.js'));
const samples = Number(samplesArg || 10);

const files = new Map();
const workspace = {
  read: (p) => (files.has(p) ? files.get(p) : null),
  write: (p, bytes) => { files.set(p, bytes); },
  remove: (p) => { files.delete(p); },
};

const raw = fs.readFileSync(batchesPath);
const batches = [];
let start = 0;
for (let i = 0; i < raw.length; i++) {
  if (raw[i] === 0x0a) {
    if (i > start) batches.push(new Uint8Array(raw.subarray(start, i)));
    start = i + 1;
  }
}
const t0 = process.hrtime.bigint();
const engine = Engine.fromLog(batches, { workspace });
const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

function hwmKib() {
  try {
    const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch { return null; }
}
try { fs.writeFileSync('/proc/self/clear_refs', '5'); } catch { /* not Linux */ }

let state = null;
const times = [];
for (let i = 0; i < samples + 2; i++) {
  const s = process.hrtime.bigint();
  state = engine.resume(sessionId);
  const ms = Number(process.hrtime.bigint() - s) / 1e6;
  if (i >= 2) times.push(ms);
}
console.log(JSON.stringify({
  times,
  loadMs,
  batches: batches.length,
  messages: state.messages.length,
  activeCheckpoints: state.activeCheckpoints.length,
  peakKib: hwmKib(),
}));
