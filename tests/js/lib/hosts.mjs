// JS hosts for the tests: an in-memory workspace with fault injection (the JS twin of core's
// Faulty<MemWorkspace>, stat data for shell capture included), and an in-memory StoreHost that
// applies batches the way core's MemStore does (preconditions, all-or-nothing), with commit
// faults.

const enc = new TextEncoder();
export const utf8 = (s) => enc.encode(s);

/** Scenario bytes: a UTF-8 string, { base64 } or null. */
export function bytesOf(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return utf8(v);
  if (typeof v === 'object' && typeof v.base64 === 'string') return new Uint8Array(Buffer.from(v.base64, 'base64'));
  throw new Error(`bytes must be a string, {base64} or null: ${JSON.stringify(v)}`);
}

/** Fail the nth call of an op (1-based, counted from arming); sticky = and every call after. */
export class Faults {
  constructor() { this.armed = []; this.calls = { read: 0, write: 0, remove: 0, commit: 0 }; }
  arm({ op, nth, sticky = false }) { this.armed.push({ op, nth, sticky, base: this.calls[op] }); }
  clear() { this.armed = []; }
  hit(op) {
    const call = ++this.calls[op];
    return this.armed.some((f) => f.op === op && (call - f.base === f.nth || (f.sticky && call - f.base > f.nth)));
  }
}

/** How far the logical clock moves on every change: far past the engine's 2 s racy window. */
const TICK_MS = 10_000;

/** The directories above `path`, outermost first. */
const ancestors = (path) => {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
};

/**
 * Files in memory, with directories explicit as on a disk (the JS twin of core's MemWorkspace):
 * a write makes the missing folders above the file (0o755), they stay when their files go, and
 * list() reports them (`kind: "dir"`), so a scenario sees the same folders on every host.
 */
export class MemWorkspace {
  constructor(files = {}) {
    this.files = new Map();
    this.dirs = new Set();
    this.modes = new Map(); // path -> permission bits; a new file gets 0o644, a replace keeps it
    // Stat data for list()/stat(): path -> { mtimeMs, ctimeMs, ino }. The logical clock starts
    // in 1970, so every mtime is long before Date.now() (which the engine takes as the start
    // of a listing) and no read is ever racy.
    this.stats = new Map();
    this.clock = 0;
    this.inodes = 0;
    this.ignored = []; // path prefixes list() skips (a host's ignore rules); stat() still answers
    this.faults = new Faults();
    for (const [p, v] of Object.entries(files)) if (v !== null) this.put(p, bytesOf(v));
  }
  /** A new or replaced file: a new mtime, ctime and inode (as a rename over it would give). */
  stamp(path) {
    this.clock += TICK_MS;
    this.stats.set(path, { mtimeMs: this.clock, ctimeMs: this.clock, ino: ++this.inodes });
  }
  entry(path) {
    const bytes = this.files.get(path);
    const dir = this.dirs.has(path);
    if (bytes === undefined && !dir) return null;
    const kind = dir ? { kind: 'dir' } : {};
    return { path, size: dir ? 0 : bytes.length, ...this.stats.get(path), mode: this.modes.get(path) ?? 0o644, ...kind };
  }
  isIgnored(path) {
    return this.ignored.some((p) => path === p || path.startsWith(`${p}/`));
  }
  list() {
    return [...this.files.keys(), ...this.dirs].filter((p) => !this.isIgnored(p)).sort().map((p) => this.entry(p));
  }
  stat(path) { return this.entry(path); }
  read(path) {
    if (this.faults.hit('read')) throw new Error(`injected fault: read of ${path} failed`);
    const b = this.files.get(path);
    return b === undefined ? null : b.slice();
  }
  write(path, bytes) {
    if (this.faults.hit('write')) throw new Error(`injected fault: write of ${path} failed`);
    if (!(bytes instanceof Uint8Array)) throw new TypeError('write wants a Uint8Array');
    if (this.dirs.has(path)) throw new Error(`${path} is a directory`);
    const file = ancestors(path).find((d) => this.files.has(d));
    if (file !== undefined) throw new Error(`${file} is not a directory`);
    this.put(path, bytes.slice());
  }
  remove(path) {
    if (this.faults.hit('remove')) throw new Error(`injected fault: remove of ${path} failed`);
    this.delete(path);
  }
  mode(path) { return this.files.has(path) || this.dirs.has(path) ? this.modes.get(path) ?? 0o644 : null; }
  /** chmod: the status-change time moves, the modification time does not. */
  setMode(path, mode) {
    if (!this.files.has(path) && !this.dirs.has(path)) return;
    this.modes.set(path, mode);
    this.clock += TICK_MS;
    this.stats.get(path).ctimeMs = this.clock;
  }
  makeDir(path, mode) {
    if (this.faults.hit('write')) throw new Error(`injected fault: mkdir of ${path} failed`);
    const file = [...ancestors(path), path].find((d) => this.files.has(d));
    if (file !== undefined) throw new Error(`${file} is a file, not a directory`);
    this.mkdir(path);
    if (mode !== null && mode !== undefined) this.modes.set(path, mode & 0o7777);
  }
  removeDir(path) {
    if (this.faults.hit('remove')) throw new Error(`injected fault: rmdir of ${path} failed`);
    if (!this.dirs.has(path)) return;
    const held = this.dirEntries(path);
    if (held.length > 0) throw new Error(`${path} is not empty: it holds ${held.join(', ')}`);
    this.dirs.delete(path); this.modes.delete(path); this.stats.delete(path);
  }
  dirEntries(path) {
    const prefix = `${path}/`;
    return [...this.files.keys(), ...this.dirs]
      .filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
      .map((p) => p.slice(prefix.length))
      .sort();
  }
  // Direct access for "a person edits the file" steps: no faults.
  makeParents(path) {
    for (const d of ancestors(path)) {
      if (this.dirs.has(d)) continue;
      this.dirs.add(d);
      this.modes.set(d, 0o755);
      this.stamp(d);
    }
  }
  put(path, bytes) {
    this.makeParents(path);
    this.files.set(path, bytes);
    if (!this.modes.has(path)) this.modes.set(path, 0o644);
    this.stamp(path);
  }
  /** mkdir -p */
  mkdir(path) {
    this.makeParents(path);
    if (this.files.has(path) || this.dirs.has(path)) return;
    this.dirs.add(path);
    this.modes.set(path, 0o755);
    this.stamp(path);
  }
  /** rm -r */
  removeTree(path) {
    const under = (p) => p === path || p.startsWith(`${path}/`);
    for (const p of [...this.files.keys()]) if (under(p)) this.delete(p);
    for (const d of [...this.dirs]) if (under(d)) { this.dirs.delete(d); this.modes.delete(d); this.stats.delete(d); }
  }
  /** The host's ignore rules start to skip `path` and all under it. */
  ignore(path) { this.ignored.push(path); }
  get(path) { return this.files.get(path) ?? null; }
  delete(path) { this.files.delete(path); this.modes.delete(path); this.stats.delete(path); }
}

