// The durable Node package (scripts/build-node writes node/pkg/) and the `rewind` CLI it shares
// a store with (built by `scripts/build-node --cli` or the native tests), both found where cargo
// put them.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Not from pkg.mjs: that one loads the wasm package, which these tests do not need.
export const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../../..');

export const NODE_PKG = path.join(ROOT, 'node/pkg');
const require = createRequire(import.meta.url);
export const { Engine, methods } = require(NODE_PKG);

const targetDir = () => execFileSync('bash', [path.join(ROOT, 'scripts/target-dir')], { encoding: 'utf8' }).trim();
export const CLI = process.env.REWIND_CLI ?? path.join(targetDir(), 'debug/rewind');
if (!fs.existsSync(CLI)) throw new Error(`no rewind CLI at ${CLI}: run scripts/build-node --cli`);

/** A fresh workspace directory. */
export function tempWorkspace() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-node-'));
}

/** Run the CLI with --json in `dir`; its parsed output (throws with stderr on failure). */
export function cli(dir, ...args) {
  const out = execFileSync(CLI, ['--json', '--color', 'never', '--workspace', dir, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out);
}

/** Run a process to its end; resolves with its exit code, stdout and stderr. */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
