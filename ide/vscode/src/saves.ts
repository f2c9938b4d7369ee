// The person's saves, recorded as theirs the moment they happen: an `external` checkpoint with
// the exact bytes before (read from disk just before VS Code writes, in onWillSave) and after.
// So a save made while an agent's `rewind exec` runs is left out of the agent's checkpoint, and
// no rewind of the agent's turn takes it.

import * as vscode from 'vscode';
import type { Backend } from './engine';

export interface SaveEvents { recorded(path: string): void; failed(path: string, why: string): void }

export class SaveRecorder implements vscode.Disposable {
  /** What each file was on disk just before a save began (the save's before bytes). */
  private readonly before = new Map<string, Uint8Array | null>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly backend: Backend, private readonly root: vscode.Uri,
    private readonly session: () => string | undefined, private readonly events: SaveEvents) {
    this.subs.push(
      vscode.workspace.onWillSaveTextDocument((e) => {
        const rel = this.relative(e.document.uri);
        if (rel) e.waitUntil(this.read(e.document.uri).then((b) => { this.before.set(rel, b); return []; }));
      }),
      vscode.workspace.onDidSaveTextDocument((d) => { void this.saved(d.uri); }),
    );
  }

  /** `uri` relative to the workspace, or undefined for one outside it or inside the store. */
  private relative(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== 'file' || !uri.path.startsWith(this.root.path + '/')) return undefined;
    const rel = uri.path.slice(this.root.path.length + 1);
    return rel.startsWith('.rewind/') || rel === '.rewind' ? undefined : rel;
  }

  private async read(uri: vscode.Uri): Promise<Uint8Array | null> {
    try { return await vscode.workspace.fs.readFile(uri); } catch { return null; }
  }

  private async saved(uri: vscode.Uri): Promise<void> {
    const rel = this.relative(uri);
    if (!rel || !vscode.workspace.getConfiguration('rewind').get<boolean>('recordSaves', true)) return;
    const session = this.session();
    const before = this.before.get(rel);
    this.before.delete(rel);
    if (!session || before === undefined) return;
    const after = await this.read(uri);
    if (after && before && Buffer.from(after).equals(Buffer.from(before))) return;
    try {
      const resume = await this.backend.resume(session);
      const turn = resume.runningTurn?.turnId ?? [...resume.messages].reverse().find((m) => m.kind === 'prompt')?.turnId;
      // Before the first prompt there is no turn to hang a change on, and nothing to rewind.
      if (!turn) return;
      await this.backend.recordSave(session, turn, rel, before, after);
      this.events.recorded(rel);
    } catch (e) {
      this.events.failed(rel, (e as Error).message);
    }
  }

  dispose(): void { for (const s of this.subs) s.dispose(); }
}
