//! The TypeScript declarations of everything that crosses the boundary. The class methods point
//! at these names through `unchecked_param_type` / `unchecked_return_type`, so the generated
//! `.d.ts` has no `any`. Field names are the core types' serde forms (camelCase), the same as
//! the CLI's `--json` and the JSON scenarios.
//!
//! Four sections, one per file: the hosts and shared names (here), the inputs (`inputs`), the
//! outputs (`outputs`) and how an agent resumes at a rewound point (`agent`).

mod agent;
mod inputs;
mod outputs;
mod sessions;
mod undo;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Stable error codes: `error.code` of every `RewindError`. They never change once published. */
export type ErrorCode =
  | "invalid_input"
  | "invalid_path"
  | "not_found"
  | "conflict"
  | "unavailable"
  | "host_error"
  | "corrupt"
  | "unrecoverable"
  | "untrusted";

/**
 * Every failure is thrown as a real `Error` with `name` "RewindError" and a stable `code`.
 * When a host callback (workspace, store or onCommit) threw, `cause` is the value it threw.
 * A failed call leaves the engine usable: nothing is half-applied (a write that throws in the
 * middle of an apply is rolled back from the journal before the error is reported).
 */
export interface RewindError extends Error {
  name: "RewindError";
  code: ErrorCode;
  cause?: unknown;
}

/**
 * The files the agent works on, as a JS object. Paths are validated, `/`-separated and
 * relative to the workspace root. Throwing from any method reports `host_error` (or, when the
 * thrown value has `code: "invalid_path"`, `invalid_path`) with the thrown value as `cause`.
 */
export interface WorkspaceHost {
  /** The file's bytes, or `null` when it does not exist. */
  read(path: string): Uint8Array | null;
  /** Replace the file (creating parent directories). `bytes` is a copy the host may keep. */
  write(path: string, bytes: Uint8Array): void;
  /** Remove the file; a missing file is fine. */
  remove(path: string): void;
  /**
   * Optional: the file's permission bits (e.g. 0o755), or null when it does not exist. Hosts
   * without modes (a browser) leave it out: nothing is recorded and restores keep the default.
   */
  mode?(path: string): number | null;
  /** Optional: set an existing file's permission bits (a rewind undoing a chmod). */
  setMode?(path: string, mode: number): void;
  /**
   * Optional, for shell capture (`snapshotWorkspace`): every file of the workspace with its
   * stat data, honouring the host's ignore rules (leave out `.git/` and the store's own
   * files). Without it, `snapshotWorkspace` is `unavailable`. A snapshot reads only the files
   * whose stat data changed since the last one. An entry of the wrong shape fails the snapshot
   * with `host_error` before anything is written.
   */
  list?(): WorkspaceEntry[];
  /**
   * Optional: one path's stat data whether an ignore rule matches it or not, or `null` when it
   * does not exist (`path` may be left out of the result). A snapshot asks for the files it
   * tracked that `list()` no longer reports. Without it, a fresh `list()` answers, so a
   * tracked file that `list()` stops reporting counts as deleted.
   */
  stat?(path: string): WorkspaceEntry | null;
  /**
   * Optional, for a host with directories: make the directory and any missing parents, with
   * these permission bits (null: the host's default); an existing one keeps its entries. A
   * rewind makes the directories the rewound changes removed. A host with directories also
   * lists them (`kind: "dir"`) and says so from `stat`; one without (a flat file map) leaves
   * all three out: its directories are only implied by its paths.
   */
  makeDir?(path: string, mode: number | null): void;
  /** Optional: remove an empty directory (a missing one is fine); the engine checks first. */
  removeDir?(path: string): void;
  /** Optional: the names a directory holds (none when it is missing). */
  dirEntries?(path: string): string[];
}

/**
 * One entry of `WorkspaceHost.list()`, named like Node's `fs.Stats`. Fields a host does not
 * have (a browser's file system has no inodes) are left out: they then always compare equal.
 */
