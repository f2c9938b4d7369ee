// The generated package as a dependency: the .wasm imports nothing from "env", the web target
// loads, and the README's JavaScript examples run from a Node project that depends on wasm/pkg.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { PKG, ROOT } from '../lib/pkg.mjs';

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

/** The ```js blocks of the README's "## Usage (JavaScript)" section. */
function readmeExamples() {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Usage (JavaScript)'));
  assert.ok(section, 'README has a "Usage (JavaScript)" section');
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** A throwaway Node project whose node_modules/rewind-wasm is the package folder (what npm makes of a file: dependency). */
function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-js-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { 'rewind-wasm': `file:${PKG}` } }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(PKG, path.join(dir, 'node_modules/rewind-wasm'), 'dir');
  return dir;
}

test('the README Node example runs from a project that depends on the package', () => {
  const [node] = readmeExamples();
  const dir = project();
  fs.writeFileSync(path.join(dir, 'example.mjs'), node);
  const out = execFileSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8' });
  const lines = out.split('\n').filter((l) => l !== '');
  assert.deepEqual(lines, ["true [ 'src/lib.rs' ]", 'true fn foo() {}', 'invalid_input', 'fn bar() {}']);
  fs.rmSync(dir, { recursive: true });
});

test('the README shell capture example records a sed and an rm, and rewinds them', () => {
  const [, , shell] = readmeExamples();
  assert.ok(shell, 'README has a shell capture example');
  const dir = project();
  fs.writeFileSync(path.join(dir, 'example.mjs'), shell);
  const out = execFileSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8' });
  const lines = out.split('\n').filter((l) => l !== '');
  assert.deepEqual(lines, ["shell [ 'src/lib.rs' ] [ 'old.txt' ]", 'fn foo() {} true']);
  fs.rmSync(dir, { recursive: true });
});

test('the README browser example runs against the web target', () => {
  const [, browser] = readmeExamples();
  assert.ok(browser, 'README has a browser example');
  const dir = project();
  // Node's fetch cannot read file: URLs; serve the .wasm from disk the way a web server would.
  const shim = `import fs from 'node:fs'; import { fileURLToPath } from 'node:url';
globalThis.fetch = async (url) => new Response(fs.readFileSync(fileURLToPath(url)), { headers: { 'content-type': 'application/wasm' } });
`;
  fs.writeFileSync(path.join(dir, 'shim.mjs'), shim);
  fs.writeFileSync(path.join(dir, 'example.mjs'), browser);
  const out = execFileSync(process.execPath, ['--import', './shim.mjs', 'example.mjs'], { cwd: dir, encoding: 'utf8' });
  assert.equal(out.trim(), '2');
  fs.rmSync(dir, { recursive: true });
});
