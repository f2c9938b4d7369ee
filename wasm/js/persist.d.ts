// Browser persistence: `import { openBrowserEngine } from 'rewind-wasm/persist'`. The engine
// lives in memory; its committed batches (and the store's workspace files) are written behind to
// IndexedDB. See the guarantee on `BrowserEngine.flush`.
import type { Engine, Diagnostic, InitInput, RecoverOutcome, WorkspaceEntry, WorkspaceHost } from './rewind_wasm.js';

export interface BrowserEngineOptions {
  /** The store: its IndexedDB database is `rewind:<name>`. */
  name: string;
  /**
   * Your own workspace host (you persist its files). Left out: the store's `BrowserWorkspace`,
   * kept in the same database and flushed by the same `flush()`.
   */
  workspace?: WorkspaceHost;
  /** Where the .wasm is, for `init()` (default: beside the package's web build). */
  wasm?: InitInput | Promise<InitInput>;
  /** Replace the stored batches with one `engine.snapshot()` once there are this many (default 1000). */
  compactEvery?: number;
  /** How long after a change the write-behind starts, in ms (default 50). */
  writeBehindMs?: number;
  /** How long to wait for another tab or worker to close the store, in ms (default 5000). */
  lockTimeoutMs?: number;
  /** Refuse to load a damaged batch (default true); false skips it, reported in `diagnostics`. */
  strict?: boolean;
}

/** The store's workspace: files in memory, every change written behind with the engine's batches. */
export interface BrowserWorkspace extends WorkspaceHost {
  read(path: string): Uint8Array | null;
  write(path: string, bytes: Uint8Array): void;
  remove(path: string): void;
  list(): WorkspaceEntry[];
  stat(path: string): WorkspaceEntry | null;
  /** Every path, sorted. */
  paths(): string[];
  /** The file as UTF-8 text, or null when absent. */
  readText(path: string): string | null;
  writeText(path: string, text: string): void;
}

export interface BrowserEngine<W extends WorkspaceHost = BrowserWorkspace> {
  readonly name: string;
  /** The real engine (in memory): every committed batch is queued for IndexedDB. */
  readonly engine: Engine;
  /** The store's workspace (a `BrowserWorkspace`), or the one you passed. */
  readonly workspace: W;
  /** The database was empty: nothing was loaded. */
  readonly created: boolean;
  /** What `engine.recover()` settled on open. */
  readonly recovered: RecoverOutcome;
  /**
   * Resolves once every batch the engine committed before the call, and every change to the
   * store's workspace before it, is in IndexedDB (a transaction with durability "strict" that
   * completed). A crash before it resolves loses at most what changed since the last resolved
   * flush, and only a tail: the reloaded state is the state after some earlier engine call,
   * never part of one. Rejects (code `host_error`) when IndexedDB refuses the write; the
   * changes stay queued for the next flush.
   */
  flush(): Promise<void>;
  /** Replace the stored batches with one snapshot now, then flush. */
  compact(): Promise<void>;
  /** Batches since the newest snapshot, changes not yet durable, the next batch's number. */
  readonly stats: { logLength: number; pending: number; nextSeq: number };
  /**
   * Stop writing, free the engine, release the store's lock. Changes not yet written are dropped
   * (as a crash drops them): `await flush()` first.
   */
  close(): void;
}

/**
 * Open (creating when absent) a browser store and the engine over it. Refuses, with a
 * `RewindError`, a database of an unknown layout (`corrupt`), of a newer format (`unavailable`),
 * one whose log or snapshot is damaged (`corrupt`), or one open in another tab (`unavailable`).
 */
export function openBrowserEngine(opts: BrowserEngineOptions & { workspace?: undefined }): Promise<BrowserEngine<BrowserWorkspace>>;
export function openBrowserEngine<W extends WorkspaceHost>(opts: BrowserEngineOptions & { workspace: W }): Promise<BrowserEngine<W>>;

/** Delete a store's database (close it first). */
export function deleteBrowserEngine(name: string): Promise<void>;

/** The IndexedDB database name of a store. */
export function databaseName(name: string): string;

/** Diagnostics are on the engine (`engine.diagnostics`): one per damaged batch a non-strict load skipped. */
export type { Diagnostic };
