// The durable Node package (rewind-node) and the CLI on one store: what one records the other
// reads and rewinds, both ways; two Node processes and a CLI process recording at once lose
// nothing; errors carry the stable codes; the method list is the wasm Engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Engine, methods, NODE_PKG, ROOT, CLI, cli, run, tempWorkspace } from '../lib/native.mjs';

const utf8 = (s) => new TextEncoder().encode(s);
const read = (dir, p) => fs.readFileSync(path.join(dir, p), 'utf8');

function expectError(f, code) {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof Error, 'a real Error');
    assert.equal(e.name, 'RewindError');
    assert.equal(e.code, code, e.message);
    assert.ok(e.message.length > 0);
    return e;
  }
  assert.fail(`expected ${code}`);
}

test('Node records; the CLI reads, previews and rewinds the real file; Node undoes it', () => {
  const dir = tempWorkspace();
  const engine = Engine.open(dir);
  assert.equal(engine.db, path.join(dir, '.rewind/rewind.db'));
  const { id } = engine.createSession({ title: 'from node' });
  const { turnId, messageId } = engine.recordPrompt(id, { text: 'change a' });
  fs.writeFileSync(path.join(dir, 'a.txt'), 'two\n');
  engine.recordEdit(id, { turnId, path: 'a.txt', before: utf8('one\n'), after: utf8('two\n'), toolName: 'Edit' });
  engine.recordReply(id, { turnId, text: 'done' });
  engine.completeTurn(id, { turnId });

  const log = cli(dir, 'log', id);
  assert.equal(log.sessionId, id);
  assert.deepEqual(log.messages.map((m) => m.text), ['change a', 'done']);
  const preview = cli(dir, 'preview', '--since', messageId, id);
  assert.equal(preview.canApply, true);
  assert.deepEqual(preview.safeFiles.map((f) => f.path), ['a.txt']);
  const applied = cli(dir, 'apply', '--since', messageId, id);
  assert.equal(applied.applied, true);
  assert.equal(read(dir, 'a.txt'), 'one\n');

  // Back in Node: the CLI's operation is there, and undoing it writes the file again.
  const ops = engine.operations(id);
  assert.deepEqual(ops.map((o) => o.id), [applied.operationId]);
  const undone = engine.undo(id, { operationId: applied.operationId });
  assert.equal(undone.applied, true);
  assert.equal(read(dir, 'a.txt'), 'two\n');
  assert.equal(cli(dir, 'ops', id).length, 2);
  engine.close();
});

test('the CLI records; Node reads, previews and rewinds; the CLI sees the rewind', () => {
  const dir = tempWorkspace();
  const { id } = cli(dir, 'session', 'new', '--title', 'from cli');
  const { turnId, messageId } = cli(dir, 'prompt', '--text', 'change b', id);
  const before = path.join(tempWorkspace(), 'before');
  fs.writeFileSync(before, 'b0\n');
  fs.writeFileSync(path.join(dir, 'b.txt'), 'b1\n');
  cli(dir, 'edit', '--turn', turnId, '--path', 'b.txt', '--before-file', before, id);
  cli(dir, 'reply', '--turn', turnId, '--text', 'changed', id);
  cli(dir, 'turn-end', '--turn', turnId, id);

  const engine = Engine.open(dir);
  assert.deepEqual(engine.listSessions().map((s) => s.title), ['from cli']);
  const state = engine.resume(id);
  assert.deepEqual(state.messages.map((m) => m.text), ['change b', 'changed']);
  assert.equal(state.runningTurn, null);
  const preview = engine.previewFileRewind(id, { since: messageId });
  assert.deepEqual(preview.safeFiles.map((f) => f.path), ['b.txt']);
  const done = engine.applyFileRewind(id, { since: messageId, policy: 'block' });
  assert.equal(done.applied, true);
  assert.equal(read(dir, 'b.txt'), 'b0\n');
  assert.deepEqual(cli(dir, 'ops', id).map((o) => o.id), [done.operationId]);
  // And the conversation, from Node; the CLI's log follows.
  engine.rewindConversation(id, { to: messageId });
  assert.deepEqual(cli(dir, 'log', id).messages.filter((m) => m.onBranch), []);
});

test('two Node processes and a CLI process recording at once on one store lose nothing', async () => {
  const dir = tempWorkspace();
  const engine = Engine.open(dir);
  const { id } = engine.createSession({ title: 'shared' });
  const N = 30;
  // Every writer waits for the same moment, so the writes really overlap.
  const start = Date.now() + 400;
  const writer = (name) => `
    const { Engine } = require(${JSON.stringify(NODE_PKG)});
    const engine = Engine.open(${JSON.stringify(dir)});
    while (Date.now() < ${start});
    for (let i = 0; i < ${N}; i++) {
      const { turnId } = engine.recordPrompt(${JSON.stringify(id)}, { text: '${name}-' + i });
      engine.recordNotice(${JSON.stringify(id)}, { turnId, text: '${name}-note-' + i });
    }`;
  const shell = `while [ "$(date +%s%3N)" -lt ${start} ]; do :; done
    for i in $(seq 0 ${N - 1}); do
      "$0" --json --workspace "$1" prompt --text "cli-$i" "$2" > /dev/null || exit 1
    done`;
  const results = await Promise.all([
    run(process.execPath, ['-e', writer('node1')]),
    run(process.execPath, ['-e', writer('node2')]),
    run('bash', ['-c', shell, CLI, dir, id]),
  ]);
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const texts = engine.resume(id).messages.map((m) => m.text);
  for (const who of ['node1', 'node2', 'cli']) {
    for (let i = 0; i < N; i++) assert.ok(texts.includes(`${who}-${i}`), `${who}-${i} is missing`);
  }
  for (const who of ['node1', 'node2']) {
    for (let i = 0; i < N; i++) assert.ok(texts.includes(`${who}-note-${i}`), `${who}-note-${i} is missing`);
  }
  assert.equal(texts.length, 5 * N);
  // The CLI reads the same.
  assert.equal(cli(dir, 'log', id).messages.length, 5 * N);
});

