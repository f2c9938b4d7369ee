// @ts-check
// The web IDE demo: a file tree, an editor, a scripted agent, a timeline of every turn with its
// state, the diff a rewind would write (conflicts beside the person's change), the policy for a
// conflict chosen by the person, rewind code / conversation / both, undo and fork; every status
// line told from the engine's outcome. Everything lives in the browser store
// (rewind-wasm/persist): the engine's records and the workspace files are in IndexedDB, so a
// reload brings the whole state back; only the UI's own state (session, open file, the prompts
// it has shown, turns.js) is in localStorage.
import { openBrowserEngine, deleteBrowserEngine } from '../pkg/web/persist.js';
import { runAgent, seed } from './agent.js';
import { el, renderDiff } from './diff-view.js';
import { count, describePolicy, filesTold, policies, POLICY_NAME, skippedTold } from './plan.js';
import { allTurns } from './turns.js';

/** @typedef {import('./plan.js').Policy} Policy */
/** @typedef {import('./plan.js').RewindDiff} RewindDiff */
/** @typedef {import('./turns.js').Turn} Turn */

const params = new URLSearchParams(location.search);
const STORE = params.get('store') ?? 'demo';
const PREFS = `rewind-demo:${STORE}`;
const STEP_MS = Number(params.get('step') ?? 90);
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const editor = /** @type {HTMLTextAreaElement} */ ($('editor'));
const button = (/** @type {string} */ id) => /** @type {HTMLButtonElement} */ ($(id));
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

const store = await openBrowserEngine({ name: STORE });
const { engine, workspace } = store;
if (store.created) {
  seed(workspace);
  engine.createSession({ title: 'Demo session' });
  await store.flush();
}

const prefs = JSON.parse(localStorage.getItem(PREFS) ?? '{}');
const ui = {
  session: engine.listSessions().some((s) => s.id === prefs.session) ? prefs.session : engine.listSessions()[0].id,
  /** @type {string} */
  file: prefs.file ?? 'src/app.js',
  /** @type {string | null} the prompt message id whose "rewind to before it" is previewed */
  selected: null,
  /** @type {Policy | null} the person's choice for the previewed rewind's conflicts */
  policy: null,
  /** @type {number | null} the previewed turn's number */
  selectedN: null,
  dirty: false, // the editor holds unsaved text
  flushing: false, // a flush to IndexedDB is under way
  busy: false,
};
const savePrefs = () => localStorage.setItem(PREFS, JSON.stringify({ session: ui.session, file: ui.file }));
const turnsKey = () => `${PREFS}:turns:${ui.session}`;

/** The header's save state: the editor's unsaved text first, then the store's. */
function renderSaveState() {
  const [text, cls, title] = ui.dirty ? ['unsaved edit', 'pill busy', `${ui.file} has an edit not saved yet: Save (Ctrl+S) keeps it`]
    : ui.flushing ? ['saving…', 'pill busy', 'Writing to IndexedDB']
      : ['saved', 'pill saved', 'Everything is in IndexedDB'];
  Object.assign($('save-state'), { textContent: text, className: cls, title });
}

/** Flush the store, showing whether everything is durable yet. */
async function persist() {
  ui.flushing = true;
  renderSaveState();
  try {
    await store.flush();
  } finally {
    ui.flushing = false;
    renderSaveState();
  }
}

/** @typedef {{ text: string, warning?: string }} Told what an action did, and what needs a look after it */

/** The status line: what happened, then (drawn as a warning) what needs a look. */
function status(/** @type {string | Told} */ told, error = false) {
  const { text, warning } = typeof told === 'string' ? { text: told } : told;
  $('status').replaceChildren(text, ...(warning ? [' ', el('span', { class: 'warn', 'data-testid': 'status-warning' }, warning)] : []));
  $('status').className = `status${error ? ' error' : ''}`;
}

// ---- rendering -------------------------------------------------------------------------------

function renderSessions() {
  $('session-select').replaceChildren(...engine.listSessions().map((s, i) =>
    el('option', { value: s.id, selected: s.id === ui.session }, `${i + 1}. ${s.kind === 'fork' ? 'Fork' : s.title}`)));
}

