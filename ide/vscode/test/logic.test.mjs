// The extension's logic without VS Code (dist/logic.mjs, bundled by build.mjs): rebuilding a
// file from hunks, the policies offered, the tree's turns, the rewind: references.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyHunks, decodeRef, encodeRef, firstLine, orderSessions, policiesFor, previewRow, turnsOf, withStats, writtenText,
} from '../dist/logic.mjs';

const hunk = (oldStart, oldLines, newStart, newLines, lines) => ({ oldStart, oldLines, newStart, newLines, lines });
const ctx = (text) => ({ kind: 'context', text }), add = (text) => ({ kind: 'added', text }), del = (text) => ({ kind: 'removed', text });

test('applyHunks rebuilds what a restore writes, and refuses a stale diff', () => {
  const disk = 'AGENT\nl2\nl3\nl4\nmine\n';
  assert.equal(applyHunks(disk, [hunk(1, 4, 1, 4, [del('AGENT'), add('l1'), ctx('l2'), ctx('l3'), ctx('l4')])]), 'l1\nl2\nl3\nl4\nmine\n');
  // Two hunks, an insertion after line 0 and a deletion at the end.
  assert.equal(applyHunks('a\nb\nc\n', [hunk(0, 0, 1, 1, [add('top')]), hunk(3, 1, 3, 0, [del('c')])]), 'top\na\nb\n');
  // A restore that deletes every line, and one that creates the file.
  assert.equal(applyHunks('new\n', [hunk(1, 1, 0, 0, [del('new')])]), '');
  assert.equal(applyHunks('', [hunk(0, 0, 1, 2, [add('x'), add('y')])]), 'x\ny\n');
  assert.throws(() => applyHunks('changed\n', [hunk(1, 1, 1, 1, [del('AGENT'), add('l1')])]), /changed since the diff/);
});

test('policiesFor offers what the CLI advises', () => {
  const f = (o) => ({ path: 'p', safe: true, mergeable: false, forceable: false, binary: false, large: false, additions: 0, deletions: 0, hunks: [], ...o });
  const diff = (...files) => ({ sessionId: 's', files, stats: { files: files.length, additions: 0, deletions: 0 } });
  assert.deepEqual(policiesFor(diff(f({}))), ['block']);
  assert.deepEqual(policiesFor(diff(f({}), f({ safe: false, mergeable: true, forceable: true }))), ['merge', 'skip', 'force']);
  assert.deepEqual(policiesFor(diff(f({ safe: false, forceable: true }))), ['force']);
  assert.deepEqual(policiesFor(diff(f({ safe: false }))), [], 'an unsupported checkpoint: nothing can be applied');
  const row = previewRow(f({ safe: false, reason: 'external_modified', mergeable: true, message: 'a.txt was changed' }));
  assert.match(row.description, /conflict: external_modified \(mergeable\)/);
  assert.equal(row.detail, 'a.txt was changed');
});

test('turnsOf numbers the prompts as rewind log does, newest first, and marks the person\'s files', () => {
  const messages = [
    { id: 'msg_1', seq: 1, turnId: 'trn_1', role: 'user', kind: 'prompt', text: 'first line\nsecond' },
    { id: 'msg_2', seq: 2, turnId: 'trn_1', role: 'assistant', kind: 'reply', text: 'ok' },
    { id: 'msg_3', seq: 3, turnId: 'trn_2', role: 'user', kind: 'prompt', text: 'two' },
  ];
  const cp = (id, turnId, kind, paths) => ({ checkpointId: id, turnId, messageId: 'm', toolName: kind, kind, files: paths.map((path) => ({ path, before: 'x', after: 'y', undone: false })) });
  const turns = turnsOf(messages, [cp('c1', 'trn_1', 'shell', ['a.txt']), cp('c2', 'trn_2', 'external', ['n.txt']), cp('c3', 'trn_2', 'edit', ['a.txt'])]);
  assert.deepEqual(turns.map((t) => [t.number, t.title]), [[2, 'two'], [1, 'first line']]);
  assert.equal(turns[0].files.get('n.txt').person, true);
  assert.equal(turns[0].files.get('a.txt').person, false);
  // The undo diff's removed lines are the turn's added ones.
  withStats(turns[1], { files: [{ path: 'a.txt', additions: 1, deletions: 3 }] });
  assert.deepEqual(turns[1].files.get('a.txt'), { additions: 3, deletions: 1, person: false });
});

test('rewind: references round-trip and foreign ones are refused', () => {
  const ref = { session: 'ses_1', target: { since: 'msg_1' }, path: 'dir/a b.txt', side: 'restored' };
  assert.deepEqual(decodeRef(encodeRef(ref)), ref);
  assert.throws(() => decodeRef('x=1'), /not a rewind document/);
  assert.throws(() => decodeRef(encodeRef({ ...ref, side: 'other' })), /not a rewind document/);
});

test('small text helpers', () => {
  assert.equal(firstLine('  fix it  \nmore'), 'fix it');
  assert.equal(firstLine(''), '(empty prompt)');
  assert.equal(firstLine('x'.repeat(100), 10).length, 10);
  const s = orderSessions([{ id: 'a', createdAt: 3 }, { id: 'b', createdAt: 1, current: true }, { id: 'c', createdAt: 5 }]);
  assert.deepEqual(s.map((x) => x.id), ['b', 'c', 'a']);
});

test('a rewind\'s line count is said in the CLI\'s words', () => {
  assert.equal(writtenText({ additions: 1, deletions: 6 }), 'the rewind adds 1 line and removes 6 lines');
});
