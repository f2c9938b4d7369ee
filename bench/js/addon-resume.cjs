// One whole Node process of a host on the native addon (rewind-node): load the package, open
// the workspace's SQLite store, resume the session; what a Node host pays to reload a session
// from disk, beside `rewind resume` and the wasm package's reload.
//
//   node bench/js/addon-resume.cjs <node/pkg dir> <workspace dir> <db file> <session id>
//
// Prints one JSON line: the resumed counts (checked by the bench) and the in-script times.
'use strict';
const path = require('path');

const [pkgDir, workspace, db, sessionId] = process.argv.slice(2);
const t0 = process.hrtime.bigint();
const { Engine } = require(path.resolve(pkgDir, 'index.js'));
const requireMs = Number(process.hrtime.bigint() - t0) / 1e6;
const t1 = process.hrtime.bigint();
const state = Engine.open(workspace, { db }).resume(sessionId);
const ms = Number(process.hrtime.bigint() - t1) / 1e6;
console.log(JSON.stringify({
  ms,
  requireMs,
  messages: state.messages.length,
  activeCheckpoints: state.activeCheckpoints.length,
}));
