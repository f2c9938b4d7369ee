// Type-checked (tsc --noEmit, strict) by scripts/test: the declarations describe every input,
// output and host interface, and wrong uses are rejected.
import {
  Engine,
  type ApplyOutcome,
  type CheckpointKind,
  type ErrorCode,
  type GcOutcome,
  type Preview,
  type RewindError,
  type SnapshotOutcome,
  type StorageStats,
  type StoreHost,
  type WorkspaceEntry,
  type WorkspaceHost,
} from 'rewind-wasm';
import init, { Engine as WebEngine } from 'rewind-wasm/web';
import { openBrowserEngine, deleteBrowserEngine, type BrowserEngine, type BrowserWorkspace } from 'rewind-wasm/persist';

const files = new Map<string, Uint8Array>();
const workspace: WorkspaceHost = {
  read: (path) => files.get(path) ?? null,
  write: (path, bytes) => {
    files.set(path, bytes);
  },
  remove: (path) => {
    files.delete(path);
  },
};
const log: Uint8Array[] = [];
const engine = Engine.inMemory({ workspace, onCommit: (batch) => log.push(batch) });
const { id, title } = engine.createSession({ title: 'typed' });
const t: string = title;
const { turnId, messageId, seq } = engine.recordPrompt(id, { text: 'go' });
const n: number = seq;
const edit = engine.recordEdit(id, {
  turnId,
  path: 'a.ts',
  before: null,
  after: new TextEncoder().encode('x'),
  toolName: 'Write',
});
const hash: string | null = edit.files[0].after;
engine.recordReply(id, { turnId, text: 'done' });
const done = engine.completeTurn(id, { turnId });
const boundary: string | undefined = done.boundary?.boundaryMessageId;
const preview: Preview = engine.previewFileRewind(id, { since: messageId, paths: ['a.ts'] });
const ok: boolean = preview.canApply && preview.unsafeFiles.every((f) => f.mergeable);
const applied: ApplyOutcome = engine.applyFileRewind(id, { since: messageId, policy: 'merge' });
if (applied.operationId !== null) engine.undo(id, { operationId: applied.operationId });
engine.rewind(id, { scope: 'both', to: messageId });
const fork = engine.fork(id, { at: messageId, workspaceMode: 'restore' });
const swept: GcOutcome = engine.gc({ keep: 50, olderThanDays: 30, dryRun: true });
const freed: number = swept.plan.totals.blobs.bytes;
const storage: StorageStats = engine.stats();
const ratio: number = storage.logicalBytes / Math.max(1, storage.storedBytes);
void freed;
void ratio;
// @ts-expect-error keep is a number
engine.gc({ keep: 'all' });
// Optional arguments are optional: every field of GcOptions and SideChatOptions has a default.
const defaults: GcOutcome = engine.gc();
const side: string = engine.sideChat(id).childId;
void defaults;
void side;
const child: string = fork.childId;
const state = engine.resume(child);
const running: string | null = state.runningTurn;
engine.recover();
const again = Engine.fromLog(log, { workspace });
const sessions = again.listSessions().map((s) => s.kind);
const ops = again.operations(id).map((o) => o.kind);

try {
  engine.recordPrompt(id, { text: '' });
} catch (e) {
  const err = e as RewindError;
  const code: ErrorCode = err.code;
  const cause: unknown = err.cause;
  void code;
  void cause;
}

const snapshot: Uint8Array = again.snapshot();
const tail: Uint8Array[] = [];
const reloaded = Engine.fromSnapshot(snapshot, { workspace, batches: tail, strict: false, keepLog: true });
const kept: Uint8Array[] = reloaded.committedBatches();
void kept;
// @ts-expect-error: the snapshot is bytes
Engine.fromSnapshot('snapshot', { workspace });

declare const store: StoreHost;
const withStore = new Engine({ store, workspace });
withStore.free();
// The range reads are optional callbacks; an open-ended range has `to === null`.
const ranged: StoreHost = {
  ...store,
  messagesIn: (sessionId: string, from: number, to: number | null) => store.messages(sessionId).filter((r) => r.seq >= from && (to === null || r.seq < to)),
  hasBlob: (hash: string) => store.blob(hash) !== null,
};
void ranged;
// @ts-expect-error: a count is a number
const badRanged: StoreHost = { ...store, messageCountIn: () => 'many' };
void badRanged;

