// The JS twin of tests/src/scenario.rs: runs one JSON scenario through the Engine's JS API.
// Call names are Engine method names; `args.sessionId` becomes the first argument; bytes in
// scenario files (strings, {base64}, null) become Uint8Array/null.

import { MemWorkspace, bytesOf } from './hosts.mjs';

const SESSIONLESS = new Set(['createSession', 'listSessions', 'gc', 'stats']);
const NO_OPTIONS = new Set(['activeBranch', 'resume', 'checkpoints', 'operations', 'recover', 'listSessions']);

function substitute(v, vars) {
  if (typeof v === 'string' && v.startsWith('$')) {
    // `$name`, or `$name[from:to]`: part of a saved string (an id typed the way people do).
    const m = /^\$(\w+)(?:\[(\d*):(\d*)\])?$/.exec(v);
    const name = m ? m[1] : v.slice(1);
    if (!(name in vars)) throw new Error(`variable ${v} is not set`);
    if (!m || m[2] === undefined) return vars[name];
    const text = vars[name];
    return text.slice(m[2] === '' ? 0 : Number(m[2]), m[3] === '' ? text.length : Number(m[3]));
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, vars)]));
  return v;
}

function pick(v, path) {
  return path.split('.').reduce((acc, key) => (acc === undefined || acc === null ? undefined : acc[Array.isArray(acc) ? Number(key) : key]), v);
}

/** `actual` contains `expected`: listed keys match, arrays match element-wise. */
export function contains(actual, expected, at = 'result') {
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    if (!actual || typeof actual !== 'object') throw new Error(`${at}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [k, ev] of Object.entries(expected)) contains(actual[k] ?? null, ev, `${at}.${k}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      throw new Error(`${at}: expected ${expected.length} items, got ${JSON.stringify(actual)}`);
    }
    expected.forEach((ev, i) => contains(actual[i], ev, `${at}.${i}`));
    return;
  }
  if (actual !== expected) throw new Error(`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const same = (a, b) => (a === null || b === null ? a === b : Buffer.from(a).equals(Buffer.from(b)));
const show = (b) => (b === null ? '<absent>' : JSON.stringify(Buffer.from(b).toString('utf8')));

function checkFiles(ws, files, what) {
  for (const [path, want] of Object.entries(files ?? {})) {
    const have = ws.get(path);
    const w = bytesOf(want);
    if (!same(have, w)) throw new Error(`${what}: ${path} holds ${show(have)}, expected ${show(w)}`);
  }
}

/**
 * Run a scenario. `hosts` = { engine, workspace, store? } where workspace is a MemWorkspace and
 * store (optional) a MemStoreHost for commit faults. Returns nothing; throws on the first failure.
 */
export function runScenario(sc, { engine, workspace, store }) {
  for (const [p, v] of Object.entries(sc.workspace ?? {})) if (v !== null) workspace.put(p, bytesOf(v));
  const vars = {};
  sc.steps.forEach((step, i) => {
    const here = (m) => new Error(`${sc.name}: step ${i + 1} (${step.call ?? '-'}): ${m}`);
    // The order of tests/src/steps.rs: a file replaced by a folder is a delete, then a mkdir.
    for (const p of step.userRemoveTree ?? []) workspace.removeTree(p);
    for (const p of step.userDelete ?? []) workspace.delete(p);
    for (const p of step.userRmdir ?? []) workspace.removeDir(p);
    for (const p of step.userMkdir ?? []) workspace.mkdir(p);
    for (const [p, v] of Object.entries(step.userWrite ?? {})) workspace.put(p, bytesOf(v) ?? new Uint8Array());
    for (const [p, mode] of Object.entries(step.userChmod ?? {})) workspace.setMode(p, mode);
    for (const p of step.ignorePaths ?? []) workspace.ignore(p);
    if (step.fault) {
      if (step.fault.op === 'commit') {
        if (!store) throw here('commit faults need a JS store host');
        store.faults.arm(step.fault);
      } else {
        workspace.faults.arm(step.fault);
      }
    }
    if (step.clearFaults) {
      workspace.faults.clear();
      store?.faults.clear();
    }
    try {
      checkFiles(workspace, step.expectWorkspace, 'workspace');
      for (const [p, want] of Object.entries(step.expectModes ?? {})) {
        const have = workspace.mode(p);
        if (have !== null && have !== want) throw new Error(`${p} has mode ${have.toString(8)}, expected ${want.toString(8)}`);
      }
      for (const [p, want] of Object.entries(step.expectDirs ?? {})) {
        const have = workspace.dirs.has(p);
        if (have !== want) throw new Error(`${p} is ${have ? '' : 'not '}a directory, expected ${want ? '' : 'not '}a directory`);
      }
    } catch (e) {
      throw here(e.message);
    }
    if (!step.call) return;
    const args = { ...substitute(step.args ?? {}, vars) };
    if (step.call === 'recordEdit') {
      // A side missing from the scenario stays missing: the engine must refuse it (only null
      // means "absent").
      if ('before' in args) args.before = bytesOf(args.before);
      if ('after' in args) args.after = bytesOf(args.after);
      if (step.toolWrites !== false && 'after' in args && typeof args.path === 'string' && !args.path.startsWith('/') && !args.path.includes('..')) {
        if (args.after === null) workspace.delete(args.path);
        else workspace.put(args.path, args.after);
      }
    }
    const method = engine[step.call];
    let call;
    if (step.call === 'replayLog') {
      // Engine.fromLog into a fresh in-memory engine; the same result shape as tests/src/call.rs.
      const { batches, ...rest } = args;
      call = () => {
        const e = engine.constructor.fromLog(batches.map(bytesOf), { workspace: new MemWorkspace(), ...rest });
        return { diagnostics: e.diagnostics, sessions: e.listSessions().map((s) => s.id) };
      };
    } else if (typeof method !== 'function') {
      throw here(`Engine has no method ${step.call}`);
    } else if (SESSIONLESS.has(step.call)) {
      call = ['listSessions', 'stats'].includes(step.call) ? () => method.call(engine) : () => method.call(engine, args);
    } else {
      const { sessionId, ...rest } = args;
      call = NO_OPTIONS.has(step.call) ? () => method.call(engine, sessionId) : () => method.call(engine, sessionId, rest);
    }
    let value;
    try {
      value = call();
    } catch (e) {
      if (!(e instanceof Error) || typeof e.code !== 'string') throw here(`threw a non-RewindError: ${e}`);
      if (step.expectError === e.code) return;
      if (step.expectError) throw here(`expected error ${step.expectError}, got ${e.code} (${e.message})`);
      throw here(`failed with ${e.code}: ${e.message}`);
    }
    if (step.expectError) throw here(`expected error ${step.expectError}, got ${JSON.stringify(value)}`);
    if (step.expect !== undefined && step.expect !== null) {
      try {
        contains(value, substitute(step.expect, vars));
      } catch (e) {
        throw here(`${e.message}\nfull result: ${JSON.stringify(value)}`);
      }
    }
    for (const [name, path] of Object.entries(step.save ?? {})) {
      const v = pick(value, path);
      if (v === undefined) throw here(`result has no ${path}: ${JSON.stringify(value)}`);
      vars[name] = v;
    }
  });
  checkFiles(workspace, sc.workspaceAfter, `${sc.name}: workspace after`);
}
