// The diff preview: what `engine.diffFileRewind` says a rewind would write, file by file. A
// conflict (a file the person changed after the agent) is drawn in its own colour with the
// person's change beside the agent's change being undone, and what `merge` would write.

/** An element with a class and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-') || k === 'title') e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

const SIGN = { added: '+', removed: '-', context: ' ' };

/** Hunks as a <pre>: an @@ header, then one coloured line per line. */
function hunks(list) {
  const pre = el('pre', { class: 'hunks' });
  for (const h of list) {
    pre.append(el('span', { class: 'at' }, `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`));
    for (const l of h.lines) pre.append(el('span', { class: l.kind }, `${SIGN[l.kind]}${l.text}`));
  }
  return pre;
}

const ACTION = { restore: 'restore', create: 're-create', delete: 'delete' };

function fileDiff(f) {
  const conflict = !f.safe;
  const head = el('div', { class: 'head' },
    el('span', {}, f.path),
    el('span', { class: 'badge' }, ACTION[f.action] ?? 'unknown'),
    conflict ? el('span', { class: 'badge conflict', 'data-testid': 'conflict-badge' }, f.mergeable ? 'conflict · mergeable' : 'conflict') : null,
    el('span', { class: 'stat' }, `+${f.additions} −${f.deletions}`));
  const box = el('div', { class: `fd${conflict ? ' conflict' : ''}`, 'data-testid': 'diff-file', 'data-path': f.path, 'data-conflict': String(conflict) }, head);
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
      el('div', { class: 'person', 'data-testid': 'person-change' }, el('h3', {}, 'Your change (kept by merge)'), hunks(f.personChange ?? [])),
      el('div', { class: 'agent', 'data-testid': 'agent-change' }, el('h3', {}, "Agent's change (undone)"), hunks(f.agentChange ?? []))));
  }
  if (f.mergeHunks) box.append(el('h3', {}, 'Merge writes'), hunks(f.mergeHunks));
  else box.append(el('h3', {}, 'Force would write'), hunks(f.hunks));
  return box;
}

/** Draw `diff` (a RewindDiff, or null for "nothing selected") into `root`. */
export function renderDiff(root, diff, label) {
  root.replaceChildren();
  if (diff === null) {
    root.append(el('div', { class: 'empty' }, 'Select a prompt in the timeline to see what rewinding to before it would write.'));
    return;
  }
  const conflicts = diff.files.filter((f) => !f.safe).length;
  root.append(el('p', { class: 'summary', 'data-testid': 'diff-summary' },
    `Rewind to before ${label}: ${count(diff.stats.files, 'file')}, +${diff.stats.additions} −${diff.stats.deletions}`,
    conflicts ? ` · ${count(conflicts, 'conflict')}: rewind merges ${conflicts === 1 ? 'it' : 'them'}` : '',
    diff.unchangedFiles.length ? ` · ${diff.unchangedFiles.length} already as restored` : ''));
  if (diff.files.length === 0) root.append(el('div', { class: 'empty' }, 'Nothing to restore: the files already hold what they held then.'));
  // Conflicts first: they are what the person has to look at.
  for (const f of [...diff.files].sort((a, b) => Number(a.safe) - Number(b.safe))) root.append(fileDiff(f));
}

/** "1 file", "2 files". */
export function count(n, noun) {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
