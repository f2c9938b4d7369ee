// The JS API itself: error codes and `cause`, throwing hosts, onCommit + fromLog, the JS store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../lib/pkg.mjs';
import { MemWorkspace, MemStoreHost, utf8 } from '../lib/hosts.mjs';

const text = (b) => (b === null ? null : new TextDecoder().decode(b));

/** A session with one turn that edited two files; returns what the tests need. */
function story(engine, ws) {
  const { id } = engine.createSession({ title: 'demo' });
  const { turnId, messageId } = engine.recordPrompt(id, { text: 'change a and b' });
  for (const p of ['a.txt', 'b.txt']) {
    ws.put(p, utf8(`${p} after\n`));
    engine.recordEdit(id, { turnId, path: p, before: utf8(`${p} before\n`), after: utf8(`${p} after\n`), toolName: 'Edit' });
  }
  engine.recordReply(id, { turnId, text: 'done' });
  engine.completeTurn(id, { turnId });
  return { id, turnId, messageId };
}

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

test('results use the CLI --json field names', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id, messageId } = story(engine, ws);
  assert.match(id, /^ses_/);
  const preview = engine.previewFileRewind(id, { since: messageId });
  assert.equal(preview.canApply, true);
  assert.deepEqual(preview.safeFiles.map((f) => f.path), ['a.txt', 'b.txt']);
  assert.deepEqual(preview.unsafeFiles, []);
  const done = engine.applyFileRewind(id, { since: messageId, policy: 'block' });
  assert.equal(done.applied, true);
  assert.match(done.operationId, /^op/);
  assert.equal(text(ws.get('a.txt')), 'a.txt before\n');
  const undone = engine.undo(id, { operationId: done.operationId });
  assert.equal(undone.applied, true);
  assert.equal(text(ws.get('a.txt')), 'a.txt after\n');
});

test('undo() with no operation takes back the latest rewind, redo() re-applies it, both whole', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id, messageId } = story(engine, ws);
  expectError(() => engine.undo(id), 'not_found');
  const both = engine.rewind(id, { scope: 'both', to: messageId, policy: 'block' });
  assert.equal(both.rewound, true);
  assert.equal(engine.activeBranch(id).messages.length, 0);
  const undone = engine.undo(id);
  assert.equal(undone.undoneOperationId, both.operationId);
  assert.equal(undone.conversation.rewoundTo, null);
  assert.equal(text(ws.get('a.txt')), 'a.txt after\n');
  assert.ok(engine.activeBranch(id).messages.some((m) => m.id === messageId), 'the prompt is back');
  const redone = engine.redo(id);
  assert.equal(redone.redo, true);
  assert.equal(redone.redoneOperationId, both.operationId);
  assert.equal(text(ws.get('a.txt')), 'a.txt before\n');
  const err = expectError(() => engine.redo(id), 'not_found');
  assert.match(err.message, new RegExp(id));
});

test('error codes: invalid_input, invalid_path, not_found', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id, turnId } = story(engine, ws);
  expectError(() => engine.recordPrompt(id, { text: '' }), 'invalid_input');
  expectError(() => engine.recordPrompt(id, { text: 'x', nope: 1 }), 'invalid_input');
  expectError(() => engine.recordPrompt(42, { text: 'x' }), 'invalid_input');
  expectError(() => engine.recordEdit(id, { turnId, path: 'a', before: 'text', after: null, toolName: 'E' }), 'invalid_input');
  expectError(() => engine.recordEdit(id, { turnId, path: '../etc/passwd', before: null, after: utf8('x'), toolName: 'E' }), 'invalid_path');
  expectError(() => engine.resume('ses_missing'), 'not_found');
  expectError(() => Engine.inMemory({ workspace: { read() {} } }), 'invalid_input');
  // Still usable afterwards.
  assert.equal(engine.resume(id).session.id, id);
});

test('a throwing workspace write mid-apply rolls back; the engine stays usable', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id, messageId } = story(engine, ws);
  ws.faults.arm({ op: 'write', nth: 2 });
  const r = engine.applyFileRewind(id, { since: messageId });
  assert.equal(r.applied, false);
  assert.match(r.cause, /injected fault/);
  assert.equal(text(ws.get('a.txt')), 'a.txt after\n');
  assert.equal(text(ws.get('b.txt')), 'b.txt after\n');
  ws.faults.clear();
  assert.equal(engine.applyFileRewind(id, { since: messageId }).applied, true);
});