function renderTree(/** @type {Set<string>} */ conflicts) {
  const tree = $('tree');
  tree.replaceChildren();
  let dir = null;
  for (const path of workspace.paths()) {
    const d = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    if (d !== dir) {
      dir = d;
      if (d) tree.append(el('div', { class: 'dir' }, `▾ ${d}/`));
    }
    const name = path.slice(d ? d.length + 1 : 0);
    const b = el('button', { class: `file${path === ui.file ? ' active' : ''}${conflicts.has(path) ? ' conflict' : ''}`, 'data-testid': 'file', 'data-path': path, title: conflicts.has(path) ? `${path}: changed since the agent` : path }, `${d ? '  ' : ''}${name}`);
    b.onclick = () => openFile(path);
    tree.append(b);
  }
}

function renderEditor() {
  const text = workspace.readText(ui.file);
  $('editor-path').textContent = text === null ? `${ui.file} (deleted)` : ui.file;
  editor.disabled = text === null;
  if (!ui.dirty) editor.value = text ?? '';
  $('editor-dirty').hidden = !ui.dirty;
  disable(button('save'), ui.dirty ? null : 'Nothing to save: the editor holds the file as it is');
  renderSaveState();
}

/** The files a turn changed, with the engine's line counts for undoing each. */
function turnFiles(/** @type {string} */ turnId) {
  /** @type {Map<string, { path: string, kind: string, created: boolean, deleted: boolean, undone: boolean }>} */
  const byPath = new Map();
  for (const c of engine.checkpoints(ui.session).filter((c) => c.turnId === turnId)) {
    for (const f of c.files) {
      const was = byPath.get(f.path);
      byPath.set(f.path, { path: f.path, kind: c.kind, created: (was?.created ?? f.before === 'missing'), deleted: f.after === 'missing', undone: f.undone });
    }
  }
  return [...byPath.values()].map((f) => {
    try {
      const { stats } = engine.previewFileRewind(ui.session, { turn: turnId, paths: [f.path], includeExternal: f.kind === 'external' });
      return { ...f, additions: `+${stats.additions}`, deletions: `−${stats.deletions}` };
    } catch {
      return { ...f, additions: '', deletions: '' }; // the engine gives no count for it: none shown
    }
  });
}

function renderTimeline(/** @type {Turn[]} */ list) {
  const ol = $('timeline');
  ol.replaceChildren();
  if (list.length === 0) ol.append(el('li', { class: 'none', 'data-testid': 'timeline-empty' }, 'No prompts yet: press Run agent.'));
  for (const p of list) {
    const li = el('li', { class: `${p.state}${p.id === ui.selected ? ' selected' : ''}${p.onBranch ? '' : ' off'}`, 'data-testid': 'turn', 'data-turn': String(p.n), 'data-message': p.id, 'data-state': p.state, 'data-on-branch': String(p.onBranch), title: p.onBranch ? 'Preview a rewind to before this turn' : 'Out of the conversation: no rewind to before it' },
      el('div', {}, el('span', { class: 'num' }, `#${p.n}`), el('span', { class: 'text' }, p.text)),
      el('div', { class: `state ${p.state}`, 'data-testid': 'turn-state' }, p.says),
      p.reply ? el('div', { class: 'reply' }, p.reply) : null,
      el('ul', {}, turnFiles(p.turnId).map((f) => el('li', { 'data-testid': 'turn-file', 'data-path': f.path, class: f.undone ? 'undone' : '', title: f.undone ? `${f.path}: this change is undone` : f.path },
        el('span', { class: 'kind', title: f.kind }, `${f.kind === 'shell' ? '$' : f.kind === 'external' ? 'you ' : ''}${f.created ? 'A' : f.deleted ? 'D' : 'M'}`),
        el('span', {}, f.path),
        el('span', { class: 'plus' }, f.additions),
        el('span', { class: 'minus' }, f.deletions)))));
    if (p.onBranch) li.onclick = () => select(p.id);
    ol.append(li);
  }
}

/** The policy choice: shown when the previewed rewind has a conflict, one choice per policy that applies. */
function renderPolicy(/** @type {RewindDiff | null} */ diff) {
  const offered = diff ? policies(diff) : [];
  if (ui.policy && !offered.includes(ui.policy)) ui.policy = null;
  if (offered.length === 1) ui.policy = offered[0]; // nothing to choose
  const box = /** @type {HTMLFieldSetElement} */ ($('policy'));
  box.hidden = !diff || offered[0] === 'block';
  box.disabled = ui.busy;
  if (!diff || box.hidden) {
    $('policy-choices').replaceChildren();
    return;
  }
  $('policy-choices').replaceChildren(...offered.map((p) => {
    const input = el('input', { type: 'radio', name: 'policy', value: p, checked: p === ui.policy, 'data-testid': `policy-${p}` });
    input.onchange = () => { ui.policy = p; render(); };
    return el('label', { class: 'choice', 'data-testid': 'policy-choice', 'data-policy': p }, input,
      el('span', {}, el('b', {}, POLICY_NAME[p]), ' — ', describePolicy(diff, p, read)));
  }));
}

