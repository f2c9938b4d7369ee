// The web IDE demo: a file tree, an editor, a scripted agent, a timeline of prompts, the diff a
// rewind would write (conflicts beside the person's change), rewind code / conversation / both,
// undo and fork. Everything lives in the browser store (rewind-wasm/persist): the engine's
// records and the workspace files are in IndexedDB, so a reload brings the whole state back;
// only the UI's own selection (session, open file) is in localStorage.
import { openBrowserEngine, deleteBrowserEngine } from '../pkg/web/persist.js';
import { runAgent, seed } from './agent.js';
import { count, el, renderDiff } from './diff-view.js';

const STORE = new URLSearchParams(location.search).get('store') ?? 'demo';
const PREFS = `rewind-demo:${STORE}`;
const STEP_MS = Number(new URLSearchParams(location.search).get('step') ?? 90);
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
  file: prefs.file ?? 'src/app.js',
  selected: null, // the prompt message id whose "rewind to before it" is previewed
  dirty: false, // the editor holds unsaved text
  busy: false,
};
const savePrefs = () => localStorage.setItem(PREFS, JSON.stringify({ session: ui.session, file: ui.file }));

/** Flush the store, showing whether everything is durable yet. */
async function persist() {
  $('save-state').textContent = 'saving…';
  $('save-state').className = 'pill busy';
  await store.flush();
  $('save-state').textContent = 'saved';
  $('save-state').className = 'pill saved';
}

function status(text, error = false) {
  $('status').textContent = text;
  $('status').className = `status${error ? ' error' : ''}`;
}

// ---- rendering -------------------------------------------------------------------------------

function prompts() {
  const { messages } = engine.activeBranch(ui.session);
  const replies = new Map(messages.filter((m) => m.kind === 'reply').map((m) => [m.turnId, m.text]));
  return messages.filter((m) => m.kind === 'prompt').map((m, i) => ({ ...m, n: i + 1, reply: replies.get(m.turnId) }));
}

function renderSessions() {
  const select = $('session-select');
  select.replaceChildren(...engine.listSessions().map((s, i) =>
    el('option', { value: s.id, selected: s.id === ui.session }, `${i + 1}. ${s.kind === 'fork' ? 'Fork' : s.title}`)));
}

function renderTree(conflicts) {
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
  $('editor').disabled = text === null;
  if (!ui.dirty) $('editor').value = text ?? '';
  $('editor-dirty').hidden = !ui.dirty;
  $('save').disabled = !ui.dirty;
}

/** The files a turn changed, with the lines its changes added and removed. */
function turnFiles(turnId) {
  const byPath = new Map();
  for (const c of engine.checkpoints(ui.session).filter((c) => c.turnId === turnId)) {
    for (const f of c.files) {
      const was = byPath.get(f.path);
      byPath.set(f.path, { path: f.path, kind: c.kind, created: (was?.created ?? f.before === 'missing'), deleted: f.after === 'missing' });
    }
  }
  return [...byPath.values()].map((f) => {
    const { stats } = engine.previewFileRewind(ui.session, { turn: turnId, paths: [f.path], includeExternal: f.kind === 'external' });
    return { ...f, additions: stats.additions, deletions: stats.deletions };
  });
}

function renderTimeline(list) {
  const ol = $('timeline');
  ol.replaceChildren();
  if (list.length === 0) ol.append(el('li', { class: 'none', 'data-testid': 'timeline-empty' }, 'No prompts yet: press Run agent.'));
  for (const p of list) {
    const files = turnFiles(p.turnId);
    const li = el('li', { class: p.id === ui.selected ? 'selected' : '', 'data-testid': 'turn', 'data-turn': String(p.n), 'data-message': p.id },
      el('div', {}, el('span', { class: 'num' }, `#${p.n}`), el('span', { class: 'text' }, p.text)),
      p.reply ? el('div', { class: 'reply' }, p.reply) : null,
      el('ul', {}, files.map((f) => el('li', { 'data-testid': 'turn-file', 'data-path': f.path },
        el('span', { class: 'kind', title: f.kind }, `${f.kind === 'shell' ? '$' : f.kind === 'external' ? 'you ' : ''}${f.created ? 'A' : f.deleted ? 'D' : 'M'}`),
        el('span', {}, f.path),
        el('span', { class: 'plus' }, `+${f.additions}`),
        el('span', { class: 'minus' }, `−${f.deletions}`)))));
    li.onclick = () => select(p.id);
    ol.append(li);
  }
}