export interface WorkspaceEntry {
  /**
   * Relative to the workspace root, `/`-separated. A path the engine refuses (absolute, `..`)
   * is not read: the snapshot lists it in `untracked` with reason `invalid_path`.
   */
  path: string;
  /** Length in bytes. */
  size: number;
  /**
   * Modification time, milliseconds since the epoch (a fraction is kept), on the clock
   * `Date.now()` reads: a file modified within two seconds before `list()` was called may
   * change again unseen within the same timestamp, so the next snapshot reads it again.
   */
  mtimeMs: number;
  /** Permission bits (`fs.Stats.mode` is fine: the file-type bits are ignored). */
  mode?: number | null;
  /** Status-change time, milliseconds (it moves on chmod and when the file is replaced). */
  ctimeMs?: number | null;
  /** The inode (or file id): a replaced file gets a new one. */
  ino?: number | bigint | null;
  /**
   * Default "file". A directory ("dir") is recorded with its mode; links and other entries
   * are listed as untracked, never followed or read.
   */
  kind?: "file" | "dir" | "symlink" | "other" | null;
}

/** One stored record: its key, its sequence number (or insertion order) and its JSON text. */
export interface StoreRow {
  id: string;
  seq: number;
  body: string;
}

/** A stored blob's key and sizes. */
export interface StoreBlobInfo {
  hash: string;
  size: number;
  stored: number;
}

/**
 * A store as a JS object: the Rust `Store` + `StoreWrite` ports. Reads return rows as stored
 * (the engine decodes and verifies them); absence is `null` or `[]`, never a throw.
 * `commit(batch)` receives `Batch::to_bytes` (JSON, blob bytes in base64) and must apply all of
 * it or nothing after checking its preconditions; a failed precondition is thrown as an error
 * whose `code` is `"conflict"`. Any other throw is `host_error`, with the value as `cause`.
 */
export interface StoreHost {
  session(id: string): StoreRow | null;
  /** Every session, in creation order. */
  sessions(): StoreRow[];
  /** A session's messages, by seq. */
  messages(sessionId: string): StoreRow[];
  turn(sessionId: string, turnId: string): StoreRow | null;
  /** A session's turns, by prompt seq. */
  turns(sessionId: string): StoreRow[];
  /** A session's checkpoints, by seq. */
  checkpoints(sessionId: string): StoreRow[];
  /** A session's operations, in commit order. */
  operations(sessionId: string): StoreRow[];
  /** Every pending journal, oldest first. */
  journals(): StoreRow[];
  /** A blob's bytes (the engine verifies the hash). */
  blob(hash: string): Uint8Array | null;
  /** Every stored blob, by hash. */
  blobs(): StoreBlobInfo[];
  /** The highest seq of the session's messages and checkpoints, 0 when none. */
  lastSeq(sessionId: string): number;
  /** The fact recorded for a command (fork, side chat) issued in `parentId`. */
  commandFact(parentId: string, commandId: string): StoreRow | null;
  /** How many batches were committed so far. */
  version(): number;
  /** Apply one batch atomically (see above). */
  commit(batch: Uint8Array): void;

  // Optional range reads. Each one the host has is used instead of reading the whole session
  // (the engine looks them up once, when it is made); each one it lacks is answered from the
  // whole-session reads above. A seq range is `from` (inclusive) to `to` (exclusive), and
  // `to === null` means open-ended. Rows come back by seq, like the whole reads.

  /** One message by id, on any branch. */
  message?(sessionId: string, messageId: string): StoreRow | null;
  /** The messages whose seq is in `from..to`. */
  messagesIn?(sessionId: string, from: number, to: number | null): StoreRow[];
  /** At most `limit` messages in `from..to`: those with the highest seqs, by seq. */
  lastMessagesIn?(sessionId: string, from: number, to: number | null, limit: number): StoreRow[];
  /** How many messages are in `from..to`. */
  messageCountIn?(sessionId: string, from: number, to: number | null): number;
  /** The compaction summaries: messages committed with `boundary: true`, by seq. */
  boundaries?(sessionId: string): StoreRow[];
  /** The turns whose prompt seq is in `from..to`, by prompt seq. */
  turnsIn?(sessionId: string, from: number, to: number | null): StoreRow[];
  /** One checkpoint by id. */
  checkpoint?(sessionId: string, checkpointId: string): StoreRow | null;
  /** The checkpoints whose seq is in `from..to`. */
  checkpointsIn?(sessionId: string, from: number, to: number | null): StoreRow[];
  /** The sum of the `bytes` of the session's stored `putCheckpoint` writes. */
  sessionBytes?(sessionId: string): number;
  /** Whether the store holds a blob (no bytes read). */
  hasBlob?(hash: string): boolean;