/** Disable `b` with `why` as its title, or enable it (null). */
function disable(/** @type {HTMLButtonElement} */ b, /** @type {string | null} */ why) {
  b.disabled = why !== null;
  b.title = why ?? b.dataset.does ?? '';
}

function renderButtons(/** @type {Turn | undefined} */ selected, /** @type {RewindDiff | null} */ diff) {
  const busy = ui.busy ? 'Busy: wait for the running action to finish' : null;
  const none = selected ? null : 'Select a prompt in the timeline first';
  const choose = diff && ui.policy === null ? 'Choose what to do with the conflicting file first (above)' : null;
  const empty = diff && diff.files.length === 0 ? 'Nothing to restore: the files already hold what they held then' : null;
  /** @type {Record<string, string | null>} */
  const why = { code: busy ?? none ?? empty ?? choose, both: busy ?? none ?? choose, conversation: busy ?? none, fork: busy ?? none };
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[data-action]'))) disable(b, why[b.dataset.action ?? ''] ?? null);
  disable(button('undo'), busy ?? (engine.resume(ui.session).undoableOperations.length === 0 ? 'No rewind to undo' : null));
  disable(button('run-agent'), busy);
}

function render() {
  const list = allTurns(engine, ui.session, turnsKey());
  if (!list.some((p) => p.id === ui.selected && p.onBranch)) ui.selected = null;
  const selected = list.find((p) => p.id === ui.selected);
  const diff = selected ? engine.diffFileRewind(ui.session, { since: selected.id }) : null;
  const conflicts = new Set((diff?.files ?? []).filter((f) => !f.safe).map((f) => f.path));
  renderSessions();
  renderTree(conflicts);
  renderEditor();
  renderTimeline(list);
  renderPolicy(diff);
  renderDiff($('diff'), diff, selected ? `turn ${selected.n}` : '', ui.policy, read);
  ui.selectedN = selected?.n ?? null;
  $('target').textContent = selected ? `Rewind to before turn ${selected.n}: “${selected.text}”` : 'Select a prompt to preview a rewind to before it.';
  renderButtons(selected, diff);
}

// ---- actions ---------------------------------------------------------------------------------

function openFile(/** @type {string} */ path) {
  if (ui.dirty && !confirm(`Discard the unsaved edit of ${ui.file}?`)) return;
  ui.file = path;
  ui.dirty = false;
  savePrefs();
  render();
}

function select(/** @type {string} */ messageId) {
  ui.selected = ui.selected === messageId ? null : messageId;
  ui.policy = null;
  render();
}

/** Run an action that changes the store: errors to the status line, then flush and redraw. */
async function act(/** @type {string} */ what, /** @type {() => string | Told | Promise<string>} */ f) {
  if (ui.busy) return;
  ui.busy = true;
  render();
  try {
    status(await f());
  } catch (e) {
    const err = /** @type {{ code?: string, message?: string }} */ (e);
    status(`${what} failed: ${err.code ? `[${err.code}] ` : ''}${err.message}`, true);
  } finally {
    ui.busy = false;
    await persist();
    render();
  }
}

const onBranch = () => engine.activeBranch(ui.session).messages.filter((m) => m.kind === 'prompt').length;

/** The actions that write files (the others leave the editor's unsaved text alone). */
const WRITES_FILES = new Set(['code', 'both']);
const UNDO_HINT = 'Undo last rewind puts the files back.';

const read = (/** @type {string} */ path) => workspace.readText(path);

