// engine.diffFileRewind: the line diff a UI shows before a rewind, from the same plan as the
// preview (so a safe file, a deleted one and a conflict read as apply would treat them), and for
// a conflict the person's change beside the agent's and what merge would write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../lib/pkg.mjs';
import { MemWorkspace, utf8 } from '../lib/hosts.mjs';

const text = (b) => new TextDecoder().decode(b);
/** A hunk list as `+line` / `-line` / ` line` strings. */
const lines = (hunks) => hunks.flatMap((h) => h.lines.map((l) => `${{ added: '+', removed: '-', context: ' ' }[l.kind]}${l.text}`));

/** One turn: edits a.txt (line 2), creates new.txt, deletes old.txt; then the person edits a.txt. */
function story() {
  const ws = new MemWorkspace({ 'a.txt': '1\n2\n3\n4\n5\n6\n7\n8\n', 'old.txt': 'old\n' });
  const engine = Engine.inMemory({ workspace: ws });
  const { id } = engine.createSession();
  const { turnId, messageId } = engine.recordPrompt(id, { text: 'edit' });
  const edit = (path, before, after) => {
    if (after === null) ws.delete(path); else ws.put(path, utf8(after));
    engine.recordEdit(id, { turnId, path, before: before === null ? null : utf8(before), after: after === null ? null : utf8(after), toolName: 'Edit' });
  };
  edit('a.txt', '1\n2\n3\n4\n5\n6\n7\n8\n', '1\nTWO\n3\n4\n5\n6\n7\n8\n');
  edit('new.txt', null, 'new\n');
  edit('old.txt', 'old\n', null);
  engine.completeTurn(id, { turnId });
  return { ws, engine, id, messageId };
}

test('diffFileRewind: safe files read as disk now → restore, writes nothing', () => {
  const { ws, engine, id, messageId } = story();
  const d = engine.diffFileRewind(id, { since: messageId });
  assert.equal(d.sessionId, id);
  assert.deepEqual(d.files.map((f) => [f.path, f.action, f.safe]), [
    ['a.txt', 'restore', true], ['new.txt', 'delete', true], ['old.txt', 'create', true],
  ]);
  const a = d.files[0];
  assert.deepEqual(lines(a.hunks), [' 1', '-TWO', '+2', ' 3', ' 4', ' 5']);
  assert.deepEqual([a.additions, a.deletions], [1, 1]);
  assert.equal(a.personChange, undefined);
  assert.deepEqual(d.stats, { files: 3, additions: 2, deletions: 2 });
  assert.equal(text(ws.get('a.txt')), '1\nTWO\n3\n4\n5\n6\n7\n8\n', 'nothing written');
  assert.equal(ws.get('old.txt'), null);
});

test('diffFileRewind: a conflict has the person\'s change, the agent\'s and the merge', () => {
  const { ws, engine, id, messageId } = story();
  ws.put('a.txt', utf8('1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n')); // the person, far from the agent's line
  const d = engine.diffFileRewind(id, { since: messageId, paths: ['a.txt'] });
  const [a] = d.files;
  assert.equal(a.safe, false);
  assert.equal(a.reason, 'external_modified');
  assert.equal(a.mergeable, true);
  assert.match(a.message, /./);
  assert.deepEqual(lines(a.personChange).filter((l) => l[0] !== ' '), ['-8', '+EIGHT']);
  assert.deepEqual(lines(a.agentChange).filter((l) => l[0] !== ' '), ['-2', '+TWO']);
  assert.deepEqual(lines(a.mergeHunks).filter((l) => l[0] !== ' '), ['-TWO', '+2']);
  // What the diff promised is what merge writes.
  engine.applyFileRewind(id, { since: messageId, paths: ['a.txt'], policy: 'merge' });
  assert.equal(text(ws.get('a.txt')), '1\n2\n3\n4\n5\n6\n7\nEIGHT\n');
});

test('diffFileRewind: bad input is invalid_input, an unknown prompt not_found', () => {
  const { engine, id } = story();
  assert.throws(() => engine.diffFileRewind(id, {}), { name: 'RewindError', code: 'invalid_input' });
  assert.throws(() => engine.diffFileRewind(id, { since: 'msg_x', nope: 1 }), { code: 'invalid_input' });
  assert.throws(() => engine.diffFileRewind(id, { since: 'msg_x' }), { code: 'not_found' });
});