const conflict = (message) => Object.assign(new Error(message), { code: 'conflict' });

/** A StoreHost over plain JS maps, applying Batch::to_bytes JSON. */
export class MemStoreHost {
  constructor() {
    this.sessionsById = new Map(); // id -> { order, generation, body, messages: Map(seq->[id,body]), turns: Map(id->[seq,body]), checkpoints: Map, operations: [], snapshot: body | null }
    this.journalRows = new Map(); // id -> [order, body]
    this.blobMap = new Map(); // hash -> Uint8Array
    this.commands = new Map(); // parent + ' ' + command -> body
    this.order = 0;
    this.commits = 0;
    this.faults = new Faults();
    this.log = [];
  }
  static lastSeqOf(r) {
    let m = 0;
    for (const k of r.messages.keys()) m = Math.max(m, k);
    for (const k of r.checkpoints.keys()) m = Math.max(m, k);
    return m;
  }
  session(id) {
    const r = this.sessionsById.get(id);
    return r ? { id, seq: r.order, body: r.body } : null;
  }
  sessions() {
    return [...this.sessionsById.entries()].map(([id, r]) => ({ id, seq: r.order, body: r.body })).sort((a, b) => a.seq - b.seq);
  }
  messages(s) {
    const r = this.sessionsById.get(s);
    if (!r) return [];
    return [...r.messages.entries()].sort((a, b) => a[0] - b[0]).map(([seq, [id, body]]) => ({ id, seq, body }));
  }
  turn(s, t) {
    const x = this.sessionsById.get(s)?.turns.get(t);
    return x ? { id: t, seq: x[0], body: x[1] } : null;
  }
  turns(s) {
    const r = this.sessionsById.get(s);
    if (!r) return [];
    return [...r.turns.entries()].map(([id, [seq, body]]) => ({ id, seq, body })).sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : 1));
  }
  checkpoints(s) {
    const r = this.sessionsById.get(s);
    if (!r) return [];
    return [...r.checkpoints.entries()].sort((a, b) => a[0] - b[0]).map(([seq, [id, body]]) => ({ id, seq, body }));
  }
  operations(s) {
    const r = this.sessionsById.get(s);
    return r ? r.operations.map(([seq, id, body]) => ({ id, seq, body })) : [];
  }
  journals() {
    return [...this.journalRows.entries()].map(([id, [seq, body]]) => ({ id, seq, body })).sort((a, b) => a.seq - b.seq);
  }
  blob(hash) { return this.blobMap.get(hash) ?? null; }
  blobs() {
    return [...this.blobMap.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([hash, b]) => ({ hash, size: b.length, stored: b.length }));
  }
  lastSeq(s) { const r = this.sessionsById.get(s); return r ? MemStoreHost.lastSeqOf(r) : 0; }
  commandFact(parent, command) {
    const body = this.commands.get(`${parent} ${command}`);
    return body === undefined ? null : { id: command, seq: 0, body };
  }
  version() { return this.commits; }
  /** The session's latest workspace snapshot (one row per session; gone with the session). */
  workspaceSnapshot(s) {
    const body = this.sessionsById.get(s)?.snapshot ?? null;
    return body === null ? null : { id: s, seq: 0, body };
  }

  check(p) {
    const [[kind, arg]] = Object.entries(p);
    const r = () => this.sessionsById.get(Array.isArray(arg) ? arg[0] : arg);
    switch (kind) {
      case 'sessionAbsent': if (r()) throw conflict(`session ${arg} already exists`); break;
      case 'generation': if (!r() || r().generation !== arg[1]) throw conflict(`session ${arg[0]} is not at generation ${arg[1]}`); break;
      case 'lastSeq': if (!r() || MemStoreHost.lastSeqOf(r()) !== arg[1]) throw conflict(`session ${arg[0]} is not at seq ${arg[1]}`); break;
      case 'journalPresent': if (!this.journalRows.has(arg)) throw conflict(`journal ${arg} is no longer pending`); break;
      case 'commandUnused': if (this.commands.has(`${arg[0]} ${arg[1]}`)) throw conflict(`command ${arg[1]} already ran`); break;
      case 'version': if (this.commits !== arg) throw conflict(`store is at version ${this.commits}, not ${arg}`); break;
      default: throw new Error(`unknown precondition ${kind}`);
    }
  }

  commit(bytes) {
    if (this.faults.hit('commit')) throw new Error('injected fault: commit failed');
    const batch = JSON.parse(new TextDecoder().decode(bytes));
    for (const p of batch.preconditions) this.check(p);
    // Validate on a scratch copy of the owner sets so the apply below cannot fail half-way.
    const created = new Set();
    for (const w of batch.writes) {
      if (w.write === 'createSession') {
        if (this.sessionsById.has(w.session) || created.has(w.session)) throw conflict(`session ${w.session} already exists`);
        created.add(w.session);
        continue;
      }
      const owner = w.session ?? w.parent;
      if (owner && w.write !== 'deleteSession' && !this.sessionsById.has(owner) && !created.has(owner)) throw conflict(`session ${owner} does not exist`);
      if ((w.write === 'appendMessage' || w.write === 'putCheckpoint')) {
        const r = this.sessionsById.get(w.session);
        if (r && (r.messages.has(w.seq) || r.checkpoints.has(w.seq))) throw conflict(`seq ${w.seq} of session ${w.session} is taken`);
      }
    }
    this.commits += 1;
    this.log.push(bytes.slice());
    for (const w of batch.writes) this.apply(w);
  }

  apply(w) {
    const order = ++this.order;
    const r = this.sessionsById.get(w.session ?? w.parent);
    switch (w.write) {
      case 'createSession':
        this.sessionsById.set(w.session, { order, generation: 0, body: w.body, messages: new Map(), turns: new Map(), checkpoints: new Map(), operations: [], snapshot: null });
        break;
      case 'updateSession': r.generation = w.generation; r.body = w.body; break;
      case 'appendMessage': r.messages.set(w.seq, [w.message, w.body]); break;
      case 'putTurn': r.turns.set(w.turn, [w.seq, w.body]); break;
      case 'putCheckpoint': r.checkpoints.set(w.seq, [w.checkpoint, w.body]); break;
      case 'putBlob': if (!this.blobMap.has(w.hash)) this.blobMap.set(w.hash, new Uint8Array(Buffer.from(w.bytes, 'base64'))); break;
      case 'putOperation': r.operations.push([order, w.operation, w.body]); break;
      case 'putJournal': this.journalRows.set(w.journal, [order, w.body]); break;
      case 'removeJournal': this.journalRows.delete(w.journal); break;
      case 'putWorkspaceSnapshot': r.snapshot = w.body; break;
      case 'putCommandFact': this.commands.set(`${w.parent} ${w.command}`, w.body); break;
      case 'deleteBlob': this.blobMap.delete(w.hash); break;
      case 'deleteCheckpoint':
        for (const [seq, [id]] of r?.checkpoints ?? []) if (id === w.checkpoint) r.checkpoints.delete(seq);
        break;
      case 'deleteSession':
        this.sessionsById.delete(w.session); // its workspace snapshot goes with it
        for (const [id, [, body]] of this.journalRows) if (JSON.parse(body).sessionId === w.session) this.journalRows.delete(id);
        for (const k of [...this.commands.keys()]) if (k.startsWith(`${w.session} `)) this.commands.delete(k);
        break;
      default: throw new Error(`unknown write ${w.write}`);
    }
  }
}