test('errors carry the stable codes', () => {
  const dir = tempWorkspace();
  const engine = Engine.open(dir);
  expectError(() => engine.resume('nope'), 'invalid_input');
  expectError(() => engine.resume('ses_0123456789abcdef0123456789abcdef'), 'not_found');
  const { id } = engine.createSession();
  const { turnId } = engine.recordPrompt(id, { text: 'x' });
  expectError(() => engine.recordPrompt(id, { txt: 'x' }), 'invalid_input');
  expectError(() => engine.recordPrompt(id, 'x'), 'invalid_input');
  // As in the wasm package: bytes or null, and a forgotten side is not an absent file.
  expectError(() => engine.recordEdit(id, { turnId, path: 'a', before: 'x', after: null, toolName: 'Edit' }), 'invalid_input');
  expectError(() => engine.recordEdit(id, { turnId, path: 'a', after: null, toolName: 'Edit' }), 'invalid_input');
  expectError(() => engine.recordEdit(id, { turnId, path: '../a', before: null, after: utf8('x'), toolName: 'Edit' }), 'invalid_path');
  // A missing directory is a host error, as for the CLI's --workspace.
  expectError(() => Engine.open(path.join(dir, 'missing')), 'host_error');
  expectError(() => new Engine({}), 'invalid_input');
  engine.close();
  expectError(() => engine.stats(), 'unavailable');
});

test('a reading engine creates nothing', () => {
  const dir = tempWorkspace();
  const engine = Engine.open(dir);
  assert.deepEqual(engine.listSessions(), []);
  assert.equal(engine.stats().messages ?? 0, 0);
  assert.equal(fs.existsSync(path.join(dir, '.rewind')), false);
});

test('the methods are the wasm Engine methods, in the JS wrapper, the addon and the declarations', async () => {
  const wasmDts = fs.readFileSync(path.join(ROOT, 'wasm/dts/rewind_wasm.d.ts'), 'utf8');
  const cls = wasmDts.slice(wasmDts.indexOf('export class Engine'));
  const body = cls.slice(0, cls.indexOf('\n}\n'));
  const wasm = [...body.matchAll(/^ +(?:static )?([a-zA-Z]+)\(/gm)].map((m) => m[1]);
  // The wasm Engine's own constructors and its in-memory log: not part of a durable engine.
  const memoryOnly = ['free', 'fromLog', 'fromSnapshot', 'inMemory', 'snapshot', 'committedBatches', 'constructor'];
  const expected = wasm.filter((m) => !memoryOnly.includes(m)).sort();
  assert.deepEqual([...methods].sort(), expected);
  const nodeDts = fs.readFileSync(path.join(NODE_PKG, 'index.d.ts'), 'utf8');
  const union = nodeDts.slice(nodeDts.indexOf('export type EngineMethod'), nodeDts.indexOf(';', nodeDts.indexOf('export type EngineMethod')));
  assert.deepEqual([...union.matchAll(/'([a-zA-Z]+)'/g)].map((m) => m[1]).sort(), expected);
  for (const m of methods) assert.equal(typeof Engine.prototype[m], 'function', m);
  const esm = await import(path.join(NODE_PKG, 'index.mjs'));
  assert.equal(esm.Engine, Engine);
});

test('a .rewind that links to a directory is the store for Node and the CLI alike', () => {
  const base = fs.realpathSync(tempWorkspace());
  const ws = path.join(base, 'ws');
  const kept = path.join(base, 'kept');
  fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
  fs.mkdirSync(kept);
  fs.symlinkSync(kept, path.join(ws, '.rewind'), 'dir');
  const engine = Engine.open(ws);
  const { id } = engine.createSession({ title: 'linked' });
  engine.close();
  assert.ok(fs.existsSync(path.join(kept, 'rewind.db')), 'the store is where the link leads');
  // The CLI, from a directory below, finds the same store by the same rule.
  const env = { ...process.env };
  delete env.REWIND_DB;
  delete env.REWIND_STORE;
  const out = execFileSync(CLI, ['--json', 'session', 'list'], { cwd: path.join(ws, 'sub'), encoding: 'utf8', env });
  assert.deepEqual(JSON.parse(out).map((s) => s.id), [id]);
  assert.ok(!fs.existsSync(path.join(ws, 'sub', '.rewind')), 'no second store below it');
});
