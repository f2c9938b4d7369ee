// The web entry in the browser's web-worker extension host (code-server with the extension
// forced to kind "web"): the wasm engine loads the store a wasm host saved in the workspace,
// the view lists its session and turn, and a turn's change opens in the diff editor.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, WAIT, openWorkbench, startCodeServer, until } from './lib.mjs';

const { Engine } = createRequire(import.meta.url)(path.join(ROOT, 'wasm/pkg/node/rewind_wasm.js'));
let scratch, ws, server, wb;

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-vscode-web-'));
  ws = path.join(scratch, 'app');
  fs.mkdirSync(path.join(ws, '.rewind'), { recursive: true });
  // A wasm host records a turn over the real files and saves its store as a snapshot.
  const enc = (t) => new TextEncoder().encode(t);
  const workspace = {
    read: (p) => (fs.existsSync(path.join(ws, p)) ? new Uint8Array(fs.readFileSync(path.join(ws, p))) : null),
    write: (p, b) => fs.writeFileSync(path.join(ws, p), b),
    remove: (p) => fs.rmSync(path.join(ws, p)),
  };
  const engine = Engine.inMemory({ workspace });
  const { id } = engine.createSession({ title: 'web session' });
  const { turnId } = engine.recordPrompt(id, { text: 'greet the web\nin detail' });
  fs.writeFileSync(path.join(ws, 'page.txt'), 'hello web\n');
  engine.recordEdit(id, { turnId, path: 'page.txt', toolName: 'Edit', before: enc('hello\n'), after: enc('hello web\n') });
  fs.writeFileSync(path.join(ws, '.rewind/rewind.snapshot'), engine.snapshot());
  server = await startCodeServer(ws, scratch, { 'remote.extensionKind': { 'rewind.rewind-vscode': ['web'] } });
  wb = await openWorkbench(server.url);
});

after(async () => {
  if (wb && process.exitCode) await wb.page.screenshot({ path: path.join(scratch, 'failure.png') }).catch(() => {});
  await wb?.close();
  server?.stop();
  if (!process.exitCode) fs.rmSync(scratch, { recursive: true, force: true });
  else console.log(`kept ${scratch}`);
});

test('the web extension runs in the browser host, lists the wasm store and diffs a turn', async () => {
  await wb.page.locator('.statusbar-item', { hasText: 'Rewind (web, read-only)' }).first().waitFor({ timeout: WAIT });
  await wb.command('Rewind: Focus on Sessions View');
  const turn = wb.page.locator('.pane-body .monaco-list-row', { hasText: '#1 greet the web' }).first();
  await turn.waitFor({ timeout: WAIT });
  assert.match(await turn.innerText(), /page\.txt \+1 −1/);
  await wb.command("Rewind: Diff This Turn's Change");
  await wb.pick('#1 greet the web', '#1');
  const diff = wb.page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ timeout: WAIT });
  await wb.page.locator('.tab', { hasText: "#1's change" }).first().waitFor({ timeout: WAIT });
  await until('both sides', async () => {
    const text = (await diff.innerText()).replace(/\u00a0/g, ' '); // the editor renders spaces as nbsp
    return text.includes('hello web') && text.split('hello').length >= 3; // before and after
  });
  await wb.page.screenshot({ path: path.join(ROOT, 'docs/vscode-web.png') });
});
