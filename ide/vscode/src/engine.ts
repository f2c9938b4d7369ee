// What the view and the commands need of an engine, whichever host runs it: the desktop's
// `rewind serve` child (backend.ts) or the web's wasm engine (web.ts).

import type { Checkpoint, Diff, Message, Policy, Session } from './logic';

export class RewindError extends Error {
  constructor(readonly code: string, message: string) { super(message); }
}

export interface Target { since?: string; turn?: string; checkpoint?: string }

export interface Backend {
  sessions(): Promise<Session[]>;
  resume(session: string): Promise<{ messages: Message[]; runningTurn?: { turnId: string } | null }>;
  checkpoints(session: string): Promise<Checkpoint[]>;
  diff(session: string, target: Target, paths?: string[]): Promise<Diff>;
  rewind(session: string, scope: 'workspace' | 'conversation' | 'both', to: string, policy: Policy): Promise<unknown>;
  undo(session: string): Promise<unknown>;
  redo(session: string): Promise<unknown>;
  fork(session: string, at: { at?: string; checkpoint?: string }): Promise<{ id?: string; sessionId?: string }>;
  recordSave(session: string, turnId: string, path: string, before: Uint8Array | null, after: Uint8Array | null): Promise<unknown>;
  conflictText(session: string, target: Target, path: string): Promise<string>;
  dispose(): void;
}