/** @type {Record<string, (id: string, policy: Policy) => string | Told>} */
const ACTIONS = {
  code: (id, policy) => {
    const out = engine.applyFileRewind(ui.session, { since: id, policy });
    const told = filesTold(out);
    if (!out.applied) return `Nothing written: ${out.cause ?? 'the rewind is blocked'}${told ? `; ${told}` : ''}.`;
    const warning = skippedTold(out, read, (p) => `To undo the agent's change in it too, rewind turn ${ui.selectedN}'s code again with Force (your edit is overwritten), or edit ${p}`);
    return { text: `Rewound code (${policy}): ${told}. ${UNDO_HINT}`, warning };
  },
  conversation: (id) => {
    const out = engine.rewindConversation(ui.session, { to: id });
    if (!out.rewound) return `Conversation not rewound: ${out.evaluation.reason}.`;
    return `Conversation rewound: ${count(out.removedTurnIds.length, 'turn')} left it; the files are as they were.`;
  },
  both: (id, policy) => {
    const turnsBefore = onBranch();
    const out = /** @type {import('../pkg/web/rewind_wasm.js').BothRewindOutcome} */ (engine.rewind(ui.session, { scope: 'both', to: id, policy }));
    const left = turnsBefore - onBranch();
    const conversation = out.rewound ? `conversation rewound (${count(left, 'turn')} left it)` : `conversation not rewound (${out.evaluation.reason})`;
    const told = filesTold(out);
    const code = out.applied ? `code (${policy}): ${told || 'no file written'}` : `no file written: ${out.cause ?? 'blocked'}${told ? `; ${told}` : ''}`;
    const warning = out.applied ? skippedTold(out, read, (p) => `To undo the agent's change in it too, Undo last rewind and rewind both with Force instead (your edit is overwritten), or edit ${p}`) : '';
    return { text: `Rewound: ${conversation}; ${code}.${out.applied ? ` ${UNDO_HINT}` : ''}`, warning };
  },
  fork: (id) => {
    const out = engine.fork(ui.session, { at: id });
    ui.session = out.childId;
    savePrefs();
    return `Forked: a new session with ${count(out.copiedMessages, 'message')}.`;
  },
};

// What each button does, for its title while enabled (disable() puts the reason instead).
for (const b of document.querySelectorAll('button')) b.dataset.does = b.title;
for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[data-action]'))) {
  b.onclick = () => {
    const action = b.dataset.action ?? '';
    if (WRITES_FILES.has(action) && !discardEdit()) return;
    act(b.textContent ?? '', () => run(action));
  };
}

/** Run rewind `action` on the previewed turn with the chosen policy; the status it returns. */
function run(/** @type {string} */ action) {
  const out = ACTIONS[action](/** @type {string} */ (ui.selected), ui.policy ?? 'block');
  if (WRITES_FILES.has(action)) ui.dirty = false; // the files may have changed under the editor
  if (action !== 'code') ui.selected = null;
  ui.policy = null;
  return out;
}

/** An unsaved edit in the editor: true once the person agrees to drop it (or there is none). */
function discardEdit() {
  return !ui.dirty || confirm(`The rewind rewrites the files: discard the unsaved edit of ${ui.file}?`);
}

button('undo').onclick = () => discardEdit() && act('Undo', () => {
  const ops = engine.resume(ui.session).undoableOperations;
  const before = onBranch();
  const out = engine.undo(ui.session, { operationId: ops[ops.length - 1], policy: 'merge' });
  ui.dirty = false;
  const told = filesTold(out);
  // Said from what changed: an engine that undoes a `both` whole brings its turns back too.
  const back = onBranch() - before;
  const conversation = back > 0 ? ` The conversation is back: ${count(back, 'turn')} returned to it.` : '';
  return out.applied ? `Undid the last rewind: ${told || 'no file written'}.${conversation}` : `Nothing undone: ${out.cause ?? 'blocked'}${told ? `; ${told}` : ''}.`;
});

button('run-agent').onclick = () => act('The agent', async () => {
  $('agent-state').textContent = 'working…';
  $('agent-state').className = 'pill busy';
  try {
    await runAgent(engine, workspace, ui.session, async () => { render(); await sleep(STEP_MS); });
  } finally {
    $('agent-state').textContent = 'idle';
    $('agent-state').className = 'pill';
  }
  return 'The agent finished its turns.';
});

editor.oninput = () => {
  ui.dirty = true;
  $('editor-dirty').hidden = false;
  disable(button('save'), null);
  renderSaveState();
};
const save = () => act('Save', () => {
  workspace.writeText(ui.file, editor.value);
  ui.dirty = false;
  return `Saved ${ui.file}.`;
});
button('save').onclick = save;
editor.onkeydown = (/** @type {KeyboardEvent} */ e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 's') {
    e.preventDefault();
    save();
  }
};

$('session-select').onchange = (e) => {
  ui.session = /** @type {HTMLSelectElement} */ (e.target).value;
  ui.selected = null;
  ui.policy = null;
  savePrefs();
  render();
};

button('reset').onclick = async () => {
  if (!confirm('Delete every session and file of this demo?')) return;
  store.close();
  await deleteBrowserEngine(STORE);
  for (const key of Object.keys(localStorage)) if (key === PREFS || key.startsWith(`${PREFS}:`)) localStorage.removeItem(key);
  location.reload();
};

render();
document.body.dataset.ready = 'true';
