//! The TypeScript declarations of what the verbs return.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_OUTPUTS: &'static str = r#"// ---- outputs ------------------------------------------------------------------------------

export interface SeqRange {
  start: number;
  end: number | null;
}

/** An agent's own session, as its hooks name it. */
export interface AgentSession {
  agent: string;
  sessionId: string;
}
export interface Session {
  id: string;
  parentId: string | null;
  kind: SessionKind;
  title: string;
  traceId: string;
  workspaceLabel: string | null;
  /** The agent session it records, when an agent's hooks made it. */
  agent?: AgentSession;
  createdAt: Millis;
  branch: { ranges: SeqRange[] };
  generation: number;
  rewoundTo: string | null;
  /** The highest seq the session ever used (absent while 0); it only grows. */
  seqHighWater?: number;
}
export interface PromptOutcome {
  turnId: string;
  messageId: string;
  seq: number;
}
export interface MessageOutcome {
  messageId: string;
  seq: number;
}
export interface RecordedFile {
  path: string;
  before: string | null;
  after: string | null;
  additions: number;
  deletions: number;
  captureFailed?: string;
}
export interface EditOutcome {
  checkpointId: string;
  seq: number;
  files: RecordedFile[];
}
export interface StableBoundary {
  orderedMessageIds: string[];
  boundaryMessageId: string;
  roundCount: number;
}
export interface CompleteTurnOutcome {
  turnId: string;
  status: TurnStatus;
  /** Null when the turn's final assistant reply errored (or there was none): no stable point. */
  boundary: StableBoundary | null;
}
export interface Diagnostic {
  kind: string;
  id: string;
  seq: number;
  reason: string;
}
export interface MessageView {
  id: string;
  seq: number;
  turnId: string | null;
  role: Role;
  kind: MessageKind;
  visibleToUi: boolean;
  visibleToModel: boolean;
  text: string;
}
export interface ActiveBranch {
  sessionId: string;
  generation: number;
  messages: MessageView[];
  modelHistory: string[];
  diagnostics: Diagnostic[];
}
/** Lines a rewind writes (added back / removed; disk now → restored): a preview's `stats` and files, as `RewindDiff` counts them. */
export type LineCounts = { additions: number; deletions: number };
export interface SafeFile extends LineCounts {
  path: string;
  action: FileAction;
  operationCount: number;
  toolNames: string[];
  /** Too large for a patch (over 1 MiB): the preview's line counts leave it out. */
  large?: boolean;
}
export interface UnsafeFile extends LineCounts {
  path: string;
  reason: UnsafeReason;
  currentHash: string | null;
  expectedHash: string | null;
  message: string;
  operationCount: number;
  toolNames: string[];
  /** `merge` would keep the user's edits and still undo the agent's change. */
  mergeable: boolean;
  /** Too large for a patch (over 1 MiB): the preview's line counts leave it out. */
  large?: boolean;
  /** `force` would restore it: the content to restore is known (journaled, so undoable). */
  forceable: boolean;
}
export interface Preview {
  sessionId: string;
  /** Nothing unsafe and at least one file to restore. */
  canApply: boolean;
  safeFiles: SafeFile[];
  unsafeFiles: UnsafeFile[];
  /** Paths that already hold what the rewind would restore: not written, not counted. */
  unchangedFiles: string[];
  revertedPaths: string[];
  stats: { files: number; checkpoints: number; additions: number; deletions: number };
}
/** What a rewind does to a file in a `RewindDiff`. */
export type DiffAction = "restore" | "create" | "delete";
/** One line of a hunk: its text without the `\n` (a CRLF line keeps its `\r`). */
export interface DiffLine {
  kind: "context" | "added" | "removed";
  text: string;
  /** The last line of its side and has no final newline (absent when false). */
  noNewline?: boolean;
}
/** A unified-diff hunk with 3 lines of context; starts are 1-based, as in jsdiff. */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}
/** One file a rewind would touch: disk now → what the rewind writes. */
export interface FileDiff {
  /** The file, or `checkpoint:<id>` for a checkpoint row that cannot be read. */
  path: string;
  /** Null when the content to restore is unknown. */
  action: DiffAction | null;
  /** A `block` apply writes it (the preview lists it under `safeFiles`). */
  safe: boolean;
  reason?: UnsafeReason;
  message?: string;
  mergeable: boolean;
  forceable: boolean;
  /** A side is not text: no hunks. */
  binary: boolean;
  /** A side is over 1 MiB: no hunks. */
  large: boolean;
  oldMode?: number;
  newMode?: number;
  additions: number;
  deletions: number;
  /** Disk now → what a restore writes (for an unsafe file: what `force` would write). */
  hunks: DiffHunk[];
  /** A file changed after the agent: what the agent left → what was found instead. */
  personChange?: DiffHunk[];
  /** A file changed after the agent: the agent's change being undone. */
  agentChange?: DiffHunk[];
  /** A mergeable file: disk now → what `merge` would write. */
  mergeHunks?: DiffHunk[];
}
export interface RewindDiff {
  sessionId: string;
  files: FileDiff[];
  unchangedFiles: string[];
  revertedPaths: string[];
  stats: { files: number; additions: number; deletions: number };
}
export interface RestoredFile {
  path: string;
  action: FileAction;
  merged: boolean;
  forced: boolean;
}
export interface ApplyOutcome {
  applied: boolean;
  operationId: string | null;
  restoredFiles: RestoredFile[];
  skippedFiles: string[];
  /** Paths that already held their target: not written. */
  unchangedFiles: string[];
  /** Why nothing was applied (a failed write, rolled back), or null. */
  cause: string | null;
  preview: Preview;
}
export interface Evaluation {
  available: boolean;
  allowedScopes: Scope[];
  strategy: "active_chain" | "file_only" | "unavailable";
  targetStatus: "active_chain" | "covered_by_compact" | "missing";
  reason: string;
  compactBoundaryId: string | null;
}
export interface ConversationRewindOutcome {
  rewound: boolean;
  operationId: string;
  targetMessageId: string;
  requestedMessageId: string;
  generation: number;
  keptMessageCount: number;
  removedTurnIds: string[];
  evaluation: Evaluation;
  agentResume?: AgentResume;
}
export interface BothRewindOutcome extends ApplyOutcome {
  rewound: boolean;
  targetMessageId: string;
  generation: number | null;
  evaluation: Evaluation;
  agentResume?: AgentResume;
}
/** By scope: conversation → ConversationRewindOutcome, workspace → ApplyOutcome, both → BothRewindOutcome. */
export type RewindOutcome = ConversationRewindOutcome | ApplyOutcome | BothRewindOutcome;
export interface EditPromptOutcome {
  disposition: "rewind" | "blocked";
  reasonCode: string | null;
  turnId: string | null;
  messageId: string | null;
  text: string;
  operationId: string | null;
  preview: Preview | null;
  agentResume?: AgentResume;
}
export interface ForkOutcome {
  childId: string;
  kind: SessionKind;
  copiedMessages: number;
  copiedCheckpoints: number;
  restoredFiles: RestoredFile[];
  commandId: string;
  operationId: string | null;
  /** The command id had run before: this is that first result, nothing was written. */
  replayed: boolean;
  agentResume?: AgentResume;
}
/** A path a snapshot saw but does not store. */
export interface UntrackedFile {
  path: string;
  /** "too_large", "symlink", "special", or the host's reason ("invalid_path"). */
  reason: string;
}
/** What `snapshotWorkspace` did. */
export interface SnapshotOutcome {
  /** The checkpoint it recorded, or null when nothing changed (or this was the baseline). */
  checkpointId: string | null;
  /** "shell" (the agent's changes) or "external" (the person's), when it recorded one. */
  kind: "shell" | "external" | null;
  /** The session's first snapshot: it set the baseline and recorded nothing. */
  baseline: boolean;
  created: string[];
  /** Content or mode changed. */
  modified: string[];
  deleted: string[];
  /** Changes whose before or after is not stored (too large, a link): a rewind reports them as unsupported. */
  uncaptured: string[];
  untracked: UntrackedFile[];
  /** Files tracked now. */
  files: number;
  /** Files read and hashed again. */
  reread: number;
  /** Files whose stat data vouched for them (not read). */
  skipped: number;
  /** Of the re-read files, those read only because their last read was racy. */
  racy: number;
  /** The manifest blob's hash. */
  manifest: string;
}
export interface CheckpointFile {
  path: string;
  /** Hash, or "missing" (the file did not exist); null when unknown: the capture failed. */
  before: string | null;
  /** Hash, or "missing" (deleted); null when the capture failed and recorded no after-state. */
  after: string | null;
  undone: boolean;
  /** Why the capture failed (e.g. "too_large", "read_failed"); absent when it did not. */
  captureFailed?: string;
}
export interface CheckpointSummary {
  checkpointId: string;
  turnId: string;
  messageId: string;
  toolName: string;
  kind: CheckpointKind;
  /** What the tool was asked to do, when recorded (a shell checkpoint's command line). */
  toolInput?: string;
  files: CheckpointFile[];
}
export interface ResumeState {
  session: Session;
  messages: MessageView[];
  modelHistory: string[];
  turnNumber: number;
  runningTurn: string | null;
  activeCheckpoints: CheckpointSummary[];
  undoableOperations: string[];
  pendingJournals: string[];
  diagnostics: Diagnostic[];
}
export interface Recovered {
  journalId: string;
  sessionId: string;
  action: "finished" | "rolled_back";
  operationId: string;
  restoredPaths: string[];
  leftPaths: string[];
}
/** A journal `recover` could not settle (it stays pending), with the path and the reason. */
export interface StuckJournal {
  journalId: string;
  sessionId: string;
  path: string | null;
  reason: string;
}
export interface RecoverOutcome {
  recovered: Recovered[];
  /** Journals that could not be settled; they stay pending and are tried again next time. */
  stuck: StuckJournal[];
  /** Journals left alone because the process that owns them may still be running. */
  live: string[];
  diagnostics: Diagnostic[];
}
export type OpTarget =
  | { type: "since"; message_id: string }
  | { type: "turn"; turn_id: string }
  | { type: "checkpoint"; checkpoint_id: string }
  | { type: "operation"; operation_id: string };
