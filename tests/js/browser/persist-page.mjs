// Helpers for the browser store's contract tests, as `window.t` (each test step is one
// page.evaluate; what must survive a reload is in IndexedDB, not here).
import { openBrowserEngine, deleteBrowserEngine, databaseName } from '/pkg/web/persist.js';

const enc = new TextEncoder();
const bytes = (s) => enc.encode(s);

/** Everything a reload must bring back, as one JSON string. */
function fingerprint({ engine, workspace }) {
  const sessions = engine.listSessions();
  return JSON.stringify({
    sessions,
    state: sessions.map((s) => ({
      resume: engine.resume(s.id),
      branch: engine.activeBranch(s.id),
      checkpoints: engine.checkpoints(s.id),
      operations: engine.operations(s.id),
    })),
    files: Object.fromEntries(workspace.paths().map((p) => [p, workspace.readText(p)])),
  });
}

/** One turn of a story: a prompt, an edit of a.txt (written to the workspace first), a reply. */
function turn(store, id, n) {
  const { engine, workspace } = store;
  const { turnId, messageId } = engine.recordPrompt(id, { text: `turn ${n}` });
  const before = workspace.read('a.txt');
  const after = bytes(`a.txt after turn ${n}\n`);
  workspace.write('a.txt', after);
  engine.recordEdit(id, { turnId, path: 'a.txt', before, after, toolName: 'Edit' });
  workspace.writeText(`f${n}.txt`, `file ${n}\n`);
  engine.recordEdit(id, { turnId, path: `f${n}.txt`, before: null, after: bytes(`file ${n}\n`), toolName: 'Write' });
  engine.recordReply(id, { turnId, text: `done ${n}` });
  engine.completeTurn(id, { turnId });
  return messageId;
}

/** Raw IndexedDB access, to look at and damage what the store wrote. */
async function raw(name, fn) {
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open(databaseName(name));
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
const req = (r) => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
async function rawTx(name, storeName, mode, fn) {
  return raw(name, async (db) => {
    const tx = db.transaction(storeName, mode);
    const out = await fn(tx.objectStore(storeName));
    await new Promise((ok, no) => { tx.oncomplete = ok; tx.onerror = () => no(tx.error); });
    return out;
  });
}

/** The error's code and message, or null when `fn` resolved. */
async function refusal(fn) {
  try {
    const store = await fn();
    store.close();
    return null;
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message };
  }
}

window.t = { openBrowserEngine, deleteBrowserEngine, databaseName, fingerprint, turn, raw, rawTx, req, refusal, bytes, open: null };
window.ready = true;
