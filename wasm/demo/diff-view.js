// @ts-check
// The diff preview: what `engine.diffFileRewind` says a rewind would write, file by file, and
// what the chosen policy does to each (plan.js). A conflict (a file the person changed after the
// agent) is drawn in its own colour with the person's change beside the agent's change being
// undone, and what the chosen policy writes there (or, before a choice, what each one would).
import { count, danglingImports, deletedBy, fate } from './plan.js';

/** @typedef {import('./plan.js').RewindDiff} RewindDiff */
/** @typedef {import('./plan.js').FileDiff} FileDiff */
/** @typedef {import('./plan.js').Policy} Policy */
/** @typedef {import('../pkg/web/rewind_wasm.js').DiffHunk} DiffHunk */
/** @typedef {Node | string | null | undefined} Child */

/**
 * An element with a class and children (strings become text; null and undefined are left out).
 * @param {string} tag
 * @param {Record<string, unknown>} attrs
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = String(v);
    else if (k.startsWith('data-') || k === 'title' || k === 'for') e.setAttribute(k, String(v));
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (e))[k] = v;
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

const SIGN = { added: '+', removed: '-', context: ' ' };

/** Hunks as a <pre>: a hunk header, then one coloured line per line. */
function hunks(/** @type {DiffHunk[]} */ list) {
  const pre = el('pre', { class: 'hunks' });
  for (const h of list) {
    pre.append(el('span', { class: 'at' }, `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`));
    for (const l of h.lines) pre.append(el('span', { class: l.kind }, `${SIGN[l.kind]}${l.text}`));
  }
  return pre;
}

/** What the person's own change becomes under each policy (the heading over it). */
const PERSON = { merge: 'Your change (kept by merge)', skip: 'Your change (kept: skip leaves the file)', force: 'Your change (overwritten by force)', block: 'Your change' };

/** @param {FileDiff} f @param {Policy | null} policy @param {string[]} dangling what it would still import that the rewind deletes */
function fileDiff(f, policy, dangling) {
  const conflict = !f.safe;
  const told = fate(f, policy);
  const head = el('div', { class: 'head' },
    el('span', { class: 'path' }, f.path),
    conflict ? el('span', { class: 'badge conflict', 'data-testid': 'conflict-badge' }, f.mergeable ? 'conflict · mergeable' : 'conflict · cannot be merged') : null,
    el('span', { class: 'stat' }, `+${f.additions} −${f.deletions}`));
  const box = el('div', { class: `fd${conflict ? ' conflict' : ''}`, 'data-testid': 'diff-file', 'data-path': f.path, 'data-conflict': String(conflict), 'data-fate': told.fate ?? 'undecided' },
    head, el('div', { class: `fate${told.fate ? ` ${told.fate}` : ''}`, 'data-testid': 'fate' }, told.text));
  if (f.binary || f.large) {
    box.append(el('div', { class: 'note' }, f.binary ? 'binary file: no line diff' : 'over 1 MiB: no line diff'));
    return box;
  }
  if (!conflict) {
    box.append(hunks(f.hunks));
    return box;
  }
  box.append(el('div', { class: 'note' }, f.message ?? 'changed since the agent'));
  if (f.personChange || f.agentChange) {
    box.append(el('div', { class: 'sides' },
      el('div', { class: 'person', 'data-testid': 'person-change' }, el('h3', {}, PERSON[policy ?? 'block']), hunks(f.personChange ?? [])),
      el('div', { class: 'agent', 'data-testid': 'agent-change' }, el('h3', {}, policy === 'skip' ? "Agent's change (stays: skipped)" : "Agent's change (undone)"), hunks(f.agentChange ?? []))));
  }
  // What is written: the chosen policy's bytes, or before a choice each option's.
  const merge = f.mergeHunks && (policy === null || policy === 'merge');
  const force = f.forceable && (policy === null || policy === 'force');
  if (merge) box.append(el('h3', {}, policy ? 'Merge writes' : 'Merge would write'), hunks(f.mergeHunks ?? []));
  if (force) box.append(el('h3', {}, policy ? 'Force writes' : 'Force would write'), hunks(f.hunks));
  if (policy === 'skip') box.append(el('h3', {}, 'Skip writes nothing here'));
  if (told.fate === 'skipped' && dangling.length) {
    box.append(el('div', { class: 'note warn', 'data-testid': 'kept-warning' },
      `Left as it is, ${f.path} still imports ${dangling.join(', ')}, which this rewind deletes: choose Force, or edit it after.`));
  }
  return box;
}

/**
 * Draw `diff` (a RewindDiff, or null for "nothing selected") into `root`, as `policy` (null: not
 * chosen yet) would write it.
 * @param {HTMLElement} root
 * @param {RewindDiff | null} diff
 * @param {string} label
 * @param {Policy | null} policy
 * @param {(path: string) => string | null} read  a file's text now (null: none)
 */
export function renderDiff(root, diff, label, policy, read) {
  root.replaceChildren();
  if (diff === null) {
    root.append(el('div', { class: 'empty' }, 'Select a prompt in the timeline to see what rewinding to before it would write.'));
    return;
  }
  const unsafe = diff.files.filter((f) => !f.safe);
  const mergeable = unsafe.filter((f) => f.mergeable).length;
  const conflicts = unsafe.length === 0 ? ''
    : ` · ${count(unsafe.length, 'conflict')} (${mergeable === unsafe.length ? 'mergeable' : mergeable === 0 ? 'cannot be merged' : `${mergeable} mergeable`})${policy ? `: ${policy} chosen` : ': choose what to do below'}`;
  root.append(el('p', { class: 'summary', 'data-testid': 'diff-summary' },
    `Rewind to before ${label}: ${count(diff.stats.files, 'file')}, +${diff.stats.additions} −${diff.stats.deletions}`,
    conflicts,
    diff.unchangedFiles.length ? ` · ${diff.unchangedFiles.length} already as restored` : ''));
  if (diff.files.length === 0) root.append(el('div', { class: 'empty' }, 'Nothing to restore: the files already hold what they held then.'));
  // Conflicts first: they are what the person has to look at.
  const gone = deletedBy(diff);
  for (const f of [...diff.files].sort((a, b) => Number(a.safe) - Number(b.safe))) {
    root.append(fileDiff(f, policy, f.safe ? [] : danglingImports(f.path, read(f.path), gone)));
  }
}
