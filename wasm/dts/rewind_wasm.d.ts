/* tslint:disable */
/* eslint-disable */

/** How to resume the agent's own conversation at the rewound point (a session an agent's hooks recorded). */
export interface AgentResumeCopy {
    /** The agent's file, only read. */
    from: string;
    /** The new file the host writes first (it must not exist). */
    to: string;
    /** Keep its records through the one with this id (null: all of them). */
    through: string | null;
    /** The session id the copy's records carry. */
    sessionId: string;
}
export interface AgentResume {
    /** "claude-code", "qwen-code", "gemini-cli". */
    agent: string;
    /** The command, program first; empty when the agent offers no exact way (see note). */
    argv: string[];
    /** The next prompt goes after argv as one more argument. */
    promptLast: boolean;
    /** The command resumes exactly at the point. */
    exact: boolean;
    /** What the command does, or why there is none. */
    note: string;
    /** A new file to write before running it, when the agent resumes from a copy. */
    copy?: AgentResumeCopy;
}



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
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };


/** `renameSession` options. */
export interface RenameSessionOptions {
    /** The new title: trimmed, then 1 to 500 characters with no control character. */
    title: string;
}
/** What `renameSession` did. */
export interface RenameOutcome {
    sessionId: string;
    /** The title now. */
    title: string;
    previousTitle: string;
    /** False when the title was already this one: nothing was written. */
    changed: boolean;
}
/** `removeSession` options. */
export interface RemoveSessionOptions {
    /** Remove the session's forks and side chats (and theirs) with it; without it a session
     * that has any is refused with `conflict`. */
    withForks?: boolean;
    /** Only plan: say what would be removed, write nothing. */
    dryRun?: boolean;
}
/** One session a removal deletes. */
export interface RemovedSession {
    sessionId: string;
    parentId: string | null;
    kind: SessionKind;
    title: string;
    /** Messages stored, on every branch. */
    messages: number;
    turns: number;
    checkpoints: number;
    operations: number;
}
/** What `removeSession` did (or would do, for a dry run). Blobs are not deleted: `gc` frees
 * the content only removed sessions referenced. */
export interface RemoveOutcome {
    sessionId: string;
    /** The session asked for first, then its forks, parents before children. */
    removed: RemovedSession[];
    /** False for a dry run. */
    applied: boolean;
}



/** `undo` and `redo`: the file part (its `operationId` is the undo's own) and the cursor. */
export interface UndoOutcome extends ApplyOutcome {
    /** The operation taken back. */
    undoneOperationId: string;
    /** It was itself an undo: this re-applied the rewind it undid. */
    redo: boolean;
    /** For a redo: the rewind it re-applied. */
    redoneOperationId?: string;
    /** The conversation cursor put back, when the operation had moved it. */
    conversation?: {
        generation: number;
        /** The prompt the conversation now ends before; null: no rewind is in effect. */
        rewoundTo: string | null;
        agentResume?: AgentResume;
    };
}
/** One entry of the operation log (`rewind_core::model::Operation`). */
export interface Operation {
    id: string;
    sessionId: string;
    kind: OperationKind;
    createdAt: Millis;
    target?: OpTarget;
    policy?: Policy;
    files?: OpFile[];
    undoes?: string;
    journalId?: string;
    branchTarget?: string;
    generation?: number;
    /** gc: the highest seq of the checkpoints it dropped. */
    droppedThrough?: number;
    note?: string;
    /** An operation that moved the conversation cursor: where it stood (what undo puts back). */
    cursorBefore?: CursorBefore;
}
/** Where an operation found the conversation cursor: an undo selects what `branch` selected up to `lastSeq`. */
export interface CursorBefore {
    branch: { ranges: { start: number; end?: number | null }[] };
    lastSeq: number;
    rewoundTo?: string;
}


// ---- inputs -------------------------------------------------------------------------------

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
}

// ---- outputs ------------------------------------------------------------------------------

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



/**
 * The rewind engine over a JS workspace and an in-memory or JS store.
 *
 * @example
 * ```js
 * const engine = Engine.inMemory({ workspace, onCommit: (batch) => log.push(batch) });
 * const { id } = engine.createSession({ title: 'demo' });
 * const { turnId, messageId } = engine.recordPrompt(id, { text: 'rename foo' });
 * ```
 */
