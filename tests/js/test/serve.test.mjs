// `rewind serve` from Node with nothing but node:child_process (stdio) and fetch (HTTP): a
// whole session over stdio (record with base64 bytes, a preview with a conflict, a merge,
// undo, fork) and the same protocol as POST /rpc with the token the server generated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const targetDir = () => execFileSync('bash', [path.join(ROOT, 'scripts/target-dir')], { encoding: 'utf8' }).trim();
const CLI = process.env.REWIND_CLI ?? path.join(targetDir(), 'debug/rewind');
if (!fs.existsSync(CLI)) throw new Error(`no rewind CLI at ${CLI}: run scripts/build-node --cli`);

const b64 = (s) => Buffer.from(s).toString('base64');
const env = () => {
  const e = { ...process.env };
  delete e.REWIND_DB;
  delete e.REWIND_SERVE_TOKEN;
  return e;
};

/** A `rewind serve --stdio` process: `call(method, ...params)` resolves with the result or
 * rejects with an Error whose `code` is the stable rewind code. */
class StdioClient {
  constructor(cwd) {
    this.child = spawn(CLI, ['serve', '--stdio'], { cwd, env: env(), stdio: ['pipe', 'pipe', 'inherit'] });
    this.waiting = [];
    this.nextId = 0;
    createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()(JSON.parse(line)));
    this.exited = new Promise((resolve) => this.child.on('close', resolve));
  }
  line(text) {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(text + '\n');
    });
  }
  async call(method, ...params) {
    const reply = await this.line(JSON.stringify({ jsonrpc: '2.0', id: ++this.nextId, method, params }));
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.data.code });
    return reply.result;
  }
  close() {
    this.child.stdin.end();
    return this.exited;
  }
}

test('a whole session over stdio: record, preview a conflict, merge, undo, fork', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-serve-'));
  const file = path.join(dir, 'a.txt');
  const [before, after] = ['one\ntwo\nthree\n', 'one\nTWO\nthree\n'];
  fs.writeFileSync(file, before);
  const rw = new StdioClient(dir);
  const { id } = await rw.call('createSession', { title: 'node' });
  const p = await rw.call('recordPrompt', id, { text: 'shout line two' });
  fs.writeFileSync(file, after);
  await rw.call('recordEdit', id, { turnId: p.turnId, path: 'a.txt', toolName: 'Edit', before: b64(before), after: b64(after) });
  await rw.call('completeTurn', id, { turnId: p.turnId });

  fs.writeFileSync(file, after + 'four\n');
  const since = { since: p.messageId };
  const preview = await rw.call('previewFileRewind', id, since);
  assert.equal(preview.canApply, false);
  assert.deepEqual(preview.unsafeFiles.map((u) => [u.path, u.mergeable]), [['a.txt', true]]);
  const merged = await rw.call('applyFileRewind', id, { ...since, policy: 'merge' });
  assert.equal(merged.applied, true);
  assert.equal(fs.readFileSync(file, 'utf8'), before + 'four\n');
  await rw.call('undo', id, { operationId: merged.operationId });
  assert.equal(fs.readFileSync(file, 'utf8'), after + 'four\n');
  const fork = await rw.call('fork', id, { at: p.messageId });
  assert.equal((await rw.call('listSessions')).length, 2);
  assert.equal(fork.replayed, false);

  await assert.rejects(rw.call('resume', 'ses_00000000000000000000000000000000'), { code: 'not_found' });
  const bad = await rw.line('not json');
  assert.equal(bad.error.code, -32700);
  assert.equal((await rw.call('resume', fork.childId)).session.id, fork.childId);
  assert.equal(await rw.close(), 0);
});

test('POST /rpc with the generated token and JSON, GET /health without', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-serve-'));
  const server = spawn(CLI, ['serve', '--http', '127.0.0.1:0', '--root', dir], {
    env: env(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => server.on('close', resolve));
  // Three start lines: the address, the roots, the token (and where it is kept).
  const lines = [];
  await new Promise((resolve) => {
    const rl = createInterface({ input: server.stderr });
    rl.on('line', (line) => {
      if (lines.push(line) === 3) resolve();
    });
  });
  const base = lines[0].replace('rewind serve: listening on ', '');
  const token = fs.readFileSync(path.join(dir, '.rewind/serve-token'), 'utf8').trim();
  assert.ok(lines[2].includes(`Authorization: Bearer ${token}`), lines[2]);
  assert.equal(fs.statSync(path.join(dir, '.rewind/serve-token')).mode & 0o777, 0o600);
  try {
    assert.deepEqual(await (await fetch(`${base}/health`)).json(), { status: 'ok' });
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'createSession', params: [{ title: 'http' }] },
      { jsonrpc: '2.0', id: 2, method: 'listSessions', params: [] },
    ]);
    const json = { 'Content-Type': 'application/json' };
    // Refusals are JSON-RPC error objects with the stable code: no token, a text body.
    const noToken = await fetch(`${base}/rpc`, { method: 'POST', body, headers: json });
    assert.equal(noToken.status, 401);
    assert.equal((await noToken.json()).error.data.code, 'untrusted');
    const auth = { Authorization: `Bearer ${token}` };
    const text = await fetch(`${base}/rpc`, { method: 'POST', body, headers: auth });
    assert.equal(text.status, 415);
    assert.equal((await text.json()).error.data.code, 'invalid_input');
    const res = await fetch(`${base}/rpc`, { method: 'POST', body, headers: { ...auth, ...json } });
    const [created, listed] = await res.json();
    assert.equal(listed.result[0].id, created.result.id);
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
});
