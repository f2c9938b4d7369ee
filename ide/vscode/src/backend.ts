// The desktop engine: one `rewind serve --stdio` child per workspace for the engine's verbs
// (JSON-RPC, the store opened per call under its locks), and the CLI's `--json` for the few
// verbs that exist only there (the session list with the current one, undo/redo of "the latest
// rewind", the conflict text of `rewind diff`).

import { spawn, execFile, ChildProcessWithoutNullStreams } from 'node:child_process';
import * as readline from 'node:readline';
import { RewindError, type Backend, type Target } from './engine';
import type { Checkpoint, Diff, Message, Policy, Session } from './logic';

export { RewindError, type Backend, type Target } from './engine';

interface Pending { resolve: (v: unknown) => void; reject: (e: Error) => void }

/** JSON-RPC 2.0 over a `rewind serve --stdio` child, restarted if it dies. */
class StdioRpc {
  private child?: ChildProcessWithoutNullStreams;
  private next = 1;
  private pending = new Map<number, Pending>();
  constructor(private readonly bin: string, private readonly globalArgs: string[], private readonly cwd: string) {}

  private start(): ChildProcessWithoutNullStreams {
    if (this.child && this.child.exitCode === null) return this.child;
    const child = spawn(this.bin, [...this.globalArgs, 'serve', '--stdio'], { cwd: this.cwd });
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.answer(line));
    child.on('exit', () => {
      for (const p of this.pending.values()) p.reject(new RewindError('unavailable', 'rewind serve exited'));
      this.pending.clear();
    });
    child.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(new RewindError('unavailable', `cannot run ${this.bin}: ${e.message}`));
      this.pending.clear();
    });
    this.child = child;
    return child;
  }

  private answer(line: string): void {
    let reply: { id?: number; result?: unknown; error?: { message: string; data?: { code?: string } } };
    try { reply = JSON.parse(line); } catch { return; }
    const p = reply.id === undefined ? undefined : this.pending.get(reply.id);
    if (!p || reply.id === undefined) return;
    this.pending.delete(reply.id);
    if (reply.error) p.reject(new RewindError(reply.error.data?.code ?? 'host_error', reply.error.message));
    else p.resolve(reply.result);
  }

  call<T>(method: string, params: unknown[]): Promise<T> {
    const child = this.start();
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  dispose(): void { this.child?.stdin.end(); }
}

const b64 = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('base64'));

export class DesktopBackend implements Backend {
  private readonly rpc: StdioRpc;
  private readonly globalArgs: string[];
  constructor(private readonly bin: string, private readonly workspace: string, db: string) {
    this.globalArgs = ['--workspace', workspace, ...(db ? ['--db', db] : [])];
    this.rpc = new StdioRpc(bin, this.globalArgs, workspace);
  }

  /** `rewind --json ARGS`: the document, or the CLI's error with its stable code. */
  private cli<T>(args: string[], json = true): Promise<T> {
    const all = [...this.globalArgs, ...(json ? ['--json'] : []), '--color', 'never', ...args];
    return new Promise((resolve, reject) => {
      execFile(this.bin, all, { cwd: this.workspace, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        if (!json) {
          if (err && !stdout) reject(new RewindError('host_error', stderr || err.message));
          else resolve(stdout as unknown as T);
          return;
        }
        let doc: { error?: { code: string; message: string } };
        try { doc = JSON.parse(stdout); } catch {
          reject(new RewindError('host_error', (stderr || err?.message || 'no output').trim()));
          return;
        }
        if (doc.error) reject(new RewindError(doc.error.code, doc.error.message));
        else if (err) reject(new RewindError('host_error', stderr.trim() || err.message));
        else resolve(doc as T);
      });
    });
  }

  sessions() { return this.cli<Session[]>(['session', 'list']); }
  resume(s: string) { return this.rpc.call<{ messages: Message[]; runningTurn?: { turnId: string } | null }>('resume', [s]); }
  checkpoints(s: string) { return this.rpc.call<Checkpoint[]>('checkpoints', [s]); }
  diff(s: string, target: Target, paths: string[] = []) { return this.rpc.call<Diff>('diffFileRewind', [s, { ...target, paths }]); }
  rewind(s: string, scope: 'workspace' | 'conversation' | 'both', to: string, policy: Policy) {
    return this.rpc.call('rewind', [s, scope === 'conversation' ? { scope, to } : { scope, to, policy }]);
  }
  undo(s: string) { return this.cli(['undo', s]); }
  redo(s: string) { return this.cli(['redo', s]); }
  fork(s: string, at: { at?: string; checkpoint?: string }) { return this.rpc.call<{ id?: string }>('fork', [s, at]); }
  recordSave(s: string, turnId: string, path: string, before: Uint8Array | null, after: Uint8Array | null) {
    return this.rpc.call('recordEdit', [s, { turnId, path, toolName: 'save', kind: 'external', before: b64(before), after: b64(after) }]);
  }
  conflictText(s: string, target: Target, path: string) {
    const t = target.since ? ['--since', target.since] : target.turn ? ['--turn', target.turn] : ['--checkpoint', target.checkpoint ?? ''];
    return this.cli<string>(['diff', s, ...t, '--path', path], false);
  }
  dispose() { this.rpc.dispose(); }
}
