// Shell capture through the JS API: snapshotWorkspace over a workspace host with list()/stat(),
// on both engine kinds; what happens without list() or without the store's workspaceSnapshot;
// and list() entries of the wrong shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../lib/pkg.mjs';
import { MemWorkspace, MemStoreHost, utf8 } from '../lib/hosts.mjs';

const text = (b) => (b === null ? null : new TextDecoder().decode(b));

function expectCode(f, code) {
  try {
    f();
  } catch (e) {
    assert.equal(e.name, 'RewindError');
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

/** Both engine kinds over `ws`, with a count of the batches each committed. */
const kinds = {
  'Engine.inMemory': (ws) => {
    const log = [];
    return { engine: Engine.inMemory({ workspace: ws, onCommit: (b) => log.push(b) }), commits: () => log.length };
  },
  'JS store': (ws, store = new MemStoreHost()) => ({ engine: new Engine({ store, workspace: ws }), commits: () => store.commits, store }),
};

/** A session with one live turn over a workspace of four files. */
function started(kind, ws = new MemWorkspace({ 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n', 'd.txt': 'd0\n' })) {
  const hosts = kinds[kind](ws);
  const { id } = hosts.engine.createSession({ title: 'shell' });
  const { turnId, messageId } = hosts.engine.recordPrompt(id, { text: 'run it' });
  return { ...hosts, ws, id, turnId, messageId };
}

for (const kind of Object.keys(kinds)) {
  test(`snapshotWorkspace records a shell checkpoint a rewind undoes (${kind})`, () => {
    const { engine, ws, id, turnId, messageId } = started(kind);
    const base = engine.snapshotWorkspace(id, { turnId });
    assert.equal(base.baseline, true);
    assert.equal(base.checkpointId, null);
    assert.equal(base.files, 4);
    assert.equal(base.reread, 4);

    // The command runs: edits one file, removes one, creates one, makes one executable.
    ws.put('a.txt', utf8('A0\n'));
    ws.delete('b.txt');
    ws.put('new.txt', utf8('fresh\n'));
    ws.setMode('c.txt', 0o755);
    let reads = 0;
    const read = ws.read.bind(ws);
    ws.read = (p) => { reads++; return read(p); };
    const out = engine.snapshotWorkspace(id, { turnId, command: './tidy.sh', toolCallId: 'call_1' });
    ws.read = read;
    assert.equal(out.kind, 'shell');
    assert.deepEqual([out.created, out.modified, out.deleted, out.uncaptured], [['new.txt'], ['a.txt', 'c.txt'], ['b.txt'], []]);
    assert.deepEqual(out.untracked, []);
    assert.match(out.checkpointId, /^ckp_/);
    assert.match(out.manifest, /^[0-9a-f]{64}$/);
    // Only what changed is read again (c.txt because its mode and ctime moved); the stat data
    // of d.txt vouches for it.
    assert.deepEqual([out.files, out.reread, out.skipped, reads], [4, 3, 1, 3]);

    const [listed] = engine.checkpoints(id);
    assert.deepEqual([listed.checkpointId, listed.kind, listed.toolName, listed.toolInput], [out.checkpointId, 'shell', 'shell', './tidy.sh']);

    const done = engine.applyFileRewind(id, { since: messageId });
    assert.equal(done.applied, true);
    assert.deepEqual([text(ws.get('a.txt')), text(ws.get('b.txt')), ws.get('new.txt')], ['a0\n', 'b0\n', null]);
    assert.equal(ws.mode('c.txt'), 0o644);
    const op = engine.operations(id).at(-1).files.find((f) => f.path === 'c.txt');
    assert.deepEqual([op.beforeMode, op.afterMode], [0o755, 0o644]);

    // The rewind's own writes are not the agent's: the next snapshot records nothing.
    const after = engine.snapshotWorkspace(id, { turnId });
    assert.deepEqual([after.checkpointId, after.created, after.modified, after.deleted], [null, [], [], []]);
    const untouched = engine.snapshotWorkspace(id, { turnId });
    // Unchanged stat data vouches for every file; nothing is racy on the test workspace's clock.
    assert.deepEqual([untouched.reread, untouched.skipped, untouched.racy], [0, 4, 0]);
  });

  test(`a workspace without list() is unavailable and nothing is committed (${kind})`, () => {
    const ws = new MemWorkspace({ 'a.txt': 'a\n' });
    ws.list = undefined;
    const { engine, id, turnId, commits } = started(kind, ws);
    const before = commits();
    const e = expectCode(() => engine.snapshotWorkspace(id, { turnId }), 'unavailable');
    assert.match(e.message, /list\(\)/);
    assert.equal(commits(), before);
    assert.equal(engine.checkpoints(id).length, 0);
  });

  test(`a bad list() entry is host_error naming it, and nothing is written (${kind})`, () => {
    const { engine, ws, id, turnId, commits } = started(kind);
    const list = ws.list.bind(ws);
    const bad = [
      [() => [{ path: 'a.txt', size: 3 }], /index 0: mtimeMs is missing/],
      [() => [...list(), { path: 'x', size: -1, mtimeMs: 1 }], /index 4: size must be a whole number/],
      [() => [{ path: 7, size: 1, mtimeMs: 1 }], /index 0: path must be a string, not a number/],
      [() => [{ path: 'x', size: 1, mtimeMs: Number.NaN }], /mtimeMs must be a finite number/],
      [() => [{ path: 'x', size: 1, mtimeMs: 1, kind: 'folder' }], /kind must be 'file', 'dir', 'symlink' or 'other'/],
      [() => [null], /index 0: expected an object, got null/],
      [() => ({ 'a.txt': {} }), /workspace\.list returned an object, expected an array/],
    ];
    const before = commits();
    for (const [answer, message] of bad) {
      ws.list = answer;
      const e = expectCode(() => engine.snapshotWorkspace(id, { turnId }), 'host_error');
      assert.match(e.message, message);
      assert.equal(e.cause, undefined, 'a shape error has no thrown value');
    }
    const boom = new Error('walk failed');
    ws.list = () => { throw boom; };
    assert.equal(expectCode(() => engine.snapshotWorkspace(id, { turnId }), 'host_error').cause, boom);
    assert.equal(commits(), before, 'nothing was committed');
    ws.list = list;
    assert.equal(engine.snapshotWorkspace(id, { turnId }).baseline, true, 'the first good snapshot is still the first');
  });
}

test('a JS store without workspaceSnapshot: snapshotWorkspace is unavailable, the rest works', () => {
  const store = new MemStoreHost();
  store.workspaceSnapshot = undefined;
  const plain = new Engine({ store, workspace: new MemWorkspace({ 'a.txt': 'a\n' }) });
  const s = plain.createSession({}).id;
  const t = plain.recordPrompt(s, { text: 'go' }).turnId;
  const before = store.commits;
  const e = expectCode(() => plain.snapshotWorkspace(s, { turnId: t }), 'unavailable');
  assert.match(e.message, /workspaceSnapshot/);
  assert.equal(store.commits, before, 'refused before anything was committed');
  assert.equal(plain.gc({ dryRun: true }).applied, false);
  assert.equal(plain.gc({}).plan.undecodableRows, 0);
});

test('entries the engine will not read: invalid paths, links, fs.Stats modes and bigint inodes', () => {
  const { engine, ws, id, turnId } = started('Engine.inMemory');
  const list = ws.list.bind(ws);
  ws.put('link', utf8('target'));
  ws.list = () => list().map((e) => ({
    ...e,
    mode: 0o100000 | e.mode, // a regular file's type bits, as fs.Stats.mode has them
    ino: BigInt(e.ino),
    kind: e.path === 'link' ? 'symlink' : 'file',
  })).concat([{ path: '../outside.txt', size: 1, mtimeMs: 1 }, { path: '/etc/passwd', size: 1, mtimeMs: 1 }]);
  const out = engine.snapshotWorkspace(id, { turnId });
  assert.equal(out.files, 4);
  assert.deepEqual(out.untracked, [
    { path: 'link', reason: 'symlink' },
    { path: '../outside.txt', reason: 'invalid_path' },
    { path: '/etc/passwd', reason: 'invalid_path' },
  ]);
  ws.setMode('a.txt', 0o755);
  const chmod = engine.snapshotWorkspace(id, { turnId });
  assert.deepEqual(chmod.modified, ['a.txt'], 'the permission bits are compared, not the type bits');
});

test('without stat(), a fresh list() answers for the files the walk no longer reports', () => {
  const ws = new MemWorkspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  ws.stat = undefined;
  let walks = 0;
  const list = ws.list.bind(ws);
  ws.list = () => { walks++; return list(); };
  const { engine, id, turnId } = started('Engine.inMemory', ws);
  engine.snapshotWorkspace(id, { turnId });
  ws.delete('a.txt');
  ws.delete('b.txt');
  walks = 0;
  const out = engine.snapshotWorkspace(id, { turnId });
  assert.deepEqual(out.deleted, ['a.txt', 'b.txt']);
  assert.equal(walks, 2, 'the walk, then one fresh listing for both lookups');
});

test('with stat(), a tracked file the walk stops reporting (newly ignored) stays tracked', () => {
  const { engine, ws, id, turnId } = started('JS store');
  engine.snapshotWorkspace(id, { turnId });
  const list = ws.list.bind(ws);
  ws.list = () => list().filter((e) => e.path !== 'c.txt');
  ws.put('c.txt', utf8('c1\n'));
  const out = engine.snapshotWorkspace(id, { turnId });
  assert.deepEqual([out.modified, out.deleted, out.files], [['c.txt'], [], 4]);
});

test('a bad stat() answer is host_error naming the path', () => {
  const { engine, ws, id, turnId } = started('Engine.inMemory');
  engine.snapshotWorkspace(id, { turnId });
  const list = ws.list.bind(ws);
  ws.list = () => list().filter((e) => e.path !== 'c.txt');
  ws.stat = () => ({ size: '3', mtimeMs: 1 });
  const e = expectCode(() => engine.snapshotWorkspace(id, { turnId }), 'host_error');
  assert.match(e.message, /workspace\.stat\("c\.txt"\) returned a bad entry: size must be a finite number, not a string/);
});

test('an engine reloaded from its log or a snapshot keeps the latest workspace snapshot', () => {
  const ws = new MemWorkspace({ 'a.txt': 'a0\n' });
  const log = [];
  const engine = Engine.inMemory({ workspace: ws, onCommit: (b) => log.push(b) });
  const { id } = engine.createSession({});
  const { turnId } = engine.recordPrompt(id, { text: 'go' });
  engine.snapshotWorkspace(id, { turnId });
  const snapshot = engine.snapshot();
  ws.put('a.txt', utf8('a1\n'));
  for (const again of [Engine.fromLog(log, { workspace: ws }), Engine.fromSnapshot(snapshot, { workspace: ws })]) {
    const out = again.snapshotWorkspace(id, { turnId });
    assert.deepEqual([out.baseline, out.kind, out.modified], [false, 'shell', ['a.txt']]);
  }
});

test('snapshotWorkspace options are checked like every verb\'s', () => {
  const { engine, id, turnId } = started('Engine.inMemory');
  expectCode(() => engine.snapshotWorkspace(id, {}), 'invalid_input');
  expectCode(() => engine.snapshotWorkspace(id, { turnId, nope: 1 }), 'invalid_input');
  expectCode(() => engine.snapshotWorkspace(id, { turnId, command: '  ' }), 'invalid_input');
  expectCode(() => engine.snapshotWorkspace('ses_missing', { turnId }), 'not_found');
});
