// Browser persistence for the rewind engine: an in-memory Engine whose committed batches (and,
// optionally, workspace files) are written behind to IndexedDB, so a page reload restores every
// session. `import { openBrowserEngine } from 'rewind-wasm/persist'`.
//
// DURABILITY. `await store.flush()` resolves once every batch the engine committed before the
// call, and every change made to the store's workspace before it, is in IndexedDB: written by a
// transaction opened with durability "strict" (flushed to disk before `complete`, where the
// browser supports the option) that reported `complete`. A reload, a closed tab, a browser crash
// or a power loss after that gets all of it back. Without a flush the module still writes behind
// (`writeBehindMs` after a change, and at once when the page is hidden), so a crash usually
// loses less, but only what a resolved flush covers is promised. A crash before a flush resolves
// loses at most the batches committed and the files changed since the last resolved flush, and
// only ever a tail: each write is one IndexedDB transaction (all of it lands or none) holding
// everything queued up to one moment between two engine calls, in order. So the reloaded state is
// exactly the state after some earlier call: a batch is never half-applied, and the store's
// workspace files are those of that same moment (a rewind's file writes and its records land
// together). A write that fails (quota) leaves the engine working in memory: flush() rejects with
// the IndexedDB error, and what was not written stays queued for the next attempt.
//
// LAYOUT. One database per store, `rewind:<name>`, IndexedDB version 1, object stores: `meta`
// (the format record), `batches` (key: sequence number, value: the bytes `onCommit` delivered),
// `snapshot` (key "engine": { through, bytes }, `engine.snapshot()` covering batches <= through)
// and `files` (key: path, value: { bytes, mtimeMs }). Compaction replaces the batches a new
// snapshot covers in the same transaction that stores it. Reload = the snapshot, then the later
// batches (`Engine.fromSnapshot(..., { batches })`), or `Engine.fromLog` before any snapshot.
import init, { Engine } from './rewind_wasm.js';
import { BrowserWorkspace } from './persist-workspace.js';

const FORMAT = 'rewind-wasm/browser-store';
const FORMAT_VERSION = 1;
const IDB_VERSION = 1;
const STORES = ['meta', 'batches', 'snapshot', 'files'];

/** An Error shaped like the engine's own (`name` "RewindError", a stable `code`). */
function storeError(code, message, cause) {
  const e = new Error(message, cause === undefined ? undefined : { cause });
  e.name = 'RewindError';
  e.code = code;
  return e;
}

const request = (r) => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
const completion = (tx) => new Promise((ok, no) => {
  tx.oncomplete = () => ok();
  tx.onerror = () => no(tx.error);
  tx.onabort = () => no(tx.error ?? new DOMException('the transaction was aborted', 'AbortError'));
});

/** The IndexedDB database name of store `name`. */
export const databaseName = (name) => `rewind:${name}`;

/** Open (creating when absent) the database; refuse one of an unknown layout or version. */
async function openDatabase(name) {
  const db = databaseName(name);
  const r = indexedDB.open(db, IDB_VERSION);
  r.onupgradeneeded = (ev) => {
    // Version 0 → 1 only: a database this build made. Anything else would be a migration.
    if (ev.oldVersion !== 0) return;
    const d = r.result;
    for (const s of STORES) d.createObjectStore(s);
    r.transaction.objectStore('meta').put({ format: FORMAT, version: FORMAT_VERSION, createdAt: Date.now() }, 'format');
  };
  let handle;
  try {
    handle = await request(r);
  } catch (e) {
    if (e?.name === 'VersionError') {
      throw storeError('unavailable', `IndexedDB database ${db} has a newer version than ${IDB_VERSION}: it was written by a newer rewind-wasm, which this build cannot read (nothing was changed)`, e);
    }
    throw storeError('host_error', `IndexedDB database ${db} could not be opened: ${e?.message ?? e}`, e);
  }
  const missing = STORES.filter((s) => !handle.objectStoreNames.contains(s));
  if (missing.length > 0) {
    handle.close();
    throw storeError('corrupt', `IndexedDB database ${db} is not a rewind browser store (no ${missing.join(', ')} object store); nothing was changed`);
  }
  return handle;
}

