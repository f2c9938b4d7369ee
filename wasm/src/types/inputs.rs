//! The TypeScript declarations of the verbs' options.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_INPUTS: &'static str = r#"// ---- inputs -------------------------------------------------------------------------------

export interface SessionOptions {
  /** Defaults to "Untitled session"; at most 500 characters. */
  title?: string | null;
  workspaceLabel?: string | null;
  /** The agent session it records (what `rewind hook` sets). */
  agent?: AgentSession | null;
}
export interface PromptOptions {
  text: string;
  payload?: JsonValue;
}
export interface ReplyOptions {
  turnId: string;
  text: string;
  /** The reply ended in an error: if it is the turn's final reply, the turn gets no stable boundary. */
  error?: boolean;
  payload?: JsonValue;
}
export interface NoticeOptions {
  turnId?: string | null;
  text: string;
  visibleToUi?: boolean;
  /** Default true. */
  visibleToModel?: boolean;
}
export interface CompactionOptions {
  turnId?: string | null;
  text: string;
}
/**
 * One file a tool changed: the exact bytes before and after. Both are required: `null` = the
 * file was absent; a missing (`undefined`) side is an `invalid_input` error.
 */
export interface RecordEditOptions {
  turnId: string;
  path: string;
  before: Uint8Array | null;
  after: Uint8Array | null;
  toolName: string;
  toolCallId?: string | null;
  toolMessageId?: string | null;
  /** Default "edit". */
  kind?: CheckpointKind | null;
  /** Permission bits before the tool ran (e.g. 0o755), when known: a rewind restores them. */
  beforeMode?: number | null;
  /** Permission bits after; read from the workspace host's `mode` when not given. */
  afterMode?: number | null;
}
export interface FailedCaptureOptions {
  turnId: string;
  toolName: string;
  path: string;
  /** e.g. "read_failed", "too_large". */
  reason: string;
}
/** `snapshotWorkspace(sessionId, …)`. */
export interface SnapshotWorkspaceOptions {
  /** The live turn the changes belong to. */
  turnId: string;
  /** The command that ran since the previous snapshot: the checkpoint's `toolInput` (not empty). */
  command?: string | null;
  /** Default "shell". */
  toolName?: string | null;
  toolCallId?: string | null;
  /** The assistant message that issued the call. */
  toolMessageId?: string | null;
  /**
   * Whose the changes found are: "command" (taken after a command: that command's, `shell`),
   * "external" (taken before an agent command, at a turn's start or end: the person's; takes no
   * `command`), or "auto" (default: the command's unless this is the turn's first snapshot).
   */
  attribution?: "command" | "external" | "auto";
}
export interface CompleteTurnOptions {
  turnId: string;
  failed?: boolean;
  roundCount?: number | null;
}
/** Exactly one of `since` (a prompt's message id), `turn` or `checkpoint`; `paths` filters. */
export interface TargetOptions {
  since?: string | null;
  turn?: string | null;
  checkpoint?: string | null;
  paths?: string[];
  /**
   * Also undo the person's own changes that workspace snapshots recorded between turns
   * (`external` checkpoints). Default false: they are kept, and a file both they and the
   * agent's undone changes touched is a conflict.
   */
  includeExternal?: boolean;
}
export interface ApplyOptions extends TargetOptions {
  /** Default "block". */
  policy?: Policy;
}
export interface RewindConversationOptions {
  /** The prompt message to rewind to (it and everything after leave the branch). */
  to: string;
}
export interface RewindOptions {
  scope: Scope;
  to: string;
  policy?: Policy;
  paths?: string[];
}
export interface UndoOptions {
  /** The operation to take back; absent: the latest rewind still in effect. */
  operationId?: string;
  policy?: Policy;
}
export interface RedoOptions {
  policy?: Policy;
}
export interface EditLastPromptOptions {
  messageId: string;
  text: string;
  /** "preserve" (default) keeps the files; "rewind" also rewinds them. */
  workspace?: "preserve" | "rewind";
}
export interface RetryLastReplyOptions {
  messageId: string;
}
/** At most one of `at` (a message id), `checkpoint`, `turn`. */
export interface ForkOptions {
  at?: string | null;
  checkpoint?: string | null;
  turn?: string | null;
  /** Idempotency key: the same command id replays the first result. */
  commandId?: string | null;
  /** "shared" (default) or "restore" (the files go back to the fork point). */
  workspaceMode?: "shared" | "restore";
}
export interface SideChatOptions {
  commandId?: string | null;
}
/** Retention settings for `gc`. */
export interface GcOptions {
  /** Keep the newest N checkpoints of each session (default 100), the active branch's first. */
  keep?: number | null;
  /** Drop sessions idle for more than this many days (default: never; 0 is refused). */
  olderThanDays?: number | null;
  /** The same in milliseconds; under one hour counts as one hour, 0 is refused. */
  olderThanMs?: number | null;
  /** Plan only; delete nothing. */
  dryRun?: boolean;
}"#;
