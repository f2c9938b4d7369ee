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
 * One line per policy choice: what it does to each conflicting file, and to the rest.
 * @param {RewindDiff} diff
 * @param {Policy} policy
 */
export function describePolicy(diff, policy) {
  const unsafe = diff.files.filter((f) => !f.safe);
  const safe = diff.files.length - unsafe.length;
  const each = unsafe.map((f) => `${f.path} ${fate(f, policy).text}`);
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

/** "1 file", "2 files". */
export function count(/** @type {number} */ n, /** @type {string} */ noun) {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
