// The generated package as a dependency: the .wasm imports nothing from "env", the web target
// loads, and the package.json exports resolve (the docs' examples run in docs.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PKG } from '../lib/pkg.mjs';

const WASM = path.join(PKG, 'rewind_wasm_bg.wasm');

test('the .wasm imports nothing from "env", and the package ships it once', () => {
  const mod = new WebAssembly.Module(fs.readFileSync(WASM));
  const env = WebAssembly.Module.imports(mod).filter((i) => i.module === 'env');
  assert.deepEqual(env, [], JSON.stringify(env));
  const copies = fs.readdirSync(PKG, { recursive: true }).filter((f) => String(f).endsWith('.wasm'));
  assert.deepEqual(copies, ['rewind_wasm_bg.wasm']);
});

test('the shipped .wasm has no name or producers section', () => {
  const mod = new WebAssembly.Module(fs.readFileSync(WASM));
  for (const name of ['name', 'producers']) {
    assert.deepEqual(WebAssembly.Module.customSections(mod, name), [], `custom section ${name}`);
  }
});

test('the web target loads with initSync and works', async () => {
  const web = await import(path.join(PKG, 'web/rewind_wasm.js'));
  web.initSync({ module: fs.readFileSync(WASM) });
  const files = new Map();
  const engine = web.Engine.inMemory({
    workspace: { read: (p) => files.get(p) ?? null, write: (p, b) => files.set(p, b), remove: (p) => files.delete(p) },
  });
  const { id } = engine.createSession({ title: 'web' });
  assert.equal(engine.recordPrompt(id, { text: 'hi' }).seq, 1);
});

test('the package.json exports resolve for Node', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'rewind-wasm');
  for (const f of ['node/rewind_wasm.js', 'node/rewind_wasm.mjs', 'node/rewind_wasm.d.ts', 'node/rewind_wasm.d.mts', 'web/rewind_wasm.js', 'web/rewind_wasm.d.ts', 'rewind_wasm_bg.wasm']) {
    assert.ok(fs.existsSync(path.join(PKG, f)), f);
  }
});
