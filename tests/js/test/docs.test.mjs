// Every ```js / ```mjs block of README.md and docs/*.md runs, so no example can go stale: in
// Node, from a throwaway project whose node_modules holds the built packages (wasm/pkg as
// rewind-wasm, node/pkg as rewind-node), or, for a block marked ```js browser, in headless
// Chromium. What a block prints must be what its `console.log(…); // expected` comments say, in
// order; a block that shows no output is refused, so a block cannot pass by doing nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, CLI } from '../lib/native.mjs';
import { launch, newPage } from '../lib/browser.mjs';

const PACKAGES = { 'rewind-wasm': path.join(ROOT, 'wasm/pkg'), 'rewind-node': path.join(ROOT, 'node/pkg') };

/** { file, line, tags, code } for every js/mjs block of the README and docs/. */
function blocks() {
  const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  const found = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/^```(js|mjs)((?:[ \t][^\n]*)?)\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, m.index).split('\n').length;
      found.push({ file, line, tags: m[2].trim().split(/\s+/).filter(Boolean), code: m[3] });
    }
  }
  return found;
}

/** The lines a block says it prints: the `// …` comment after each console.log, in order. */
function expected(code) {
  return code.split('\n').filter((l) => /console\.log\(/.test(l) && / \/\/ /.test(l)).map((l) => l.slice(l.lastIndexOf(' // ') + 4).trim());
}

let dir; // the throwaway project
let chrome; // started only if a block needs it
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-docs-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  for (const [name, pkg] of Object.entries(PACKAGES)) fs.symlinkSync(pkg, path.join(dir, 'node_modules', name), 'dir');
  // Node's fetch cannot read file: URLs; serve the .wasm from disk the way a web server would
  // (for blocks that load the web target).
  fs.writeFileSync(path.join(dir, 'shim.mjs'), `import fs from 'node:fs'; import { fileURLToPath } from 'node:url';
globalThis.fetch = async (url) => new Response(fs.readFileSync(fileURLToPath(url)), { headers: { 'content-type': 'application/wasm' } });
`);
});
after(async () => {
  await chrome?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the README and docs/ have the JS examples this test runs', () => {
  const all = blocks();
  const where = (f) => all.filter((b) => b.file === f).length;
  assert.ok(where('docs/js.md') >= 4, 'docs/js.md: Node, browser, shell capture, persistence');
  assert.ok(where('docs/node.md') >= 1, 'docs/node.md: the addon');
  assert.ok(where('README.md') >= 1, 'README.md: the tour');
  for (const b of all) {
    assert.ok(expected(b.code).length > 0, `${b.file}:${b.line}: a block must say what it prints (console.log(…); // expected)`);
    for (const t of b.tags) assert.ok(['browser'].includes(t), `${b.file}:${b.line}: unknown tag ${t}`);
  }
});

for (const b of blocks()) {
  const name = `${b.file}:${b.line} runs${b.tags.includes('browser') ? ' in Chromium' : ' in Node'} and prints what it says`;
  if (b.tags.includes('browser')) {
    test(name, async () => {
      chrome ??= await launch();
      const { page, errors } = await newPage(chrome.browser, `${chrome.url}/test/example.html`);
      const logs = [];
      page.on('console', (m) => { if (m.type() === 'log') logs.push(m.text()); });
      await page.waitForFunction(() => window.ready === true);
      await page.evaluate(async (code) => {
        const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
        await import(url);
      }, b.code);
      assert.deepEqual(errors, []);
      assert.deepEqual(logs, expected(b.code));
      await page.context().close();
    });
  } else {
    test(name, () => {
      const file = path.join(dir, `example-${path.basename(b.file, '.md')}-${b.line}.mjs`);
      fs.writeFileSync(file, b.code);
      const out = execFileSync(process.execPath, ['--import', './shim.mjs', file], { cwd: dir, encoding: 'utf8' });
      assert.deepEqual(out.split('\n').filter((l) => l !== ''), expected(b.code));
    });
  }
}

/** The commands of the README's ```sh tour blocks, one per line, comments kept (bash drops them). */
function tourBlocks() {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```sh tour\n([\s\S]*?)^```$/gm)].map((m) => m[1].split('\n').filter((l) => l.trim() !== ''));
}

/** Run `line` with bash in `cwd`, the built `rewind` first on PATH; fails with what it printed. */
function sh(line, cwd) {
  const env = { ...process.env, PATH: `${path.dirname(CLI)}:${process.env.PATH}`, NO_COLOR: '1' };
  delete env.REWIND_DB;
  delete env.REWIND_STORE;
  try {
    return execFileSync('bash', ['-c', line], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`\`${line}\` failed (exit ${e.status}):\n${e.stdout}${e.stderr}`);
  }
}

test("the README tour's CLI commands run in a scratch project and do what their comments say", () => {
  const [cli] = tourBlocks();
  assert.ok(cli.length >= 8, 'the CLI tour');
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-tour-'));
  fs.mkdirSync(path.join(project, 'src'));
  const auth = 'fn check(pw: &str) -> bool {\n    md5(pw) == STORED\n}\n';
  fs.writeFileSync(path.join(project, 'src/auth.rs'), auth);
  fs.writeFileSync(path.join(project, 'Cargo.toml'), '[dependencies]\n');
  const state = () => [fs.readFileSync(path.join(project, 'src/auth.rs'), 'utf8'), fs.readFileSync(path.join(project, 'Cargo.toml'), 'utf8')];
  const out = {};
  let agent; // the files once the agent's tools ran
  for (const line of cli) {
    out[line.split(/\s+/).slice(0, 2).join(' ')] = sh(line, project);
    if (line.startsWith('rewind exec')) agent = state();
    if (line.startsWith('rewind apply')) assert.deepEqual(state(), [auth, '[dependencies]\n'], 'apply: as before the prompt');
  }
  assert.deepEqual(agent, [auth.replace('md5', 'bcrypt'), '[dependencies]\nbcrypt = 1\n'], 'what the agent did');
  assert.deepEqual(state(), agent, 'undo: the agent’s work is back');
  assert.match(out['rewind log'], /fix login/);
  assert.match(out['rewind log'], /use bcrypt for passwords/);
  assert.match(out['rewind preview'], /src\/auth\.rs/);
  assert.match(out['rewind preview'], /Cargo\.toml/);
  fs.rmSync(project, { recursive: true });
});

test("the README tour's hook command installs rewind's hooks for Claude Code", () => {
  const [, hooks] = tourBlocks();
  assert.deepEqual(hooks.map((l) => l.split('#')[0].trim()), ['rewind init claude-code']);
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-tour-'));
  sh(hooks[0], project);
  const settings = JSON.parse(fs.readFileSync(path.join(project, '.claude/settings.json'), 'utf8'));
  const commands = Object.values(settings.hooks).flat().flatMap((h) => h.hooks.map((x) => x.command));
  assert.ok(commands.length >= 5, JSON.stringify(settings));
  for (const c of commands) assert.ok(c.endsWith(' hook claude-code') && c.includes('rewind'), c);
  fs.rmSync(project, { recursive: true });
});
