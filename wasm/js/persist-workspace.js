// The workspace of a browser store: files in memory (the engine's WorkspaceHost, synchronous as
// the engine needs), each change handed to the store, which writes it behind to IndexedDB with
// the engine's batches (the same transactions, so files and records stay of one moment).
// Has list()/stat() so `engine.snapshotWorkspace` (shell capture) works; no modes.

const enc = new TextEncoder();
const dec = new TextDecoder();

export class BrowserWorkspace {
  #files; // path -> { bytes, mtimeMs }
  #changed; // (path, entry | null) => void, or null once the store is closed
  #clock = 0;

  /** @param files the stored entries; @param changed told of every change */
  constructor(files, changed) {
    this.#files = new Map(files);
    this.#changed = changed;
    for (const f of this.#files.values()) this.#clock = Math.max(this.#clock, f.mtimeMs);
  }

  read(path) {
    const f = this.#files.get(path);
    return f === undefined ? null : f.bytes.slice();
  }

  write(path, bytes) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`write(${path}): bytes must be a Uint8Array`);
    // Every change gets a later mtime than the one before (the clock never repeats a value), so
    // a snapshot's stat comparison sees it even within one millisecond.
    this.#clock = Math.max(Date.now(), this.#clock + 1);
    const entry = { bytes: bytes.slice(), mtimeMs: this.#clock };
    this.#notify(path, entry);
    this.#files.set(path, entry);
  }

  remove(path) {
    if (!this.#files.has(path)) return;
    this.#notify(path, null);
    this.#files.delete(path);
  }

  list() {
    return this.paths().map((p) => this.stat(p));
  }

  stat(path) {
    const f = this.#files.get(path);
    return f === undefined ? null : { path, size: f.bytes.length, mtimeMs: f.mtimeMs };
  }

  /** Every path, sorted. */
  paths() {
    return [...this.#files.keys()].sort();
  }

  /** The file as UTF-8 text, or null. */
  readText(path) {
    const b = this.read(path);
    return b === null ? null : dec.decode(b);
  }

  writeText(path, text) {
    this.write(path, enc.encode(text));
  }

  /** The store closed: later changes would not persist, so they are refused. */
  detach() {
    this.#changed = null;
  }

  #notify(path, entry) {
    if (this.#changed === null) throw new Error(`the rewind store of this workspace is closed: ${path} was not changed`);
    this.#changed(path, entry);
  }
}
