// rewind-node: the durable Engine for Node. Its methods are the wasm package's, declared here
// by picking them from the wasm `Engine` declarations (scripts/build-node copies those beside
// this file as rewind_wasm.d.ts), so the two cannot drift apart; every option and outcome type
// is the wasm package's too.
import type { Engine as WasmEngine } from './rewind_wasm';

export type * from './rewind_wasm';

/** The methods of `Engine`: the wasm `Engine`'s, less its in-memory constructors and log. */
export type EngineMethod =
  | 'createSession'
  | 'listSessions'
  | 'recordPrompt'
  | 'recordReply'
  | 'recordNotice'
  | 'recordCompaction'
  | 'recordEdit'
  | 'recordFailedCapture'
  | 'snapshotWorkspace'
  | 'completeTurn'
  | 'activeBranch'
  | 'previewFileRewind'
  | 'diffFileRewind'
  | 'applyFileRewind'
  | 'rewindConversation'
  | 'rewind'
  | 'undo'
  | 'redo'
  | 'editLastPrompt'
  | 'retryLastReply'
  | 'fork'
  | 'sideChat'
  | 'resume'
  | 'recover'
  | 'checkpoints'
  | 'operations'
  | 'gc'
  | 'stats'
  | 'renameSession'
  | 'removeSession';

/** `Engine.open` options. */
export interface OpenOptions {
  /** The database file; default `<workspaceDir>/.rewind/rewind.db`, the CLI's. */
  db?: string | null;
}

export interface Engine extends Pick<WasmEngine, EngineMethod> {}

/**
 * The rewind engine over the CLI's SQLite store and the real workspace directory. Each call
 * opens the store with the rights its verb needs, exactly as the CLI does for the same command,
 * so Node programs and the CLI can use one store at once. Errors are `Error`s named
 * `RewindError` with a stable `code`.
 *
 * @example
 * ```js
 * const { Engine } = require('rewind-node');
 * const engine = Engine.open('/path/to/project');
 * const { id } = engine.createSession({ title: 'demo' });
 * const { turnId } = engine.recordPrompt(id, { text: 'rename foo' });
 * ```
 */
export declare class Engine {
  private constructor();
  /** Open a workspace directory and its store (nothing is created until a call records). */
  static open(workspaceDir: string, options?: OpenOptions | null): Engine;
  /** The workspace directory (absolute). */
  readonly workspace: string;
  /** The database file (absolute). */
  readonly db: string;
  /** Refuse further calls (`unavailable`). */
  close(): void;
}

/** The method names, in the addon dispatcher's order. */
export declare const methods: readonly EngineMethod[];

declare const _default: { Engine: typeof Engine; methods: typeof methods };
export default _default;