export interface OpFile {
  path: string;
  action: FileAction;
  before: string | null;
  after: string | null;
  /** Permission bits before, when the host has modes: an undo puts them back. */
  beforeMode?: number;
  /** Permission bits the operation left, when known. */
  afterMode?: number;
  undid?: string[];
  merged?: boolean;
  forced?: boolean;
}
export interface GcTally {
  count: number;
  /** Bytes they take in the store (blobs only). */
  bytes: number;
}
export interface GcPlan {
  sessions: string[];
  checkpoints: { sessionId: string; checkpointId: string; seq: number }[];
  blobs: string[];
  totals: { sessions: GcTally; checkpoints: GcTally; blobs: GcTally };
  /** Old sessions kept, and why ("pending_journal" | "live_child"). */
  protected: { sessionId: string; reason: "pending_journal" | "running_turn" | "live_child" }[];
  /** The idle age sessions were measured against (after the one-hour floor), or null. */
  olderThanMs: number | null;
  /** Rows that do not decode; while there are any, no blob is deleted. */
  undecodableRows: number;
}
export interface GcOutcome {
  plan: GcPlan;
  applied: boolean;
  batches: number;
}
export interface StorageStats {
  sessions: number;
  checkpoints: number;
  fileChanges: number;
  /** Every before and after of every change, in full. */
  logicalBytes: number;
  /** Distinct contents (stored once). */
  uniqueBytes: number;
  /** What the store holds for them. */
  storedBytes: number;
  blobs: number;
}
"#;
