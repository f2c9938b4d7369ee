// The extension's logic that needs no VS Code: building the tree from the engine's documents,
// the `rewind:` URIs, rebuilding a file from the engine's hunks, and which policies apply. Kept
// apart so `node --test` checks it in milliseconds (test/logic.test.mjs).

export interface Session { id: string; title: string; createdAt: number; current?: boolean; parentId?: string | null }
export interface Message { id: string; seq: number; turnId?: string | null; role: string; kind: string; text?: string; createdAt?: number }
export interface CheckpointFile { path: string; before: string; after: string; undone: boolean }
export interface Checkpoint { checkpointId: string; turnId: string; messageId: string; toolName: string; kind: string; toolInput?: string | null; files: CheckpointFile[] }
export interface DiffLine { kind: 'context' | 'added' | 'removed'; text: string }
export interface DiffHunk { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: DiffLine[] }
export interface DiffFile {
  path: string; action?: string | null; safe: boolean; reason?: string; message?: string;
  mergeable: boolean; forceable: boolean; binary: boolean; large: boolean;
  additions: number; deletions: number; hunks: DiffHunk[];
}
export interface Diff { sessionId: string; files: DiffFile[]; stats: { files: number; additions: number; deletions: number } }

export interface TurnNode {
  number: number; turnId: string; promptId: string; title: string; time?: number;
  checkpoints: Checkpoint[]; files: Map<string, { additions: number; deletions: number; person: boolean }>;
}

/** A prompt's first line, trimmed to fit a tree row. */
export function firstLine(text: string | undefined, max = 60): string {
  const line = (text ?? '').split(/\r?\n/, 1)[0].trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line || '(empty prompt)';
}

/** The current session first, then the newest. */
export function orderSessions(sessions: Session[]): Session[] {
  return [...sessions].sort((a, b) =>
    Number(!!b.current) - Number(!!a.current) || b.createdAt - a.createdAt);
}

/**
 * A session's turns on its branch, newest first: each prompt (numbered as `rewind log` does)
 * with the checkpoints recorded for it and the files they touched. `stats` gives a file's
 * +/− lines where known (from a diff of the turn); external checkpoints mark the person's files.
 */
export function turnsOf(messages: Message[], checkpoints: Checkpoint[]): TurnNode[] {
  const turns: TurnNode[] = [];
  for (const m of messages) {
    if (m.role !== 'user' || m.kind !== 'prompt' || !m.turnId) continue;
    const own = checkpoints.filter((c) => c.turnId === m.turnId);
    const files = new Map<string, { additions: number; deletions: number; person: boolean }>();
    for (const c of own) {
      for (const f of c.files) {
        const seen = files.get(f.path);
        files.set(f.path, { additions: 0, deletions: 0, person: (seen?.person ?? true) && c.kind === 'external' });
      }
    }
    turns.push({
      number: turns.length + 1, turnId: m.turnId, promptId: m.id, title: firstLine(m.text),
      time: m.createdAt, checkpoints: own, files,
    });
  }
  return turns.reverse();
}

/**
 * Put a turn's +/− on its files, from the diff of undoing only that turn (disk → before the
 * turn): the turn's own additions are that undo's deletions, and the other way round.
 */
export function withStats(turn: TurnNode, diff: Diff): TurnNode {
  for (const f of diff.files) {
    const known = turn.files.get(f.path);
    if (known) { known.additions = f.deletions; known.deletions = f.additions; }
  }
  return turn;
}

/** `+3 −1` for a tree row. */
export function statText(s: { additions: number; deletions: number }): string {
  return `+${s.additions} −${s.deletions}`;
}

/**
 * A rewind's line count in the CLI's words: what it writes in the workspace (the diff's
 * `stats`, the same count `rewind preview` and `rewind diff --stat` give).
 */
export function writtenText(s: { additions: number; deletions: number }): string {
  const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
  return `the rewind adds ${lines(s.additions)} and removes ${lines(s.deletions)}`;
}