export class Engine {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The active conversation branch.
     */
    activeBranch(sessionId: string): ActiveBranch;
    /**
     * Apply a file rewind under a policy.
     */
    applyFileRewind(sessionId: string, opts: ApplyOptions): ApplyOutcome;
    /**
     * Every checkpoint of a session, with undone files marked.
     */
    checkpoints(sessionId: string): CheckpointSummary[];
    /**
     * Every batch an in-memory engine made with `keepLog: true` committed (replayed and new;
     * after a snapshot, the batches since it), in commit order. Without `keepLog` the engine
     * keeps rows, not batches, and this is `unavailable`: persist `snapshot()` instead.
     */
    committedBatches(): Uint8Array[];
    /**
     * Complete a turn (writes its stable boundary).
     */
    completeTurn(sessionId: string, opts: CompleteTurnOptions): CompleteTurnOutcome;
    /**
     * Start a session.
     */
    createSession(opts?: SessionOptions | null): Session;
    /**
     * What a file rewind would write, line by line (disk now → restore), from the same plan
     * `previewFileRewind` and `applyFileRewind` use; for a conflict also the person's change,
     * the agent's change being undone and what `merge` would write. Nothing written.
     */
    diffFileRewind(sessionId: string, opts: TargetOptions): RewindDiff;
    /**
     * Edit the latest prompt (rewinds to before it, then records the new text).
     */
    editLastPrompt(sessionId: string, opts: EditLastPromptOptions): EditPromptOutcome;
    /**
     * Fork a session at a message, checkpoint or turn.
     */
    fork(sessionId: string, opts: ForkOptions): ForkOutcome;
    /**
     * An in-memory engine rebuilt from the batches an earlier one handed to `onCommit`.
     */
    static fromLog(batches: Iterable<Uint8Array>, opts: MemoryEngineOptions): Engine;
    /**
     * An in-memory engine loaded from `engine.snapshot()`, then the batches committed after
     * that snapshot (`batches`, in order; replayed as `fromLog` does). A snapshot that is not
     * one, or of a format this build does not read, is `invalid_input`; a damaged one is
     * `corrupt`. Either way nothing is loaded.
     */
    static fromSnapshot(snapshot: Uint8Array, opts: SnapshotEngineOptions): Engine;
    /**
     * Retention then garbage collection: drop checkpoints past the newest `keep` (default 100)
     * per session (the active branch's first) and sessions idle for `olderThanDays` or
     * `olderThanMs` (default never; 0 is refused, under one hour counts as one hour, a running
     * turn protects its session), then every blob nothing references. `dryRun` only plans.
     */
    gc(opts?: GcOptions | null): GcOutcome;
    /**
     * An engine whose records live in memory; `onCommit(batch)` receives each committed batch.
     */
    static inMemory(opts: MemoryEngineOptions): Engine;
    /**
     * Every session, in creation order.
     */
    listSessions(): Session[];
    /**
     * An engine over a JS store host (`StoreHost`) and a JS workspace host.
     */
    constructor(opts: EngineOptions);
    /**
     * A session's operation log.
     */
    operations(sessionId: string): Operation[];
    /**
     * What a file rewind would do: safe and unsafe files, nothing written.
     */
    previewFileRewind(sessionId: string, opts: TargetOptions): Preview;
    /**
     * Record a compaction summary.
     */
    recordCompaction(sessionId: string, opts: CompactionOptions): MessageOutcome;
    /**
     * Record what a tool changed in one file: its exact bytes before and after.
     */
    recordEdit(sessionId: string, opts: RecordEditOptions): EditOutcome;
    /**
     * Record that a file's before-state could not be captured.
     */
    recordFailedCapture(sessionId: string, opts: FailedCaptureOptions): EditOutcome;
    /**
     * Record a notice.
     */
    recordNotice(sessionId: string, opts: NoticeOptions): MessageOutcome;
    /**
     * Record a prompt; it starts a turn.
     */
    recordPrompt(sessionId: string, opts: PromptOptions): PromptOutcome;
    /**
     * Record the assistant's reply in a turn.
     */
    recordReply(sessionId: string, opts: ReplyOptions): MessageOutcome;
    /**
     * Settle the journals a crash left (one session's, or every session's without an id).
     */
    recover(sessionId?: string | null): RecoverOutcome;
    /**
     * Redo: take back the latest undo still in effect.
     */
    redo(sessionId: string, opts?: RedoOptions): UndoOutcome;
    /**
     * Delete a session and every row it owns, in one commit. A session with forks or side
     * chats is refused (`conflict`, naming them) unless `withForks`; so is one with a running
     * turn or a pending journal. Blobs stay until `gc`; `dryRun` only plans.
     */
    removeSession(sessionId: string, opts?: RemoveSessionOptions | null): RemoveOutcome;
    /**
     * Set a session's title (trimmed; 1 to 500 characters, one line). Nothing else changes; the
     * same title again writes nothing (`changed: false`).
     */
    renameSession(sessionId: string, opts: RenameSessionOptions): RenameOutcome;
    /**
     * A session's derived state: transcript, running turn, undoable operations, diagnostics.
     */
    resume(sessionId: string): ResumeState;
    /**
     * Retry the latest reply.
     */
    retryLastReply(sessionId: string, opts: RetryLastReplyOptions): EditPromptOutcome;
    /**
     * Rewind the conversation to before a prompt.
     */
    rewindConversation(sessionId: string, opts: RewindConversationOptions): ConversationRewindOutcome;
    /**
     * Rewind the conversation, the workspace, or both as one unit.
     */
    rewind(sessionId: string, opts: RewindOptions): RewindOutcome;
    /**
     * Open a side chat.
     */
    sideChat(sessionId: string, opts?: SideChatOptions | null): ForkOutcome;
    /**
     * Take a workspace snapshot in a live turn and record what changed since the session's
     * previous one (the first one only sets the baseline). Needs a workspace host with
     * `list()` and, for `new Engine({ store })`, a store host with `workspaceSnapshot`; without
     * them it is `unavailable` and nothing is written.
     */
    snapshotWorkspace(sessionId: string, opts: SnapshotWorkspaceOptions): SnapshotOutcome;
    /**
     * The whole in-memory store as one compact byte string (versioned and checksummed), for
     * `Engine.fromSnapshot`. Every batch `onCommit` receives after this returns comes after it.
     * Engines over a JS store have none (`unavailable`).
     */
    snapshot(): Uint8Array;
    /**
     * Bytes recorded versus bytes stored.
     */
    stats(): StorageStats;
    /**
     * Undo a rewind (its files and, for a conversation rewind or `both`, the conversation
     * cursor) or an undo; without `operationId`, the latest rewind still in effect.
     */
    undo(sessionId: string, opts?: UndoOptions): UndoOutcome;
    /**
     * What `Engine.fromLog` / `fromSnapshot` left out: one diagnostic per damaged batch (kind
     * `batch`, id = its index in the log). Empty for a whole log and for the other constructors.
     */
    readonly diagnostics: Diagnostic[];
}

/**
 * Panics print their message to `console.error` instead of a bare `unreachable`. A panic
 * aborts the call; the engine it happened in is unusable afterwards (its methods then throw).
 */
export function start(): void;
