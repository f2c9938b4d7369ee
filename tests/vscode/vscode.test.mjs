// The packaged extension in a real VS Code (code-server 4.139.1 = VS Code 1.139.1), in headless
// Chromium: the view lists what the CLI recorded, a diff opens in a diff editor, "rewind both"
// with a conflict offers merge and leaves the right files, undo restores them, and a save made
// while an agent's `rewind exec` runs stays the person's. Screenshots go to docs/vscode-*.png.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { REWIND, ROOT, WAIT, openWorkbench, read, rewind, startCodeServer, until } from './lib.mjs';

const LINES = 'l1\nl2\nl3\nl4\nl5\n';
const BOTH = 'AGENT\nl2\nl3\nl4\nmine\n';
const shot = (name) => path.join(ROOT, `docs/vscode-${name}.png`);

let scratch, ws, server, wb;

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-vscode-'));
  ws = path.join(scratch, 'app');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'a.txt'), LINES);
  fs.writeFileSync(path.join(ws, 'notes.txt'), '# notes\n');
  // What an agent's hooks would record: a prompt, a shell command's effects, a reply.
  rewind(ws, 'session', 'new', '--title', 'fix the greeting');
  const { turnId } = rewind(ws, 'prompt', '--text', 'make line one loud\nand add a file');
  rewind(ws, 'exec', '--turn', turnId, '--', 'sh', '-c', "sed 's/^l1$/AGENT/' a.txt > t && mv t a.txt; echo new > c.txt");
  rewind(ws, 'reply', '--turn', turnId, '--text', 'done');
  rewind(ws, 'turn-end', '--turn', turnId);
  server = await startCodeServer(ws, scratch);
  wb = await openWorkbench(server.url);
});

after(async () => {
  if (wb && process.exitCode) await wb.page.screenshot({ path: path.join(scratch, 'failure.png') }).catch(() => {});
  await wb?.close();
  server?.stop();
  if (!process.exitCode) fs.rmSync(scratch, { recursive: true, force: true });
  else console.log(`kept ${scratch} (code-server.log, failure.png)`);
});

test('the Rewind view lists the session and turn the CLI recorded', async () => {
  await wb.command('Rewind: Focus on Sessions View');
  const view = wb.page.locator('.pane-body .monaco-list-row');
  await view.filter({ hasText: 'fix the greeting' }).first().waitFor({ timeout: WAIT });
  const turn = view.filter({ hasText: '#1 make line one loud' }).first();
  await turn.waitFor({ timeout: WAIT });
  const text = await turn.innerText();
  assert.match(text, /a\.txt \+1 −1/, text);
  assert.match(text, /c\.txt \+1 −0/, text);
  await turn.click();
  await view.filter({ hasText: 'shell' }).first().waitFor({ timeout: WAIT });
});

test("a turn's change opens in VS Code's diff editor", async () => {
  await wb.command("Rewind: Diff This Turn's Change");
  await wb.pick('#1 make line one loud', '#1');
  await wb.pick('a.txt');
  const diff = wb.page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ timeout: WAIT });
  await wb.page.locator('.tab', { hasText: "#1's change" }).first().waitFor({ timeout: WAIT });
  await until('both sides', async () => {
    const t = await diff.innerText();
    return t.includes('AGENT') && t.includes('l1');
  });
  await wb.page.screenshot({ path: shot('diff') });
});

test('the gutter compares a file with before a chosen turn (quick diff)', async () => {
  await wb.command('Rewind: Compare the Gutter With Before This Turn');
  await wb.pick('#1 make line one loud', '#1');
  await wb.command('View: Show Explorer');
  await wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'a.txt' }).first().click();
  // Line 1 (the agent's AGENT, l1 before the turn) is marked modified in the gutter.
  await wb.page.locator('.editor-instance .monaco-editor .dirty-diff-modified').first().waitFor({ timeout: WAIT });
  await wb.command('Rewind: Stop Comparing the Gutter');
});

