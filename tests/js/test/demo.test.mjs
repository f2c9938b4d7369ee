// The web IDE demo (wasm/demo/) in real headless Chromium, as a person uses it: run the scripted
// agent, edit a file the agent changed, preview a rewind (the conflict is highlighted with the
// person's change beside the agent's), rewind code and conversation with merge, check the file
// and the timeline, reload (the state is still there: it is in IndexedDB), undo, fork. Saves a
// screenshot of the preview: REWIND_DEMO_SCREENSHOT=docs/demo.png regenerates the README's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage } from '../lib/browser.mjs';
import { ROOT } from '../lib/pkg.mjs';

const SHOT = process.env.REWIND_DEMO_SCREENSHOT
  ? path.resolve(ROOT, process.env.REWIND_DEMO_SCREENSHOT)
  : path.join(os.tmpdir(), 'rewind-demo.png');

let chrome;
before(async () => { chrome = await launch(); });
after(async () => { await chrome?.close(); });

const $text = (page, id) => page.textContent(`[data-testid="${id}"]`);
const turns = (page) => page.$$eval('[data-testid="turn"]', (ls) => ls.map((l) => l.querySelector('.text').textContent));
const turnFiles = (page, n) => page.$$eval(`[data-testid="turn"][data-turn="${n}"] [data-testid="turn-file"]`, (ls) => ls.map((l) => l.textContent));
const tree = (page) => page.$$eval('[data-testid="file"]', (ls) => ls.map((l) => l.dataset.path));
const saved = (page) => page.waitForFunction(() => document.querySelector('[data-testid="save-state"]').textContent === 'saved');
async function ready(page) {
  await page.waitForSelector('body[data-ready="true"]');
}

test('the web IDE: agent, edit, preview with the conflict, rewind with merge, reload, undo, fork', async () => {
  const { page, errors } = await newPage(chrome.browser, `${chrome.url}/demo/?step=10`);
  await page.setViewportSize({ width: 1440, height: 900 });
  await ready(page);
  assert.deepEqual(await tree(page), ['notes.txt', 'src/app.js', 'src/greet.js', 'src/math.js']);

  // The agent: three turns (edits; a created and a deleted file; a shell-like bulk change).
  await page.click('[data-testid="run-agent"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="agent-state"]').textContent === 'idle'
    && document.querySelectorAll('[data-testid="turn"]').length === 3);
  await saved(page);
  assert.equal((await turns(page)).length, 3);
  assert.deepEqual(await turnFiles(page, 1), ['Msrc/greet.js+4−0', 'Msrc/app.js+2−1']);
  assert.deepEqual(await turnFiles(page, 2), ['Adocs/usage.md+5−0', 'Dnotes.txt+0−2']);
  assert.deepEqual((await turnFiles(page, 3)).map((f) => f.replace(/\+.*/, '')).sort(), ['$Dsrc/greet.js', '$Asrc/welcome.js', '$Mdocs/usage.md', '$Msrc/app.js'].sort());
  const agentTree = ['docs/usage.md', 'src/app.js', 'src/math.js', 'src/welcome.js'];
  assert.deepEqual(await tree(page), agentTree);

  // The person edits a file the agent changed, and saves it.
  await page.click('[data-testid="file"][data-path="src/app.js"]');
  const agentText = await page.inputValue('[data-testid="editor"]');
  assert.match(agentText, /welcome\(user\)/);
  await page.fill('[data-testid="editor"]', agentText.replace('users`);', 'users in total`);'));
  await page.click('[data-testid="save"]');
  await saved(page);

  // Preview rewinding to before turn 2: the edited file is a conflict, both sides shown.
  await page.click('[data-testid="turn"][data-turn="2"]');
  const conflict = page.locator('[data-testid="diff-file"][data-conflict="true"]');
  await conflict.waitFor();
  assert.equal(await conflict.getAttribute('data-path'), 'src/app.js');
  assert.match(await conflict.locator('[data-testid="conflict-badge"]').textContent(), /mergeable/);
  assert.match(await conflict.locator('[data-testid="person-change"]').textContent(), /\+console\.log\(`\$\{count\} users in total`\);/);
  assert.match(await conflict.locator('[data-testid="agent-change"]').textContent(), /\+ {2}console\.log\(welcome\(user\)\);/);
  // The conflict's colour is its own (not the plain diff's).
  const colours = await page.evaluate(() => {
    const c = document.querySelector('[data-testid="diff-file"][data-conflict="true"]');
    const s = document.querySelector('[data-testid="diff-file"][data-conflict="false"]');
    return [getComputedStyle(c).borderColor, getComputedStyle(s).borderColor];
  });
  assert.notEqual(colours[0], colours[1]);
  assert.deepEqual(await page.$$eval('[data-testid="diff-file"][data-conflict="false"]', (ls) => ls.map((l) => l.dataset.path)),
    ['docs/usage.md', 'notes.txt', 'src/greet.js', 'src/welcome.js']);
  await page.screenshot({ path: SHOT });
  console.log(`screenshot: ${SHOT}`);

  // Rewind code and conversation with merge: the person's line stays, the agent's turns 2-3 go.
  await page.click('[data-testid="rewind-both"]');
  await page.waitForFunction(() => /Rewound code and conversation/.test(document.querySelector('[data-testid="status"]').textContent));
  await saved(page);
  const expected = agentText.replace('users`);', 'users in total`);').replaceAll('welcome', 'greet');
  assert.equal(await page.inputValue('[data-testid="editor"]'), expected);
  assert.match(expected, /farewell\(user\)/, "turn 1's change is kept");
  assert.deepEqual(await turns(page), ['Add a farewell message and print it after each greeting']);
  assert.deepEqual(await tree(page), ['notes.txt', 'src/app.js', 'src/greet.js', 'src/math.js']);

  // Reload: everything is back from IndexedDB.
  await page.reload();
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="editor"]'), expected);
  assert.deepEqual(await turns(page), ['Add a farewell message and print it after each greeting']);
  assert.deepEqual(await tree(page), ['notes.txt', 'src/app.js', 'src/greet.js', 'src/math.js']);
  assert.equal(await $text(page, 'save-state'), 'saved');

  // Undo the rewind of both, whole: the agent's files are back, the person's line still there,
  // and the turns it took off the conversation are on the timeline again.
  await page.click('[data-testid="undo"]');
  await page.waitForFunction(() => /Undone/.test(document.querySelector('[data-testid="status"]').textContent));
  assert.deepEqual(await tree(page), agentTree);
  assert.equal((await turns(page)).length, 3, 'the conversation is back with the files');
  assert.match(await page.inputValue('[data-testid="editor"]'), /welcome\(user\)[\s\S]*users in total/);

  // Fork at turn 1: a second session, selected, which a reload keeps.
  await page.click('[data-testid="turn"][data-turn="1"]');
  await page.click('[data-testid="fork"]');
  await page.waitForFunction(() => /Forked/.test(document.querySelector('[data-testid="status"]').textContent));
  await saved(page);
  await page.reload();
  await ready(page);
  const sessions = await page.$$eval('[data-testid="session-select"] option', (os) => os.map((o) => [o.textContent, o.selected]));
  assert.deepEqual(sessions, [['1. Demo session', false], ['2. Fork', true]]);
  assert.deepEqual(await turns(page), ['Add a farewell message and print it after each greeting']);
  assert.deepEqual(errors, []);
});