test('a write and its rollback both throwing: unrecoverable, with the first exception as cause', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id, messageId } = story(engine, ws);
  ws.faults.arm({ op: 'write', nth: 2, sticky: true });
  const e = expectError(() => engine.applyFileRewind(id, { since: messageId }), 'unrecoverable');
  assert.ok(e.cause instanceof Error);
  assert.match(e.cause.message, /injected fault: write/);
  ws.faults.clear();
  const rec = engine.recover(id);
  assert.equal(rec.recovered.length, 1);
  assert.equal(text(ws.get('a.txt')), 'a.txt after\n');
});

test('a throwing store callback is host_error with the exception as cause', () => {
  const ws = new MemWorkspace();
  const store = new MemStoreHost();
  const engine = new Engine({ store, workspace: ws });
  const { id } = story(engine, ws);
  const boom = new RangeError('disk on fire');
  store.faults.hit = (op) => { if (op === 'commit') throw boom; return false; };
  const e = expectError(() => engine.recordPrompt(id, { text: 'again' }), 'host_error');
  assert.equal(e.cause, boom);
  store.faults.hit = () => false;
  assert.equal(engine.recordPrompt(id, { text: 'again' }).seq > 0, true);
  const orig = store.sessions;
  store.sessions = () => { throw 'a string'; };
  const e2 = expectError(() => engine.listSessions(), 'host_error');
  assert.equal(e2.cause, 'a string');
  store.sessions = orig;
  assert.equal(engine.listSessions().length, 1);
});

test('a store returning the wrong shape is host_error', () => {
  const ws = new MemWorkspace();
  const store = new MemStoreHost();
  const engine = new Engine({ store, workspace: ws });
  store.sessions = () => [{ id: 1 }];
  expectError(() => engine.listSessions(), 'host_error');
});

test('fromLog: replaying the committed batches reproduces the same state', () => {
  const log = [];
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws, keepLog: true, onCommit: (b) => log.push(b) });
  const { id, messageId } = story(engine, ws);
  const done = engine.applyFileRewind(id, { since: messageId });
  engine.rewindConversation(id, { to: messageId });
  assert.ok(log.length > 5 && log.every((b) => b instanceof Uint8Array));
  assert.deepEqual(engine.committedBatches().map((b) => [...b]), log.map((b) => [...b]));

  const again = Engine.fromLog(log, { workspace: ws });
  for (const m of ['resume', 'activeBranch', 'checkpoints', 'operations']) {
    assert.deepEqual(again[m](id), engine[m](id), m);
  }
  assert.deepEqual(again.listSessions(), engine.listSessions());
  // And it keeps working from there.
  assert.equal(again.undo(id, { operationId: done.operationId }).applied, true);
  assert.equal(text(ws.get('b.txt')), 'b.txt after\n');
});

test('fromLog skips a corrupt batch with a diagnostic; strict rejects it', () => {
  const ws = new MemWorkspace();
  const log = [];
  const first = Engine.inMemory({ workspace: ws, onCommit: (b) => log.push(b) });
  const { id } = first.createSession({ title: 'kept' });
  const damaged = Engine.fromLog([utf8('{"writes": 3}'), ...log], { workspace: ws });
  assert.deepEqual(damaged.diagnostics.map((d) => [d.kind, d.id]), [['batch', '0']]);
  assert.deepEqual(damaged.listSessions().map((s) => s.id), [id]);
  assert.deepEqual(Engine.fromLog(log, { workspace: ws }).diagnostics, []);
  expectError(() => Engine.fromLog([utf8('{"writes": 3}'), ...log], { workspace: ws, strict: true }), 'corrupt');
  expectError(() => Engine.fromLog(['nope'], { workspace: ws }), 'invalid_input');
});

test('recordEdit refuses a missing before or after: only null means absent', () => {
  const engine = Engine.inMemory({ workspace: new MemWorkspace() });
  const { id } = engine.createSession({ title: 't' });
  const { turnId } = engine.recordPrompt(id, { text: 'go' });
  const e = expectError(() => engine.recordEdit(id, { turnId, path: 'a.txt', after: utf8('x'), toolName: 'Write' }), 'invalid_input');
  assert.match(e.message, /before is missing/);
  expectError(() => engine.recordEdit(id, { turnId, path: 'a.txt', before: utf8('x'), after: undefined, toolName: 'Write' }), 'invalid_input');
  assert.equal(engine.checkpoints(id).length, 0);
  engine.recordEdit(id, { turnId, path: 'a.txt', before: null, after: utf8('x'), toolName: 'Write' });
  assert.equal(engine.checkpoints(id).length, 1);
});