// Shell capture: a workspace that lists its files with stat data, a store that keeps snapshots.
const listed: WorkspaceHost = {
  ...workspace,
  list: (): WorkspaceEntry[] => [...files].map(([path, b]) => ({ path, size: b.length, mtimeMs: 1.5, ino: 7n })),
  stat: (path) => (files.has(path) ? { path, size: 0, mtimeMs: 0, mode: 0o100644, kind: 'file' } : null),
};
const shot: SnapshotOutcome = Engine.inMemory({ workspace: listed }).snapshotWorkspace(id, { turnId, command: 'make', attribution: 'command' });
const shotKind: 'shell' | 'external' | null = shot.kind;
const shotPaths: string[] = [...shot.created, ...shot.modified, ...shot.deleted, ...shot.untracked.map((u) => u.reason)];
const kinds: CheckpointKind[] = engine.checkpoints(id).map((c) => c.kind);
const toolInput: string | undefined = engine.checkpoints(id)[0]?.toolInput;
engine.previewFileRewind(id, { since: messageId, includeExternal: true });
const diff = engine.diffFileRewind(id, { since: messageId });
const conflictLines: string[] = diff.files
  .filter((f) => !f.safe && f.mergeable)
  .flatMap((f) => [...(f.personChange ?? []), ...(f.agentChange ?? [])])
  .flatMap((h) => h.lines.filter((l) => l.kind !== 'context').map((l) => l.text));
const diffAction: 'restore' | 'create' | 'delete' | null = diff.files[0]?.action ?? null;
void [conflictLines, diffAction, diff.stats.additions];
const modes = engine.operations(id).flatMap((o) => o.files ?? []).map((f) => f.beforeMode ?? f.afterMode);
const keeping: StoreHost = { ...store, workspaceSnapshot: (sessionId: string) => store.session(sessionId) };
void [shotKind, shotPaths, kinds, toolInput, modes, keeping];
// @ts-expect-error: an entry is a file, a directory, a symlink or other
const badEntry: WorkspaceEntry = { path: 'a', size: 1, mtimeMs: 1, kind: 'folder' };
void badEntry;
// @ts-expect-error: a snapshot belongs to a turn
engine.snapshotWorkspace(id, { command: 'make' });

async function browser(): Promise<void> {
  await init();
  const web = WebEngine.inMemory({ workspace });
  web.createSession();
  // Browser persistence: the engine in memory, written behind to IndexedDB.
  const store: BrowserEngine = await openBrowserEngine({ name: 'ide', compactEvery: 500 });
  const ws: BrowserWorkspace = store.workspace;
  const own = await openBrowserEngine({ name: 'own', workspace });
  const mine: WorkspaceHost = own.workspace;
  // @ts-expect-error: your own workspace has no readText
  own.workspace.readText('a.ts');
  void mine;
  ws.writeText('a.ts', 'x');
  const text: string | null = ws.readText('a.ts');
  const s = store.engine.createSession({ title: 'ide' });
  store.engine.recordPrompt(s.id, { text: text ?? '' });
  await store.flush();
  await store.compact();
  const pending: number = store.stats.pending;
  store.close();
  await deleteBrowserEngine('ide');
  void pending;
  // @ts-expect-error: a store needs a name
  await openBrowserEngine({});
}

// Wrong uses must not type-check.
// @ts-expect-error: bytes are Uint8Array, not strings
engine.recordEdit(id, { turnId, path: 'a', before: 'x', after: null, toolName: 'E' });
// @ts-expect-error: unknown policy
engine.applyFileRewind(id, { since: messageId, policy: 'yolo' });
// @ts-expect-error: the session id comes first
engine.recordPrompt({ text: 'x' });
// @ts-expect-error: a workspace needs remove()
Engine.inMemory({ workspace: { read: () => null, write: () => {} } });

void [t, n, hash, boundary, ok, child, running, sessions, ops, browser];