/** Everything stored, read in one transaction (one consistent view), checked. */
async function load(db, name) {
  const tx = db.transaction(STORES, 'readonly');
  const [meta, snapshot, seqs, batches, paths, files] = await Promise.all([
    request(tx.objectStore('meta').get('format')),
    request(tx.objectStore('snapshot').get('engine')),
    request(tx.objectStore('batches').getAllKeys()),
    request(tx.objectStore('batches').getAll()),
    request(tx.objectStore('files').getAllKeys()),
    request(tx.objectStore('files').getAll()),
  ]);
  const where = `IndexedDB database ${databaseName(name)}`;
  if (meta?.format !== FORMAT || !Number.isInteger(meta.version)) {
    throw storeError('corrupt', `${where} is not a rewind browser store: its format record is ${meta === undefined ? 'missing' : 'not one this module writes'}; nothing was changed`);
  }
  if (meta.version > FORMAT_VERSION) {
    throw storeError('unavailable', `${where} is in store format ${meta.version}, written by a newer rewind-wasm; this build reads format ${FORMAT_VERSION} (nothing was changed)`);
  }
  if (snapshot !== undefined && !(Number.isInteger(snapshot?.through) && snapshot.bytes instanceof Uint8Array)) {
    throw storeError('corrupt', `${where}: the stored snapshot is damaged (not { through, bytes })`);
  }
  // The batches after the snapshot must follow it without a gap: every write is one transaction
  // of consecutive batches, so a gap means the database was damaged.
  let expect = snapshot === undefined ? (seqs[0] ?? 0) : snapshot.through + 1;
  for (let i = 0; i < seqs.length; i++, expect++) {
    if (seqs[i] !== expect) throw storeError('corrupt', `${where}: batch ${expect} is missing (found ${seqs[i]}); the log is damaged`);
    if (!(batches[i] instanceof Uint8Array)) throw storeError('corrupt', `${where}: batch ${seqs[i]} is not bytes; the log is damaged`);
  }
  const fileMap = new Map(paths.map((p, i) => [p, files[i]]));
  return { snapshot, seqs, batches, files: fileMap, nextSeq: expect };
}

/** Hold the Web Lock of `name` (one page or worker at a time writes a store). */
function lock(name, timeoutMs) {
  const locks = globalThis.navigator?.locks;
  if (!locks) return Promise.resolve(() => {});
  return new Promise((granted, refused) => {
    locks.request(databaseName(name), { signal: AbortSignal.timeout(timeoutMs) }, () => new Promise((release) => granted(release)))
      .catch((e) => refused(e?.name === 'TimeoutError' || e?.name === 'AbortError'
        ? storeError('unavailable', `rewind store ${name} is open in another tab or worker (waited ${timeoutMs} ms for its lock)`, e)
        : e));
  });
}

/**
 * Open (or create) the browser store `name` and the engine over it. See the module comment for
 * the durability guarantee.
 */
export async function openBrowserEngine(opts) {
  const { name, workspace, wasm, compactEvery = 1000, writeBehindMs = 50, lockTimeoutMs = 5000, strict = true } = opts ?? {};
  if (typeof name !== 'string' || name === '') throw storeError('invalid_input', 'openBrowserEngine takes { name }: a non-empty string');
  if (!(Number.isInteger(compactEvery) && compactEvery > 0)) throw storeError('invalid_input', 'compactEvery must be a positive integer');
  if (typeof indexedDB === 'undefined') throw storeError('unavailable', 'openBrowserEngine needs IndexedDB (a browser page or worker)');
  await init(wasm === undefined ? undefined : { module_or_path: wasm });
  const release = await lock(name, lockTimeoutMs);
  let db;
  try {
    db = await openDatabase(name);
    const stored = await load(db, name);
    return new BrowserEngine({ name, db, release, stored, workspace, compactEvery, writeBehindMs, strict });
  } catch (e) {
    db?.close();
    release();
    throw e;
  }
}

