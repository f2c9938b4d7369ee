// scripts/demo-web on a port something already listens on: one line saying so and what to do,
// exit 1, no stack trace, nothing built; and the same from the server itself when the port is
// taken after the script's check (node would print a raw EADDRINUSE stack).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from '../lib/pkg.mjs';

/** A listener on a free loopback port: { port, close() }. */
async function busy() {
  const server = net.createServer();
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, close: () => new Promise((ok) => server.close(ok)) };
}

/** @param {string} cmd @param {string[]} args */
async function run(cmd, args) {
  // spawnSync would block the listener's event loop: the child's connect still succeeds (the
  // kernel accepts into the backlog), which is all the check needs.
  return spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

test('demo-web on a busy port: one line with the way out', async () => {
  const taken = await busy();
  try {
    const want = `demo-web: port ${taken.port} on 127.0.0.1 is already in use (another server, or a demo-web still running): `
      + `choose another with scripts/demo-web ${taken.port + 1} or PORT=${taken.port + 1} scripts/demo-web\n`;
    for (const [cmd, args] of [['bash', ['scripts/demo-web', String(taken.port)]], ['node', [path.join('wasm', 'demo', 'serve.mjs'), String(taken.port)]]]) {
      const out = await run(cmd, args);
      assert.equal(out.status, 1, `${cmd} ${args}: ${out.stderr}`);
      assert.equal(out.stderr, want, `${cmd} ${args}`);
      assert.equal(out.stdout, '');
    }
  } finally {
    await taken.close();
  }
});
