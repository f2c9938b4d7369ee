// The hand-written declarations (wasm/src/types/, committed as wasm/dts/) against what the Rust
// side really reads and writes: every JSON scenario runs through the Engine, every argument it
// accepted and every result it returned is written into a TypeScript file as a literal typed
// with the declared parameter or return type, and strict tsc checks it. A field that Rust
// serialises under a name the .d.ts does not declare is an excess property; a declared required
// field that Rust does not send is a missing one; a `null` where the .d.ts has no `| null` fails
// too. So a renamed or added Rust field fails here, whatever the last build generated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Engine, PKG, ROOT } from '../lib/pkg.mjs';
import { MemWorkspace, utf8 } from '../lib/hosts.mjs';
import { runScenario } from '../lib/scenario.mjs';

/** `engine` with every successful method call recorded as { method, args, result }. */
function recording(engine, calls) {
  return new Proxy(engine, {
    get(target, key) {
      const v = Reflect.get(target, key, target);
      if (typeof v !== 'function' || key === 'constructor' || key === 'free') return v;
      return (...args) => {
        const result = v.apply(target, args);
        calls.push({ method: key, args, result });
        return result;
      };
    },
  });
}

/** The calls of every scenario, plus a tour of the methods the scenarios do not reach. */
function samples() {
  const calls = [];
  const dir = path.join(ROOT, 'tests/scenarios');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const sc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    if (sc.steps.some((s) => s.fault?.op === 'commit')) continue; // needs a store host
    const workspace = new MemWorkspace();
    const engine = recording(Engine.inMemory({ workspace }), calls);
    try {
      runScenario(sc, { engine, workspace });
    } catch {
      // scenarios.test.mjs reports it; the calls made before the failure are samples all the same.
    }
    // Read everything back: the listings and states of every session the scenario made.
    for (const s of engine.listSessions()) {
      engine.resume(s.id);
      engine.activeBranch(s.id);
      engine.checkpoints(s.id);
      engine.operations(s.id);
    }
    engine.stats();
  }
  const workspace = new MemWorkspace();
  const engine = recording(Engine.inMemory({ workspace, keepLog: true }), calls);
  const { id } = engine.createSession();
  const { turnId } = engine.recordPrompt(id, { text: 'tour' });
  engine.recordNotice(id, { text: 'a notice' });
  engine.recordCompaction(id, { text: 'a summary' });
  engine.recordEdit(id, { turnId, path: 'a.txt', before: null, after: utf8('a'), toolName: 'Write' });
  engine.completeTurn(id, { turnId });
  // diffFileRewind: a safe file, then a conflict (the person's change, the agent's, the merge).
  const { turnId: t2, messageId: m2 } = engine.recordPrompt(id, { text: 'diff' });
  workspace.put('b.txt', utf8('1\nTWO\n3\n4\n5\n6\n'));
  engine.recordEdit(id, { turnId: t2, path: 'b.txt', before: utf8('1\n2\n3\n4\n5\n6\n'), after: utf8('1\nTWO\n3\n4\n5\n6\n'), toolName: 'Edit' });
  engine.completeTurn(id, { turnId: t2 });
  engine.diffFileRewind(id, { since: m2 });
  workspace.put('b.txt', utf8('1\nTWO\n3\n4\n5\nSIX\n'));
  engine.diffFileRewind(id, { since: m2, paths: ['b.txt'] });
  engine.recover(id);
  engine.gc();
  engine.gc({ dryRun: true, keep: 1 });
  engine.snapshot();
  engine.committedBatches();
  calls.push({ method: 'diagnostics', args: null, result: engine.diagnostics });
  return calls;
}

/** A value as a TypeScript expression: JSON, with `new Uint8Array(...)` for bytes. */
function literal(v) {
  if (v instanceof Uint8Array) return `new Uint8Array(${v.length})`;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => `${JSON.stringify(k)}: ${literal(x)}`).join(', ')} }`;
  return JSON.stringify(v);
}

/** One sample per shape: ids, hashes, text and numbers do not make a new one; short words
 * (enum values such as `kind` and `status`) do, so every variant seen is checked. */
function shape(v) {
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return [...new Set(v.map((x) => JSON.stringify(shape(x))))].sort();
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  if (typeof v === 'string') return /^[a-zA-Z_-]{1,24}$/.test(v) ? v : 'string';
  return typeof v === 'number' ? 0 : v;
}

test('every argument Rust accepted and every result it returned fits the declared types exactly', () => {
  const calls = samples();
  const methods = Object.getOwnPropertyNames(Engine.prototype).filter((m) => !['constructor', 'free', '__destroy_into_raw'].includes(m));
  const seen = new Set(calls.map((c) => c.method));
  assert.deepEqual(methods.filter((m) => !seen.has(m)), [], 'every Engine method has samples');

  const lines = [`import type { Engine } from ${JSON.stringify(path.join(PKG, 'node/rewind_wasm.js'))};`, ''];
  const keys = new Set();
  calls.forEach(({ method, args, result }, i) => {
    const key = JSON.stringify([method, shape(args), shape(result)]);
    if (keys.has(key)) return;
    keys.add(key);
    if (method === 'diagnostics') {
      lines.push(`const r${i}: Engine['diagnostics'] = ${literal(result)};`);
      return;
    }
    lines.push(`// ${method}`);
    lines.push(`const a${i}: Parameters<Engine[${JSON.stringify(method)}]> = ${literal(args)};`);
    lines.push(`const r${i}: ReturnType<Engine[${JSON.stringify(method)}]> = ${literal(result)};`);
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewind-dts-'));
  fs.writeFileSync(path.join(dir, 'samples.ts'), `${lines.join('\n')}\nexport {};\n`);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, noUnusedLocals: false, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['esnext', 'dom'], types: [], skipLibCheck: true },
    files: ['samples.ts'],
  }));
  try {
    execFileSync(path.join(ROOT, 'tests/js/node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`the Rust values do not fit the declarations (${path.join(dir, 'samples.ts')}):\n${e.stdout}${e.stderr}`);
  }
  fs.rmSync(dir, { recursive: true });
  assert.ok(keys.size > 50, `only ${keys.size} samples`);
});
