// The web demo's pure planning helpers (wasm/demo/plan.js), without a browser: what a file that a
// rewind leaves as it is (skip) still imports that the same rewind deletes, and how the outcome
// tells it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { danglingImports, deletedBy, skippedTold } from '../../../wasm/demo/plan.js';

test('danglingImports: the relative imports that name a deleted path, as written', () => {
  const gone = new Set(['src/welcome.js', 'lib/util.js', 'src/deep/index.js']);
  const text = [
    "import { welcome } from './welcome.js';",
    "import x from '../lib/util';", // no extension: .js is tried
    "const d = await import('./deep');", // a directory: /index.js is tried
    "const m = require('./math.js');", // still there
    "import fs from 'node:fs';", // not relative
    "import './welcome.js';", // the same one twice: named once
  ].join('\n');
  assert.deepEqual(danglingImports('src/app.js', text, gone), ['./welcome.js', '../lib/util', './deep']);
  assert.deepEqual(danglingImports('src/app.js', text, new Set()), []);
  assert.deepEqual(danglingImports('README.md', text, gone), [], 'only JS/TS files are read');
  assert.deepEqual(danglingImports('src/app.js', null, gone), [], 'a file with no text imports nothing');
  assert.deepEqual(danglingImports('app.js', "import a from '../../welcome.js';", new Set(['welcome.js'])), [],
    'a specifier above the workspace root names no workspace file');
});

test('skippedTold: each skipped file, what it still imports that the rewind deleted, and what to do', () => {
  const out = {
    applied: true, operationId: 'op_x', unchangedFiles: [], cause: null, preview: /** @type {any} */ (null),
    restoredFiles: [
      { path: 'src/welcome.js', action: 'delete', merged: false, forced: false },
      { path: 'src/greet.js', action: 'restore', merged: false, forced: false },
    ],
    skippedFiles: ['src/app.js', 'notes.md'],
  };
  assert.deepEqual([...deletedBy(out)], ['src/welcome.js']);
  const texts = { 'src/app.js': "import { welcome } from './welcome.js';\n", 'notes.md': 'see ./welcome.js\n' };
  assert.equal(skippedTold(out, (p) => texts[p] ?? null, (p) => `Edit ${p}`),
    "src/app.js was left as it is (your edit and the agent's change both stay): it still imports ./welcome.js, which the rewind deleted. Edit src/app.js. "
    + "notes.md was left as it is (your edit and the agent's change both stay): it may still refer to files the rewind restored or deleted. Edit notes.md.");
  assert.equal(skippedTold({ ...out, skippedFiles: [] }, () => null, (p) => p), '', 'nothing skipped: nothing said');
});