function render() {
  const list = prompts();
  if (!list.some((p) => p.id === ui.selected)) ui.selected = null;
  const selected = list.find((p) => p.id === ui.selected);
  const diff = selected ? engine.diffFileRewind(ui.session, { since: selected.id }) : null;
  const conflicts = new Set((diff?.files ?? []).filter((f) => !f.safe).map((f) => f.path));
  renderSessions();
  renderTree(conflicts);
  renderEditor();
  renderTimeline(list);
  renderDiff($('diff'), diff, selected ? `turn ${selected.n}` : '');
  $('target').textContent = selected ? `Rewind to before turn ${selected.n}: “${selected.text}”` : 'Select a prompt to preview a rewind to before it.';
  for (const b of document.querySelectorAll('[data-action]')) b.disabled = ui.busy || !selected;
  $('undo').disabled = ui.busy || engine.resume(ui.session).undoableOperations.length === 0;
  $('run-agent').disabled = ui.busy;
  return diff;
}

// ---- actions ---------------------------------------------------------------------------------

function openFile(path) {
  if (ui.dirty && !confirm(`Discard the unsaved edit of ${ui.file}?`)) return;
  ui.file = path;
  ui.dirty = false;
  savePrefs();
  render();
}

function select(messageId) {
  ui.selected = ui.selected === messageId ? null : messageId;
  render();
}

/** Run an action that changes the store: errors to the status line, then flush and redraw. */
async function act(what, f) {
  if (ui.busy) return;
  ui.busy = true;
  try {
    status(await f() ?? '');
  } catch (e) {
    status(`${what} failed: ${e.code ? `[${e.code}] ` : ''}${e.message}`, true);
  } finally {
    ui.busy = false;
    await persist();
    render();
  }
}

/** Merge when every conflict is mergeable; otherwise restore what is safe and skip the rest. */
function policy(diff) {
  const unsafe = diff.files.filter((f) => !f.safe);
  return unsafe.length === 0 ? 'block' : unsafe.every((f) => f.mergeable) ? 'merge' : 'skip';
}

const files = (out) => out.restoredFiles.map((f) => `${f.path}${f.merged ? ' (merged)' : ''}`).join(', ') || 'nothing';

const ACTIONS = {
  code: (id, diff) => {
    const out = engine.applyFileRewind(ui.session, { since: id, policy: policy(diff) });
    return out.applied ? `Restored ${files(out)}.` : `Nothing written: ${out.cause ?? 'the rewind is blocked'}.`;
  },
  conversation: (id) => {
    const out = engine.rewindConversation(ui.session, { to: id });
    return `Conversation rewound: ${count(out.removedTurnIds.length, 'turn')} left the branch.`;
  },
  both: (id, diff) => {
    const out = engine.rewind(ui.session, { scope: 'both', to: id, policy: policy(diff) });
    return `Rewound code and conversation: restored ${files(out)}.`;
  },
  fork: (id) => {
    const out = engine.fork(ui.session, { at: id });
    ui.session = out.childId;
    savePrefs();
    return `Forked: a new session with ${count(out.copiedMessages, 'message')}.`;
  },
};

for (const b of document.querySelectorAll('[data-action]')) {
  b.onclick = () => act(b.textContent, () => {
    const diff = engine.diffFileRewind(ui.session, { since: ui.selected });
    const out = ACTIONS[b.dataset.action](ui.selected, diff);
    ui.dirty = false; // the files may have changed under the editor
    if (b.dataset.action !== 'code') ui.selected = null;
    return out;
  });
}

$('undo').onclick = () => act('Undo', () => {
  const ops = engine.resume(ui.session).undoableOperations;
  const out = engine.undo(ui.session, { operationId: ops[ops.length - 1], policy: 'merge' });
  ui.dirty = false;
  return out.applied ? `Undone: ${files(out)} back.` : `Nothing undone: ${out.cause ?? 'blocked'}.`;
});

$('run-agent').onclick = () => act('The agent', async () => {
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

$('editor').oninput = () => {
  ui.dirty = true;
  $('editor-dirty').hidden = false;
  $('save').disabled = false;
};
const save = () => act('Save', () => {
  workspace.writeText(ui.file, $('editor').value);
  ui.dirty = false;
  return `Saved ${ui.file}.`;
});
$('save').onclick = save;
$('editor').onkeydown = (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 's') {
    e.preventDefault();
    save();
  }
};

$('session-select').onchange = (e) => {
  ui.session = e.target.value;
  ui.selected = null;
  savePrefs();
  render();
};

$('reset').onclick = async () => {
  if (!confirm('Delete every session and file of this demo?')) return;
  store.close();
  await deleteBrowserEngine(STORE);
  localStorage.removeItem(PREFS);
  location.reload();
};

render();
document.body.dataset.ready = 'true';
