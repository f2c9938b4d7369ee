// Targets typed the way the CLI takes them (`#N`, `@`, `@-N`, unique id prefixes with or
// without the type prefix), in the wasm Engine and the Node addon alike: both run the core's
// one resolver, so a prefix, a position and the errors are the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine as WasmEngine } from '../lib/pkg.mjs';
import { MemWorkspace, utf8 } from '../lib/hosts.mjs';
import { Engine as NodeEngine, tempWorkspace } from '../lib/native.mjs';
import fs from 'node:fs';
import path from 'node:path';

function expectError(f, code, pattern) {
  try {
    f();
  } catch (e) {
    assert.equal(e.name, 'RewindError');
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return e;
  }
  assert.fail(`expected ${code}`);
}

/** Three turns, each creating one file (`f1.txt` …); `write` puts the file where the engine sees it. */
function threeTurns(engine, write) {
  const { id } = engine.createSession({ title: 'typed' });
  const turns = [];
  for (const n of [1, 2, 3]) {
    const { turnId, messageId } = engine.recordPrompt(id, { text: `turn ${n}` });
    write(`f${n}.txt`, `${n}\n`);
    engine.recordEdit(id, { turnId: '@', path: `f${n}.txt`, before: null, after: utf8(`${n}\n`), toolName: 'Write' });
    engine.completeTurn(id, { turnId: `#${n}` });
    turns.push({ turnId, messageId });
  }
  return { id, turns };
}

function suite(name, make) {
  test(`${name}: since '#1', '@', '@-1' and prefixes name turns and ids`, () => {
    const { engine, write, close } = make();
    const { id, turns } = threeTurns(engine, write);
    const paths = (p) => p.safeFiles.map((f) => f.path);
    assert.deepEqual(paths(engine.previewFileRewind(id, { since: '#1' })), ['f1.txt', 'f2.txt', 'f3.txt']);
    assert.deepEqual(paths(engine.previewFileRewind(id, { since: '@' })), ['f3.txt']);
    assert.deepEqual(paths(engine.previewFileRewind(id, { turn: '@-1' })), ['f2.txt']);
    // The same, by the id without `msg_`, and by a prefix of the session.
    const bare = turns[1].messageId.slice('msg_'.length);
    assert.deepEqual(paths(engine.previewFileRewind(id.slice(0, 12), { since: bare })), ['f2.txt', 'f3.txt']);
    const forked = engine.fork(id, { at: '#2' });
    assert.equal(forked.copiedMessages, 2);
    close();
  });

  test(`${name}: errors name what is wrong`, () => {
    const { engine, write, close } = make();
    const { id, turns } = threeTurns(engine, write);
    expectError(() => engine.previewFileRewind(id, { since: '#9' }), 'not_found', /no turn `#9`.*it has 3 turns, #1 to #3/);
    expectError(() => engine.previewFileRewind(id, { since: '#x' }), 'invalid_input', /not a turn: write #N/);
    expectError(() => engine.previewFileRewind(id, { since: 'ffffffff' }), 'not_found', /no message id starts with `ffffffff`/);
    expectError(() => engine.resume('ses_0123456789abcdef0123456789abcdef'), 'not_found', /^session ses_0123456789abcdef0123456789abcdef was not found/);
    expectError(() => engine.previewFileRewind('ffffffff', { since: '#1' }), 'not_found', /no session id starts with `ffffffff`/);
    // A changing call wants at least four characters of an id.
    expectError(() => engine.applyFileRewind(id, { since: turns[0].messageId.slice(4, 6) }), 'invalid_input', /too short/);
    close();
  });
}

suite('wasm', () => {
  const ws = new MemWorkspace();
  return { engine: WasmEngine.inMemory({ workspace: ws }), write: (p, s) => ws.put(p, utf8(s)), close: () => {} };
});

suite('node', () => {
  const dir = tempWorkspace();
  const engine = NodeEngine.open(dir);
  return {
    engine,
    write: (p, s) => fs.writeFileSync(path.join(dir, p), s),
    close: () => {
      engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
