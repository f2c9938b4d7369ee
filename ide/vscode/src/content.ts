// `rewind:` documents: what a rewind target would write to a file (the disk now with the
// engine's hunks applied, so the editor's diff shows exactly what the apply writes), and a
// conflict's text as the CLI's `rewind diff` prints it.

import * as vscode from 'vscode';
import type { Backend, Target } from './engine';
import { applyHunks, decodeRef, encodeRef, type DocRef } from './logic';

export const SCHEME = 'rewind';

export class RewindDocuments implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Set<string>();

  constructor(private readonly backend: Backend, private readonly root: vscode.Uri) {}

  /** The store or the disk moved: every open `rewind:` document is read again. */
  refresh(): void { for (const u of this.open) this.changed.fire(vscode.Uri.parse(u)); }

  uri(ref: DocRef): vscode.Uri {
    const u = vscode.Uri.from({ scheme: SCHEME, path: '/' + ref.path, query: encodeRef(ref) });
    this.open.add(u.toString());
    return u;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ref = decodeRef(uri.query);
    if (ref.side === 'conflict') return this.backend.conflictText(ref.session, ref.target, ref.path);
    const disk = await this.diskText(ref.path);
    const diff = await this.backend.diff(ref.session, ref.target, [ref.path]);
    const file = diff.files.find((f) => f.path === ref.path);
    if (!file) return disk ?? '';
    if (file.action === 'delete') return '';
    if (file.binary || file.large) return `(rewind: ${ref.path} is ${file.binary ? 'binary' : 'too large'}; no text diff)`;
    return applyHunks(disk ?? '', file.hunks);
  }

  private async diskText(path: string): Promise<string | undefined> {
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.root, path)));
    } catch { return undefined; }
  }
}

/** Open `path` in a diff editor: the disk now against what `target` would write. */
export async function openRewindDiff(docs: RewindDocuments, root: vscode.Uri, session: string, target: Target,
  path: string, title: string, direction: 'change' | 'rewind'): Promise<void> {
  const restored = docs.uri({ session, target, path, side: 'restored' });
  const disk = vscode.Uri.joinPath(root, path);
  // A turn's change reads old → new (restored → disk); a rewind reads now → after (disk → restored).
  const [left, right] = direction === 'change' ? [restored, disk] : [disk, restored];
  await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
}

/** Open a conflict's text as `rewind diff` prints it. */
export async function openConflict(docs: RewindDocuments, session: string, target: Target, path: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(docs.uri({ session, target, path, side: 'conflict' }));
  await vscode.languages.setTextDocumentLanguage(doc, 'diff');
  await vscode.window.showTextDocument(doc, { preview: false });
}