/**
 * A MemStoreHost that also answers the optional range reads (`messagesIn`, `message`, …) from
 * indexes of its own, and counts its whole-session reads, so a test can see the engine used
 * the range callbacks. `to === null` is an open-ended range.
 */
export class RangeStoreHost extends MemStoreHost {
  constructor() {
    super();
    this.boundarySeqs = new Map(); // session -> Set(seq)
    this.checkpointBytes = new Map(); // session -> Map(checkpoint id -> bytes)
    this.wholeReads = 0;
    this.rangeReads = 0;
  }
  static inRange(seq, from, to) { return seq >= from && (to === null || seq < to); }
  messages(s) { this.wholeReads++; return super.messages(s); }
  checkpoints(s) { this.wholeReads++; return super.checkpoints(s); }
  turns(s) { this.wholeReads++; return super.turns(s); }
  rows(s, table) {
    this.rangeReads++;
    const r = this.sessionsById.get(s);
    if (!r) return [];
    return [...r[table].entries()].sort((a, b) => a[0] - b[0]).map(([seq, [id, body]]) => ({ id, seq, body }));
  }
  message(s, id) { return this.rows(s, 'messages').find((m) => m.id === id) ?? null; }
  messagesIn(s, from, to) { return this.rows(s, 'messages').filter((m) => RangeStoreHost.inRange(m.seq, from, to)); }
  lastMessagesIn(s, from, to, limit) { const rows = this.messagesIn(s, from, to); return rows.slice(Math.max(0, rows.length - limit)); }
  messageCountIn(s, from, to) { return this.messagesIn(s, from, to).length; }
  boundaries(s) { const set = this.boundarySeqs.get(s) ?? new Set(); return this.rows(s, 'messages').filter((m) => set.has(m.seq)); }
  turnsIn(s, from, to) {
    this.rangeReads++;
    const r = this.sessionsById.get(s);
    if (!r) return [];
    return [...r.turns.entries()].map(([id, [seq, body]]) => ({ id, seq, body }))
      .filter((t) => RangeStoreHost.inRange(t.seq, from, to))
      .sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : 1));
  }
  checkpoint(s, id) { return this.rows(s, 'checkpoints').find((c) => c.id === id) ?? null; }
  checkpointsIn(s, from, to) { return this.rows(s, 'checkpoints').filter((c) => RangeStoreHost.inRange(c.seq, from, to)); }
  sessionBytes(s) {
    this.rangeReads++;
    const ids = new Set(this.rows(s, 'checkpoints').map((c) => c.id));
    let sum = 0;
    for (const [id, n] of this.checkpointBytes.get(s) ?? []) if (ids.has(id)) sum += n;
    return sum;
  }
  hasBlob(hash) { this.rangeReads++; return this.blobMap.has(hash); }
  apply(w) {
    if (w.write === 'appendMessage' && w.boundary) {
      if (!this.boundarySeqs.has(w.session)) this.boundarySeqs.set(w.session, new Set());
      this.boundarySeqs.get(w.session).add(w.seq);
    }
    if (w.write === 'putCheckpoint') {
      if (!this.checkpointBytes.has(w.session)) this.checkpointBytes.set(w.session, new Map());
      this.checkpointBytes.get(w.session).set(w.checkpoint, w.bytes ?? 0);
    }
    if (w.write === 'deleteSession') { this.boundarySeqs.delete(w.session); this.checkpointBytes.delete(w.session); }
    super.apply(w);
  }
}