/** Delete store `name` (its database). Close it first where it is open in this page. */
export async function deleteBrowserEngine(name) {
  await request(indexedDB.deleteDatabase(databaseName(name)));
}

class BrowserEngine {
  #db; #release; #compactEvery; #writeBehindMs;
  #batches = []; // [seq, bytes] committed, not yet written
  #files = new Map(); // path -> entry | null, changed, not yet written
  #snapshot = null; // { through, bytes } taken, not yet written
  #nextSeq;
  #logLength; // batches since the newest snapshot (stored and queued): compaction's trigger
  #wantSnapshot = false;
  #changes = 0; // every queued change counts one
  #durable = 0; // the #changes value the last completed transaction covered
  #waiters = []; // { target, ok, no } of pending flushes
  #timer = null;
  #writing = false;
  #closed = false;
  #broken = null; // why the database went away (another page deleted or upgraded it)
  #onHide;

  constructor({ name, db, release, stored, workspace, compactEvery, writeBehindMs, strict }) {
    this.name = name;
    this.#db = db;
    this.#release = release;
    this.#compactEvery = compactEvery;
    this.#writeBehindMs = writeBehindMs;
    this.#nextSeq = stored.nextSeq;
    this.#logLength = stored.batches.length;
    this.created = stored.snapshot === undefined && stored.batches.length === 0 && stored.files.size === 0;
    this.workspace = workspace ?? new BrowserWorkspace(stored.files, (path, entry) => this.#fileChanged(path, entry));
    const where = `IndexedDB database ${databaseName(name)}`;
    const engineOpts = { workspace: this.workspace, onCommit: (batch) => this.#committed(batch), strict };
    try {
      this.engine = stored.snapshot !== undefined
        ? Engine.fromSnapshot(stored.snapshot.bytes, { ...engineOpts, batches: stored.batches })
        : stored.batches.length > 0
          ? Engine.fromLog(stored.batches, engineOpts)
          : Engine.inMemory(engineOpts);
    } catch (e) {
      throw storeError(e?.code ?? 'corrupt', `${where} does not load: ${e?.message ?? e}`, e);
    }
    db.onversionchange = () => {
      this.#broken = storeError('unavailable', `${where} was deleted or upgraded by another page; this store is closed`);
      this.close();
    };
    this.#onHide = () => { if (document.visibilityState === 'hidden') this.#drain(); };
    globalThis.document?.addEventListener('visibilitychange', this.#onHide);
    // A journal left pending (a rewind interrupted in memory) is settled now; its batches queue.
    this.recovered = this.engine.recover();
    if (this.#logLength >= compactEvery) this.#schedule();
  }

  /** Resolves when everything committed or changed before the call is durable in IndexedDB. */
  flush() {
    if (this.#closed) return Promise.reject(this.#broken ?? storeError('unavailable', `rewind store ${this.name} is closed`));
    const target = this.#changes;
    if (this.#durable >= target && !this.#wantSnapshot) return Promise.resolve();
    return new Promise((ok, no) => {
      this.#waiters.push({ target, ok, no });
      this.#drain();
    });
  }

  /** Replace the stored batches with one snapshot now, then flush. */
  compact() {
    this.#wantSnapshot = true;
    this.#changes++;
    return this.flush();
  }

  /** Batches since the newest snapshot (written or queued), and changes not yet durable. */
  get stats() {
    return { logLength: this.#logLength, pending: this.#batches.length + this.#files.size + (this.#snapshot ? 1 : 0), nextSeq: this.#nextSeq };
  }

  /**
   * Stop: nothing more is written, the engine is freed, the lock released. What was queued and
   * not yet handed to IndexedDB is dropped, as a crash would drop it: `await flush()` first.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    globalThis.document?.removeEventListener('visibilitychange', this.#onHide);
    const err = this.#broken ?? storeError('unavailable', `rewind store ${this.name} was closed before the flush completed`);
    for (const w of this.#waiters.splice(0)) w.no(err);
    this.#db.close(); // a transaction already handed over still completes
    this.#release();
    this.engine.free();
    if (this.workspace instanceof BrowserWorkspace) this.workspace.detach();
  }

  #committed(batch) {
    // Throwing makes the engine call fail with host_error, naming the closed store.
    if (this.#closed) throw storeError('unavailable', `rewind store ${this.name} is closed: the batch was not persisted`);
    this.#batches.push([this.#nextSeq++, batch]);
    this.#logLength++;
    this.#changed();
  }

  #fileChanged(path, entry) {
    this.#files.set(path, entry);
    this.#changed();
  }

  #changed() {
    this.#changes++;
    this.#schedule();
  }

  #schedule() {
    if (this.#timer === null && !this.#writing && !this.#closed) {
      this.#timer = setTimeout(() => this.#drain(), this.#writeBehindMs);
    }
  }

  /** Write everything queued in one transaction (runs between engine calls: from a timer or flush). */
  #drain() {
    clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#writing || this.#closed) return;
    if (this.#wantSnapshot || this.#logLength >= this.#compactEvery) {
      // engine.snapshot() covers every batch committed so far: the queued ones are in it.
      this.#snapshot = { through: this.#nextSeq - 1, bytes: this.engine.snapshot() };
      this.#batches = [];
      this.#logLength = 0;
      this.#wantSnapshot = false;
    }
    const target = this.#changes;
    const job = { batches: this.#batches, files: this.#files, snapshot: this.#snapshot };
    if (job.batches.length === 0 && job.files.size === 0 && job.snapshot === null) {
      this.#durable = target;
      this.#settle();
      return;
    }
    this.#batches = [];
    this.#files = new Map();
    this.#snapshot = null;
    this.#writing = true;
    write(this.#db, job).then(() => {
      this.#writing = false;
      this.#durable = target;
      this.#settle();
      // What was queued during the write: at once for a waiting flush, else written behind.
      if (this.#closed) return;
      if (this.#waiters.length > 0) this.#drain();
      else if (this.#changes > this.#durable) this.#schedule();
    }, (e) => {
      this.#writing = false;
      this.#requeue(job);
      // Not retried on a timer (a full quota would fail every time): the next change or flush
      // tries again.
      const err = storeError('host_error', `writing to IndexedDB database ${databaseName(this.name)} failed (the changes stay queued): ${e?.message ?? e}`, e);
      for (const w of this.#waiters.splice(0)) w.no(err);
    });
  }

  /** A failed write's changes go back in front of what was queued since. */
  #requeue(job) {
    if (this.#snapshot === null) this.#snapshot = job.snapshot;
    const through = this.#snapshot?.through ?? -1;
    this.#batches = job.batches.concat(this.#batches).filter(([seq]) => seq > through);
    for (const [path, entry] of job.files) if (!this.#files.has(path)) this.#files.set(path, entry);
  }

  #settle() {
    this.#waiters = this.#waiters.filter((w) => (w.target <= this.#durable ? (w.ok(), false) : true));
  }
}

/** One transaction: the snapshot (and the batches it replaces), the batches, the files. */
function write(db, { batches, files, snapshot }) {
  const tx = db.transaction(['batches', 'snapshot', 'files'], 'readwrite', { durability: 'strict' });
  const log = tx.objectStore('batches');
  if (snapshot !== null) {
    tx.objectStore('snapshot').put({ through: snapshot.through, bytes: snapshot.bytes, takenAt: Date.now() }, 'engine');
    log.delete(IDBKeyRange.upperBound(snapshot.through));
  }
  for (const [seq, bytes] of batches) log.put(bytes, seq);
  const store = tx.objectStore('files');
  for (const [path, entry] of files) {
    if (entry === null) store.delete(path);
    else store.put(entry, path);
  }
  return completion(tx);
}
