// @ts-check
// What a rewind will do, said before and after: the policies that apply to a diff (the engine's
// own rule, from its conflict values), what each does to each file, and the outcome told file by
// file. Pure: no DOM, no engine calls.

/** @typedef {import('../pkg/web/rewind_wasm.js').RewindDiff} RewindDiff */
/** @typedef {import('../pkg/web/rewind_wasm.js').FileDiff} FileDiff */
/** @typedef {import('../pkg/web/rewind_wasm.js').ApplyOutcome} ApplyOutcome */
/** @typedef {import('../pkg/web/rewind_wasm.js').Policy} Policy */
/** @typedef {'restored' | 're-created' | 'deleted' | 'merged' | 'forced' | 'skipped' | 'blocked'} Fate */

/**
 * The policies that write something for this diff, in the order offered. The engine's rule
 * (core both.rs, files/writes.rs): `merge` and `force` refuse the whole rewind unless every
 * conflict is mergeable (resp. forceable); `skip` always applies; no conflict: `block`.
 * @param {RewindDiff} diff
 * @returns {Policy[]}
 */
export function policies(diff) {
  const unsafe = diff.files.filter((f) => !f.safe);
  if (unsafe.length === 0) return ['block'];
  /** @type {Policy[]} */
  const out = [];
  if (unsafe.every((f) => f.mergeable)) out.push('merge');
  out.push('skip');
  if (unsafe.every((f) => f.forceable)) out.push('force');
  return out;
}

/** @type {Record<string, Fate>} */
const SAFE = { restore: 'restored', create: 're-created', delete: 'deleted' };

/**
 * What `policy` does to file `f` (null: not chosen yet), and that in words.
 * @param {FileDiff} f
 * @param {Policy | null} policy
 * @returns {{ fate: Fate | null, text: string }}
 */
export function fate(f, policy) {
  if (f.safe) {
    const verb = SAFE[f.action ?? 'restore'];
    return { fate: verb, text: `${verb} as it was before the turn` };
  }
  if (policy === null) return { fate: null, text: `conflict: ${choices(f)}` };
  if (policy === 'merge' && f.mergeable) return { fate: 'merged', text: "merged: your change is kept and the agent's change undone" };
  if (policy === 'force' && f.forceable) return { fate: 'forced', text: `${SAFE[f.action ?? 'restore']} as it was before the turn: your change is overwritten (Undo brings it back)` };
  if (policy === 'skip') return { fate: 'skipped', text: "skipped: left as it is now, your change and the agent's change both stay" };
  return { fate: 'blocked', text: `${policy} cannot write it: nothing would be written` };
}

/** @param {FileDiff} f */
function choices(f) {
  const can = [f.mergeable ? 'merged' : null, 'skipped', f.forceable ? 'forced' : null].filter(Boolean);
  return `${f.mergeable ? 'can be merged' : 'cannot be merged'}; it can be ${can.join(' or ')}`;
}

/** @type {Record<Policy, string>} */
export const POLICY_NAME = { merge: 'Merge', skip: 'Skip', force: 'Force', block: 'Restore' };

/**
 * One line per policy choice: what it does to each conflicting file, and to the rest. `read` is a
 * file's text now (null: none), for what a file left as it is would still import.
 * @param {RewindDiff} diff
 * @param {Policy} policy
 * @param {(path: string) => string | null} read
 */
export function describePolicy(diff, policy, read) {
  const unsafe = diff.files.filter((f) => !f.safe);
  const safe = diff.files.length - unsafe.length;
  const gone = deletedBy(diff);
  const each = unsafe.map((f) => {
    const left = fate(f, policy).fate === 'skipped' ? danglingImports(f.path, read(f.path), gone) : [];
    return `${f.path} ${fate(f, policy).text}${left.length ? ` (it would still import ${left.join(', ')}, which this rewind deletes)` : ''}`;
  });
  const rest = safe === 0 ? 'no other file to restore' : `${count(safe, 'other file')} restored as shown`;
  return `${each.join('; ')}; ${rest}.`;
}

