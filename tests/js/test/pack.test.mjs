// The published package as a user gets it: `npm pack wasm/pkg`, `npm install` of the tarball
// into a fresh project, then an ES module script, a CommonJS script, strict TypeScript (Node
// and bundler resolution) and esbuild bundles for Node and for browsers. Each one creates a
// session, records a prompt and an edit, previews the rewind and checks the result.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { PKG, ROOT } from '../lib/pkg.mjs';

const BIN = path.join(ROOT, 'tests/js/node_modules/.bin');
let tmp; // holds the tarball and the project
let project; // the fresh project with rewind-wasm installed from the tarball
let files; // the tarball's file list, from `npm pack --json`

/** Run a command; on failure the error says what it printed (tsc reports on stdout). */
function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed:\n${e.stdout}${e.stderr}`);
  }
}
const lines = (out) => out.split('\n').filter((l) => l !== '');
const write = (name, text) => fs.writeFileSync(path.join(project, name), text);

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-pack-'));
  const [packed] = JSON.parse(run('npm', ['pack', PKG, '--json', '--pack-destination', tmp], tmp));
  files = packed.files.map((f) => f.path).sort();
  project = path.join(tmp, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh', private: true }));
  // The tarball has no dependencies: nothing is fetched.
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, packed.filename)], project);
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('the tarball holds the README, both licenses, one .wasm, the two builds and the browser store, nothing else', () => {
  assert.deepEqual(files, [
    'LICENSE-APACHE',
    'LICENSE-MIT',
    'README.md',
    'node/rewind_wasm.d.mts',
    'node/rewind_wasm.d.ts',
    'node/rewind_wasm.js',
    'node/rewind_wasm.mjs',
    'node/rewind_wasm_bg.wasm.d.ts',
    'package.json',
    'rewind_wasm_bg.wasm',
    'web/package.json',
    'web/persist-workspace.js',
    'web/persist.d.ts',
    'web/persist.js',
    'web/rewind_wasm.d.ts',
    'web/rewind_wasm.js',
    'web/rewind_wasm_bg.wasm.d.ts',
  ]);
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), ['rewind_wasm_bg.wasm']);
});

test('the package metadata is real', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/rewind-wasm/package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT OR Apache-2.0');
  assert.match(pkg.description, /rewind/);
  assert.ok(pkg.keywords.length > 0);
  assert.ok(pkg.engines.node);
  assert.ok(!('dependencies' in pkg), 'no dependencies');
});

// No test kit: the entry points export the API and nothing else (scripts/build-wasm also fails
// when the build turns on rewind-core's testkit feature).
test('no test kit: the entry points export only the engine', () => {
  const out = run(process.execPath, ['--input-type=module', '-e', `
    import * as node from 'rewind-wasm';
    import * as web from 'rewind-wasm/web';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('rewind-wasm');
    console.log(JSON.stringify([Object.keys(node).sort(), Object.keys(cjs).sort(), Object.keys(web).sort(), cjs.Engine === node.Engine]));
  `], project);
  // `require` and `import` share one module instance (one Engine class).
  assert.deepEqual(JSON.parse(out), [['Engine', 'start'], ['Engine', 'start'], ['Engine', 'default', 'initSync', 'start'], true]);
  const dts = fs.readFileSync(path.join(project, 'node_modules/rewind-wasm/node/rewind_wasm.d.ts'), 'utf8');
  assert.doesNotMatch(dts, /testkit|Faulty|TickClock|SeqIds|MemWorkspace/i);
});

// One session in every flavour: record a prompt and an edit, preview the rewind, print it.
const body = `
const files = new Map([['a.txt', new TextEncoder().encode('old')]]);
const workspace = { read: (p) => files.get(p) ?? null, write: (p, b) => { files.set(p, b); }, remove: (p) => { files.delete(p); } };
const engine = Engine.inMemory({ workspace });
const { id } = engine.createSession({ title: 'packed' });
const { turnId, messageId } = engine.recordPrompt(id, { text: 'change a.txt' });
const after = new TextEncoder().encode('new');
engine.recordEdit(id, { turnId, path: 'a.txt', before: files.get('a.txt') ?? null, after, toolName: 'Write' });
files.set('a.txt', after);
const preview = engine.previewFileRewind(id, { since: messageId });
console.log(preview.canApply, preview.safeFiles.map((f) => f.path).join(','), engine.gc().plan.totals.blobs.bytes >= 0);
`;
const EXPECTED = 'true a.txt true\n';

test('an ES module script imports it', () => {
  write('esm.mjs', `import { Engine } from 'rewind-wasm';\n${body}`);
  assert.equal(run(process.execPath, ['esm.mjs'], project), EXPECTED);
});

test('a CommonJS script requires it', () => {
  write('cjs.cjs', `const { Engine } = require('rewind-wasm');\n${body}`);
  assert.equal(run(process.execPath, ['cjs.cjs'], project), EXPECTED);
});

/** The ```js blocks of the package README that start with `// example.<ext>`, by file name. */
function readmeExamples() {
  const readme = fs.readFileSync(path.join(project, 'node_modules/rewind-wasm/README.md'), 'utf8');
  return Object.fromEntries([...readme.matchAll(/```js\n\/\/ (example\.\w+)\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]));
}

test("the package README's Node examples run (ES module and CommonJS)", () => {
  const examples = readmeExamples();
  assert.deepEqual(Object.keys(examples).sort(), ['example.cjs', 'example.mjs']);
  for (const [name, text] of Object.entries(examples)) write(name, text);
  assert.deepEqual(lines(run(process.execPath, ['example.mjs'], project)), ["true [ 'src/lib.rs' ]", 'fn foo() {}', '1']);
  assert.deepEqual(lines(run(process.execPath, ['example.cjs'], project)), ['RewindError invalid_input']);
});

const typed = `
const files = new Map<string, Uint8Array>();
const workspace: WorkspaceHost = { read: (p) => files.get(p) ?? null, write: (p, b) => { files.set(p, b); }, remove: (p) => { files.delete(p); } };
const engine = Engine.inMemory({ workspace });
const { id } = engine.createSession();
const { turnId, messageId } = engine.recordPrompt(id, { text: 'go' });
engine.recordEdit(id, { turnId, path: 'a.txt', before: null, after: new Uint8Array([1]), toolName: 'Write' });
const preview: Preview = engine.previewFileRewind(id, { since: messageId });
const ok: boolean = preview.canApply;
// Optional arguments are optional.
const swept: GcOutcome = engine.gc();
engine.recover();
engine.sideChat(id);
void ok;
void swept;
`;

test('strict TypeScript compiles against it (nodenext ESM and CommonJS, and bundler resolution)', () => {
  write('esm.mts', `import { Engine, type WorkspaceHost, type Preview, type GcOutcome } from 'rewind-wasm';\n${typed}`);
  write('cjs.cts', `import rewind = require('rewind-wasm');\nimport Engine = rewind.Engine;\ntype WorkspaceHost = rewind.WorkspaceHost;\ntype Preview = rewind.Preview;\ntype GcOutcome = rewind.GcOutcome;\n${typed}`);
  // The browser store (rewind-wasm/persist) over the web build, as a page imports it.
  const persisted = `import { openBrowserEngine } from 'rewind-wasm/persist';\nconst store = await openBrowserEngine({ name: 'ide' });\nstore.engine.createSession();\nawait store.flush();\nstore.close();\n`;
  write('web.ts', `import init, { Engine, type WorkspaceHost, type Preview, type GcOutcome } from 'rewind-wasm';\nawait init();\n${typed}\n${persisted}export {};\n`);
  // Strict, and the package's declarations are checked too (skipLibCheck off); only the
  // standard library's are skipped, which takes most of tsc's time.
  const tsconfig = (module, moduleResolution, files) => JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module, moduleResolution, lib: ['esnext', 'dom'], types: [], skipLibCheck: false, skipDefaultLibCheck: true },
    files,
  });
  write('tsconfig.node.json', tsconfig('nodenext', 'nodenext', ['esm.mts', 'cjs.cts']));
  write('tsconfig.bundler.json', tsconfig('esnext', 'bundler', ['web.ts']));
  run(path.join(BIN, 'tsc'), ['-p', 'tsconfig.node.json'], project);
  run(path.join(BIN, 'tsc'), ['-p', 'tsconfig.bundler.json'], project);
});

test('esbuild bundles it for Node (the .wasm copied beside the bundle) and the bundle runs anywhere', () => {
  write('app.mjs', `import { Engine } from 'rewind-wasm';\n${body}`);
  const out = path.join(tmp, 'node-dist'); // outside the project: no node_modules to fall back on
  run(path.join(BIN, 'esbuild'), ['app.mjs', '--bundle', '--platform=node', '--log-level=warning', `--outfile=${out}/app.cjs`], project);
  fs.copyFileSync(path.join(project, 'node_modules/rewind-wasm/rewind_wasm_bg.wasm'), path.join(out, 'rewind_wasm_bg.wasm'));
  assert.equal(run(process.execPath, ['app.cjs'], out), EXPECTED);
});

test('esbuild bundles it for browsers with the .wasm as a file asset, and the bundle runs', () => {
  write('web.mjs', `import init, { Engine } from 'rewind-wasm';\nimport wasmUrl from 'rewind-wasm/rewind_wasm_bg.wasm';\nawait init({ module_or_path: wasmUrl });\n${body}`);
  const out = path.join(tmp, 'web-dist');
  run(path.join(BIN, 'esbuild'), ['web.mjs', '--bundle', '--platform=browser', '--format=esm', '--loader:.wasm=file', '--out-extension:.js=.mjs', '--log-level=warning', `--outdir=${out}`], project);
  const assets = fs.readdirSync(out).sort();
  assert.equal(assets.length, 2, assets.join(' '));
  assert.match(assets[0], /^rewind_wasm_bg-\w+\.wasm$/);
  assert.equal(assets[1], 'web.mjs');
  // What a page does, in Node: fetch the asset URL relative to the page (here, the output folder).
  const shim = `import fs from 'node:fs'; import path from 'node:path';
globalThis.fetch = async (url) => new Response(fs.readFileSync(path.join(${JSON.stringify(out)}, String(url))), { headers: { 'content-type': 'application/wasm' } });`;
  fs.writeFileSync(path.join(tmp, 'fetch-shim.mjs'), shim);
  assert.equal(run(process.execPath, ['--import', path.join(tmp, 'fetch-shim.mjs'), 'web.mjs'], out), EXPECTED);
});
