// engine.snapshot() / Engine.fromSnapshot: a snapshot plus the batches committed after it loads
// the same engine as replaying the whole log; a damaged or foreign snapshot loads nothing and
// says why with a stable code; the in-memory engine keeps a batch log only when asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../lib/pkg.mjs';
import { MemWorkspace, MemStoreHost, utf8 } from '../lib/hosts.mjs';

function expectCode(f, code) {
  assert.throws(f, (e) => e instanceof Error && e.name === 'RewindError' && e.code === code, `expected ${code}`);
}

/** A turn that edits a file and gets a reply; returns the prompt's message id. */
function turn(engine, ws, id, n) {
  const { turnId, messageId } = engine.recordPrompt(id, { text: `turn ${n}` });
  const before = ws.get('f.txt');
  const after = utf8(`v${n}\n`);
  ws.put('f.txt', after);
  engine.recordEdit(id, { turnId, path: 'f.txt', before, after, toolName: 'Edit' });
  engine.recordReply(id, { turnId, text: `done ${n}` });
  engine.completeTurn(id, { turnId });
  return messageId;
}

const views = (e, id) => ['resume', 'activeBranch', 'checkpoints', 'operations'].map((m) => e[m](id));

test('snapshot + the batches after it loads the same engine as the whole log', () => {
  const ws = new MemWorkspace();
  let log = [];
  const engine = Engine.inMemory({ workspace: ws, onCommit: (b) => log.push(b) });
  const { id } = engine.createSession({ title: 'long' });
  const first = turn(engine, ws, id, 1);
  turn(engine, ws, id, 2);
  engine.recordCompaction(id, { text: 'summary of turns 1 and 2' });
  // What a web IDE does: persist a snapshot, drop the batches it covers, keep the rest.
  const whole = [...log];
  const snapshot = engine.snapshot();
  assert.ok(snapshot instanceof Uint8Array && snapshot.length > 0);
  log = [];
  const third = turn(engine, ws, id, 3);
  engine.applyFileRewind(id, { since: third });
  whole.push(...log);

  const fromSnap = Engine.fromSnapshot(snapshot, { workspace: ws, batches: log });
  const fromLog = Engine.fromLog(whole, { workspace: ws });
  assert.deepEqual(views(fromSnap, id), views(engine, id));
  assert.deepEqual(views(fromLog, id), views(engine, id));
  assert.deepEqual(fromSnap.diagnostics, []);
  // The reloaded engine goes on, and its own snapshot loads again.
  turn(fromSnap, ws, id, 4);
  const again = Engine.fromSnapshot(fromSnap.snapshot(), { workspace: ws });
  assert.deepEqual(views(again, id), views(fromSnap, id));
  assert.ok(again.resume(id).messages.some((m) => m.id === first));
});

test('onCommit after fromSnapshot receives the new batches only', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id } = engine.createSession();
  const seen = [];
  const loaded = Engine.fromSnapshot(engine.snapshot(), { workspace: ws, onCommit: (b) => seen.push(b) });
  loaded.recordPrompt(id, { text: 'after the reload' });
  assert.equal(seen.length, 1);
});

test('a damaged, cut or foreign snapshot loads nothing, with a stable code', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id } = engine.createSession();
  turn(engine, ws, id, 1);
  const snap = engine.snapshot();
  const flipped = snap.slice();
  flipped[Math.floor(snap.length / 2)] ^= 0x04;
  expectCode(() => Engine.fromSnapshot(flipped, { workspace: ws }), 'corrupt');
  expectCode(() => Engine.fromSnapshot(snap.slice(0, snap.length - 3), { workspace: ws }), 'corrupt');
  const future = snap.slice();
  future[8] = 99; // the format version
  expectCode(() => Engine.fromSnapshot(future, { workspace: ws }), 'invalid_input');
  expectCode(() => Engine.fromSnapshot(utf8('{"writes":[]}'), { workspace: ws }), 'invalid_input');
  expectCode(() => Engine.fromSnapshot('not bytes', { workspace: ws }), 'invalid_input');
  expectCode(() => Engine.fromSnapshot(snap, {}), 'invalid_input');
  // A damaged tail batch is skipped with a diagnostic, as in fromLog; strict refuses it.
  const tolerant = Engine.fromSnapshot(snap, { workspace: ws, batches: [utf8('{"writes": 3}')] });
  assert.deepEqual(tolerant.diagnostics.map((d) => d.id), ['0']);
  expectCode(() => Engine.fromSnapshot(snap, { workspace: ws, batches: [utf8('{"writes": 3}')], strict: true }), 'corrupt');
});

test('committedBatches needs keepLog; a JS store engine has no snapshot', () => {
  const ws = new MemWorkspace();
  const plain = Engine.inMemory({ workspace: ws });
  plain.createSession();
  expectCode(() => plain.committedBatches(), 'unavailable');
  const log = [];
  const kept = Engine.inMemory({ workspace: ws, keepLog: true, onCommit: (b) => log.push(b) });
  kept.createSession();
  assert.deepEqual(kept.committedBatches().map((b) => [...b]), log.map((b) => [...b]));
  const replayed = Engine.fromLog(log, { workspace: ws, keepLog: true });
  assert.equal(replayed.committedBatches().length, log.length);
  expectCode(() => Engine.inMemory({ workspace: ws, keepLog: 'yes' }), 'invalid_input');
  const js = new Engine({ store: new MemStoreHost(), workspace: ws });
  expectCode(() => js.snapshot(), 'unavailable');
});