/**
 * Every file of an outcome, grouped by what happened to it: "restored a, b; deleted c; skipped d
 * (left as it was)". Empty when no file was named.
 * @param {ApplyOutcome} out
 */
export function filesTold(out) {
  /** @type {Map<string, string[]>} */
  const groups = new Map();
  const add = (/** @type {string} */ what, /** @type {string} */ path) => groups.set(what, [...(groups.get(what) ?? []), path]);
  for (const f of out.restoredFiles) {
    add(f.merged ? 'merged (your change kept)' : f.forced ? `${f.action === 'delete' ? 'deleted' : 'restored'} by force (your change overwritten)` : f.action === 'delete' ? 'deleted' : 'restored', f.path);
  }
  for (const p of out.skippedFiles) add('skipped (left as it was)', p);
  for (const p of out.unchangedFiles) add('already as restored', p);
  // A fixed order (what needs a look first), each group's paths sorted.
  const rank = (/** @type {string} */ what) => ['merged', 'restored by', 'deleted by', 'skipped', 'restored', 'deleted', 'already'].findIndex((w) => what.startsWith(w));
  return [...groups].sort(([a], [b]) => rank(a) - rank(b)).map(([what, list]) => {
    const paths = [...list].sort();
    const [first, ...more] = what.split(' (');
    return `${first} ${paths.join(', ')}${more.length ? ` (${more.join(' (')}` : ''}`;
  }).join('; ');
}

/** The paths a preview's rewind deletes (`diff`) or an outcome's deleted (`restoredFiles`). */
export function deletedBy(/** @type {RewindDiff | ApplyOutcome} */ x) {
  const files = 'files' in x ? x.files.filter((f) => f.safe) : x.restoredFiles;
  return new Set(files.filter((f) => f.action === 'delete').map((f) => f.path));
}

// A relative module specifier after `from`, `import`, `import(` or `require(`: a plain look, not a
// parser, enough for the JS files of a project like the demo's.
const IMPORT = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*['"](\.{1,2}\/[^'"\n]+)['"]/g;

/**
 * The relative imports of JS file `path` (its `text`) that name a path in `gone`, as written
 * ("./welcome.js"); a specifier without an extension also matches `.js`, `.mjs`, `.ts`, `/index.js`.
 * @param {string} path
 * @param {string | null} text
 * @param {Set<string>} gone
 * @returns {string[]}
 */
export function danglingImports(path, text, gone) {
  if (text === null || !/\.(?:[cm]?[jt]sx?)$/.test(path)) return [];
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const found = new Set();
  for (const [, spec] of text.matchAll(IMPORT)) {
    const to = resolve(dir, spec);
    const tries = /\.[^/]+$/.test(to) ? [to] : [to, ...['.js', '.mjs', '.ts', '/index.js'].map((x) => to + x)];
    if (tries.some((t) => gone.has(t))) found.add(spec);
  }
  return [...found];
}

/** `spec` ("./x.js", "../y") from directory `dir` ("src"), as a workspace path; "" above the root. */
function resolve(/** @type {string} */ dir, /** @type {string} */ spec) {
  const parts = dir ? dir.split('/') : [];
  for (const seg of spec.split('/')) {
    if (seg === '..') {
      if (parts.length === 0) return '';
      parts.pop();
    } else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

/**
 * What each skipped file of outcome `out` means now, a sentence each, with what to do next
 * (`next`, said of the file): it was left as it is, with what it still imports that the rewind
 * deleted, or, when nothing is seen, that it may still refer to what the rewind restored or deleted.
 * @param {ApplyOutcome} out
 * @param {(path: string) => string | null} read
 * @param {(path: string) => string} next
 */
export function skippedTold(out, read, next) {
  const gone = deletedBy(out);
  return out.skippedFiles.map((p) => {
    const left = danglingImports(p, read(p), gone);
    const why = left.length ? `it still imports ${left.join(', ')}, which the rewind deleted`
      : 'it may still refer to files the rewind restored or deleted';
    return `${p} was left as it is (your edit and the agent's change both stay): ${why}. ${next(p)}.`;
  }).join(' ');
}

/** "1 file", "2 files". */
export function count(/** @type {number} */ n, /** @type {string} */ noun) {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
