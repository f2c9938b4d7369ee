// The quick-diff gutter against a chosen turn: a source control whose original resource for a
// file is what rewinding to before that turn would write, so the editor's gutter marks every
// line changed since then (the agent's and the person's alike).

import * as vscode from 'vscode';
import type { RewindDocuments } from './content';

export class GutterBaseline implements vscode.QuickDiffProvider, vscode.Disposable {
  private readonly scm: vscode.SourceControl;
  private target?: { session: string; since: string; label: string };

  constructor(private readonly docs: RewindDocuments, private readonly root: vscode.Uri) {
    this.scm = vscode.scm.createSourceControl('rewind', 'Rewind', root);
    this.scm.quickDiffProvider = this;
    this.scm.inputBox.visible = false;
  }

  /** Compare the gutter with the state before `since` (a prompt id) from now on. */
  set(session: string, since: string, label: string): void {
    this.target = { session, since, label };
    this.scm.statusBarCommands = [{ command: 'rewind.clearGutter', title: `$(diff) ${label}`, tooltip: 'Rewind: stop comparing the gutter with this turn' }];
    this.docs.refresh();
  }

  clear(): void { this.target = undefined; this.scm.statusBarCommands = []; }

  provideOriginalResource(uri: vscode.Uri): vscode.Uri | undefined {
    const t = this.target;
    if (!t || uri.scheme !== 'file' || !uri.path.startsWith(this.root.path + '/')) return undefined;
    const path = uri.path.slice(this.root.path.length + 1);
    return this.docs.uri({ session: t.session, target: { since: t.since }, path, side: 'restored' });
  }

  dispose(): void { this.scm.dispose(); }
}