  /**
   * Optional, for shell capture: the session's latest workspace snapshot, i.e. the `body` of
   * the last `putWorkspaceSnapshot` write committed for it (one row per session, replaced by
   * the next one, removed by `deleteSession`), or `null`. Without it the store keeps no
   * snapshots: `snapshotWorkspace` is `unavailable`, and the other verbs read "none".
   */
  workspaceSnapshot?(sessionId: string): StoreRow | null;
}

/** `new Engine({ store, workspace })`. */
export interface EngineOptions {
  store: StoreHost;
  workspace: WorkspaceHost;
}

/**
 * `Engine.inMemory({ workspace, onCommit })` / `Engine.fromLog(batches, { workspace, onCommit })`.
 *
 * Durability: the records live in memory. `onCommit(batch)` receives every committed batch,
 * in order, as bytes, after it is committed, so a browser host can persist it asynchronously
 * (IndexedDB, OPFS, a server). Until the host has persisted a batch, a crash or a closed tab
 * loses it. To load, feed the persisted batches back in the same order with `Engine.fromLog`,
 * then call `recover()` to settle an apply a crash interrupted. If `onCommit` throws, the batch
 * stays committed in memory and the call throws `host_error` afterwards (the host's log now
 * lacks that batch: persist `engine.snapshot()` in place of the log).
 *
 * A long session reloads faster from a snapshot: now and then store `engine.snapshot()` and
 * drop the persisted batches; keep every batch `onCommit` delivers after `snapshot()` returned;
 * reload with `Engine.fromSnapshot(snapshot, { workspace, batches })`.
 */
export interface MemoryEngineOptions {
  workspace: WorkspaceHost;
  onCommit?: (batch: Uint8Array) => void;
  /**
   * `Engine.fromLog` / `fromSnapshot` only. By default a torn last batch (a crash mid-write) is
   * dropped and an undecodable or inapplicable batch in the middle is skipped, each reported in
   * `engine.diagnostics`; `strict: true` fails with `corrupt` on the first damaged batch.
   */
  strict?: boolean;
  /**
   * Also keep every committed batch (replayed ones included) for `committedBatches()`. Off by
   * default: the engine keeps its rows, and a second copy of every batch would double memory.
   */
  keepLog?: boolean;
}

/** `Engine.fromSnapshot(snapshot, { workspace, onCommit, batches })`. */
export interface SnapshotEngineOptions extends MemoryEngineOptions {
  /** The batches `onCommit` delivered after the snapshot was taken, in order. */
  batches?: Iterable<Uint8Array>;
}

export type Millis = number;
export type Policy = "block" | "skip" | "merge" | "force";
/** `shell`: a command's effects, seen by two workspace snapshots in one turn; `external`: the
 * person's changes between turns, kept by a rewind unless `includeExternal` is set. */
export type CheckpointKind = "edit" | "write" | "shell" | "external" | "manual";
export type SessionKind = "interactive" | "fork" | "side_chat";
export type Role = "user" | "assistant" | "system" | "tool";
export type MessageKind = "prompt" | "reply" | "tool_result" | "summary" | "notice" | "reminder" | "timeline";
export type TurnStatus = "running" | "completed" | "failed";
export type FileAction = "restore" | "delete";
export type Scope = "conversation" | "workspace" | "both";
export type UnsafeReason = "external_modified" | "checkpoint_unreadable" | "file_read_failed" | "unsupported_checkpoint" | "directory_not_empty";
export type OperationKind = "file_rewind" | "conversation_rewind" | "both" | "undo" | "apply_failed" | "recovery" | "fork" | "side_chat" | "gc";
/** Any JSON value (message payloads). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };"#;