test("rewind both with a conflict offers merge; merge keeps the person's line; undo restores the files", async () => {
  fs.writeFileSync(path.join(ws, 'a.txt'), BOTH); // the person edits the agent's file
  await wb.command('Rewind: Rewind Both to Here…');
  await wb.pick('#1 make line one loud', '#1');
  const rows = await wb.pickRows('Rewind (merge)');
  const all = rows.join('\n');
  assert.match(all, /a\.txt[\s\S]*conflict: external_modified \(mergeable/, all);
  assert.match(all, /c\.txt[\s\S]*delete/, all);
  assert.doesNotMatch(all, /Rewind \(block\)/, 'block is not offered when a file conflicts');
  await wb.page.screenshot({ path: shot('preview') });
  await wb.pick('Rewind (merge)', 'merge');
  await until('the merge on disk', () => read(ws, 'a.txt') === 'l1\nl2\nl3\nl4\nmine\n' && read(ws, 'c.txt') === null);
  const log = rewind(ws, 'resume');
  assert.equal(log.messages.length, 0, 'the conversation went back to before #1 too');

  await wb.command('Rewind: Undo the Last Rewind');
  await until('the undo on disk', () => read(ws, 'a.txt') === BOTH && read(ws, 'c.txt') === 'new\n');
  // Undo takes back the whole `both`: the files and the conversation, so #1 is on the branch again.
  assert.ok(rewind(ws, 'resume').messages.some((m) => m.kind === 'prompt'), 'the conversation is back');
});

test("the view follows the store live; a save during a running `rewind exec` stays the person's", async () => {
  const { turnId } = rewind(ws, 'prompt', '--text', 'second turn');
  // The view follows the store: the CLI's new prompt shows up with nothing done in the editor
  // (showing the view reads no store; only the watch on .rewind/ reloads it).
  await wb.command('Rewind: Focus on Sessions View');
  const shown = Date.now();
  await wb.page.locator('.pane-body .monaco-list-row', { hasText: '#2 second turn' }).first().waitFor({ timeout: WAIT });
  console.log(`the new turn in the view after ${Date.now() - shown} ms`);
  await wb.command('View: Show Explorer');
  await wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'notes.txt' }).first().click();
  const editor = wb.page.locator('.editor-instance .monaco-editor').first();
  await editor.waitFor({ timeout: WAIT });
  // The person's edit is typed first; the save comes while the agent's command runs (3 s,
  // then it changes a.txt's second line).
  await editor.click();
  await wb.page.keyboard.press('Control+End');
  await wb.page.keyboard.type('my own line\n');
  const exec = spawn(REWIND, ['--workspace', ws, 'exec', '--turn', turnId, '--', 'sh', '-c',
    "sleep 3; sed 's/^l2$/AGENT2/' a.txt > t && mv t a.txt"], { cwd: ws, stdio: 'ignore' });
  const t0 = Date.now();
  const done = new Promise((r) => exec.on('exit', (code) => { console.log(`exec exit at ${Date.now() - t0} ms`); r(code); }));
  await new Promise((r) => setTimeout(r, 500));
  await wb.page.keyboard.press('Control+S');
  await until('the save on disk', () => read(ws, 'notes.txt') === '# notes\nmy own line\n');
  console.log(`saved at ${Date.now() - t0} ms`);
  assert.equal(await done, 0);
  const cps = rewind(ws, 'checkpoints').filter((c) => c.turnId === turnId);
  const save = cps.find((c) => c.kind === 'external');
  const shell = cps.find((c) => c.kind === 'shell');
  assert.ok(save, JSON.stringify(cps));
  assert.deepEqual(save.files.map((f) => f.path), ['notes.txt']);
  assert.deepEqual(shell.files.map((f) => f.path), ['a.txt'], "the agent's checkpoint has only its own file");
  // The view shows the save as the person's, beside the agent's command.
  await wb.command('Rewind: Focus on Sessions View');
  const row = (text) => wb.page.locator('.pane-body .monaco-list-row', { hasText: text }).first();
  await row('#2 second turn').waitFor({ timeout: WAIT });
  await until('the save in the view', async () => (await row('#2 second turn').innerText()).includes('notes.txt (yours)'));
  await row('#2 second turn').click();
  await row('your save').waitFor({ timeout: WAIT });
  await wb.page.screenshot({ path: shot('view') });
  // Rewinding the agent's turn undoes its line and leaves the person's save.
  rewind(ws, 'apply', '--since', '@'); // the new turn (#2: the undo brought #1 back)
  assert.equal(read(ws, 'a.txt'), BOTH);
  assert.equal(read(ws, 'notes.txt'), '# notes\nmy own line\n');
});