test('onCommit throwing: the call throws host_error, the batch stays committed', () => {
  const ws = new MemWorkspace();
  let fail = false;
  const boom = new Error('quota exceeded');
  const engine = Engine.inMemory({ workspace: ws, onCommit: () => { if (fail) throw boom; } });
  const { id } = engine.createSession({ title: 't' });
  fail = true;
  const e = expectError(() => engine.recordPrompt(id, { text: 'hello' }), 'host_error');
  assert.equal(e.cause, boom);
  fail = false;
  assert.equal(engine.activeBranch(id).messages.length, 1);
});

test('ids are random and times are Date.now()', () => {
  const ws = new MemWorkspace();
  const a = Engine.inMemory({ workspace: ws }).createSession();
  const b = Engine.inMemory({ workspace: ws }).createSession();
  assert.notEqual(a.id, b.id);
  assert.ok(Math.abs(a.createdAt - Date.now()) < 60_000);
});

test('gc keeps the newest checkpoints, drops what nothing references, and stats show it', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id } = engine.createSession({ title: 'retention' });
  let before = utf8('v0\n');
  for (let i = 1; i <= 4; i++) {
    const { turnId } = engine.recordPrompt(id, { text: `turn ${i}` });
    const after = utf8(`v${i}\n`);
    ws.put('f.txt', after);
    engine.recordEdit(id, { turnId, path: 'f.txt', before, after, toolName: 'Edit' });
    before = after;
  }
  const dry = engine.gc({ keep: 1, dryRun: true });
  assert.equal(dry.applied, false);
  assert.equal(dry.plan.totals.checkpoints.count, 3);
  assert.equal(engine.checkpoints(id).length, 4, 'a dry run deletes nothing');
  const done = engine.gc({ keep: 1 });
  assert.equal(done.applied, true);
  assert.equal(engine.checkpoints(id).length, 1);
  assert.equal(engine.gc({ keep: 1 }).applied, false, 'a second run finds nothing');
  const stats = engine.stats();
  assert.equal(stats.checkpoints, 1);
  assert.equal(stats.blobs, 2, 'only the kept checkpoint\'s before and after remain');
  assert.equal(engine.operations(id).at(-1).kind, 'gc');
  expectError(() => engine.gc({ keep: -1 }), 'invalid_input');
});

test('a failed capture lists its unknown before as null, not "missing" (an absent file)', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id } = engine.createSession({});
  const { turnId } = engine.recordPrompt(id, { text: 'regenerate' });
  engine.recordFailedCapture(id, { turnId, toolName: 'Bash', path: 'out.csv', reason: 'read_failed' });
  ws.put('new.txt', utf8('one\n'));
  engine.recordEdit(id, { turnId, path: 'new.txt', before: null, after: utf8('one\n'), toolName: 'Write' });
  const [failed, created] = engine.checkpoints(id).map((c) => c.files[0]);
  assert.deepEqual([failed.before, failed.after, failed.captureFailed], [null, null, 'read_failed']);
  assert.equal(created.before, 'missing');
  assert.equal(created.captureFailed, undefined);
});

test('previews mark files too large for a patch (no line counts) as large', () => {
  const ws = new MemWorkspace();
  const engine = Engine.inMemory({ workspace: ws });
  const { id } = engine.createSession({});
  const { turnId, messageId } = engine.recordPrompt(id, { text: 'generate' });
  const big = utf8('generated line\n'.repeat(80_000)); // 1.2 MB: over the 1 MiB patch limit
  ws.put('big.txt', big);
  engine.recordEdit(id, { turnId, path: 'big.txt', before: null, after: big, toolName: 'Write' });
  ws.put('small.txt', utf8('one\n'));
  engine.recordEdit(id, { turnId, path: 'small.txt', before: null, after: utf8('one\n'), toolName: 'Write' });
  const preview = engine.previewFileRewind(id, { since: messageId });
  assert.deepEqual(preview.safeFiles.map((f) => [f.path, f.large ?? false]), [['big.txt', true], ['small.txt', false]]);
  assert.equal('large' in preview.safeFiles[1], false, 'omitted when false');
  // What the rewind writes: it deletes small.txt's line; the large file has no line counts.
  assert.deepEqual([preview.stats.additions, preview.stats.deletions], [0, 1]);
  assert.deepEqual([preview.safeFiles[1].additions, preview.safeFiles[1].deletions], [0, 1]);
});