/** How long ago, as `rewind log` says it. */
export function ago(then: number | undefined, now: number): string {
  if (then === undefined) return '';
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

// ---- rewind: URIs --------------------------------------------------------------------------

/** What a `rewind:` document shows. `side` `now` is disk; `restored` what the target writes. */
export interface DocRef {
  session: string;
  target: { since?: string; turn?: string; checkpoint?: string };
  path: string;
  side: 'restored' | 'conflict';
}

/** The query of a `rewind:` URI for `ref` (its path is the file's, for the editor's title). */
export function encodeRef(ref: DocRef): string {
  return new URLSearchParams({ s: ref.session, t: JSON.stringify(ref.target), side: ref.side, p: ref.path }).toString();
}

/** The reference in a `rewind:` URI's query; throws on one this extension did not make. */
export function decodeRef(query: string): DocRef {
  const q = new URLSearchParams(query);
  const session = q.get('s'), target = q.get('t'), side = q.get('side'), path = q.get('p');
  if (!session || !target || !path || (side !== 'restored' && side !== 'conflict')) {
    throw new Error(`not a rewind document: ${query}`);
  }
  return { session, target: JSON.parse(target), path, side };
}

// ---- rebuilding a file from hunks ----------------------------------------------------------

/**
 * Apply the engine's hunks (disk now → what a restore writes) to the text on disk: the text the
 * restore would write. Throws when a hunk's old side does not match `text` (the disk moved on
 * since the diff was taken), so a stale view is never shown as the truth.
 */
export function applyHunks(text: string, hunks: DiffHunk[]): string {
  const eol = text.endsWith('\n');
  const lines = text === '' ? [] : (eol ? text.slice(0, -1) : text).split('\n');
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    const start = Math.max(0, h.oldStart - (h.oldLines === 0 ? 0 : 1));
    if (start < at) throw new Error('hunks overlap');
    out.push(...lines.slice(at, start));
    at = start;
    for (const l of h.lines) {
      if (l.kind === 'added') { out.push(l.text); continue; }
      if (lines[at] !== l.text) throw new Error(`line ${at + 1} changed since the diff`);
      if (l.kind === 'context') out.push(l.text);
      at++;
    }
  }
  out.push(...lines.slice(at));
  if (out.length === 0) return '';
  // A file that the restore empties or a hunk that adds the last line keeps the disk's ending.
  return out.join('\n') + (eol || hunks.length > 0 ? '\n' : '');
}

// ---- preview and policies ------------------------------------------------------------------

export type Policy = 'block' | 'skip' | 'merge' | 'force';

/**
 * The policies worth offering for a diff, as the CLI's advice does: `block` only when every file
 * is safe; `merge` when some unsafe file is mergeable; `force` when some is forceable; `skip`
 * when some file is safe to restore beside the unsafe ones.
 */
export function policiesFor(diff: Diff): Policy[] {
  const unsafe = diff.files.filter((f) => !f.safe);
  if (unsafe.length === 0) return ['block'];
  const out: Policy[] = [];
  if (unsafe.some((f) => f.mergeable)) out.push('merge');
  if (diff.files.some((f) => f.safe)) out.push('skip');
  if (unsafe.some((f) => f.forceable)) out.push('force');
  return out;
}

export const POLICY_HELP: Record<Policy, string> = {
  block: 'restore every file (no conflicts)',
  skip: 'restore the safe files, leave the conflicted ones as they are',
  merge: 'keep your later edits, undo only the agent\'s change (text files)',
  force: 'overwrite the conflicted files too (undoable)',
};

/** One preview row: the file, what happens, and its conflict when it has one. */
export function previewRow(f: DiffFile): { label: string; description: string; detail?: string } {
  const what = f.action ?? 'unknown';
  if (f.safe) return { label: f.path, description: `${what}  ${statText(f)}` };
  const how = [f.mergeable ? 'mergeable' : '', f.forceable ? 'forceable' : ''].filter(Boolean).join(', ');
  return { label: `$(warning) ${f.path}`, description: `conflict: ${f.reason ?? 'unsafe'}${how ? ` (${how})` : ''}`, detail: f.message };
}
