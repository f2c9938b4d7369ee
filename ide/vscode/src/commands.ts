// The commands: diffs, rewinds with a preview and a policy choice, undo/redo, fork. A command
// run from the view gets its node; from the palette it asks for a turn of the current session.

import * as vscode from 'vscode';
import type { Backend, Target } from './engine';
import { openConflict, openRewindDiff, type RewindDocuments } from './content';
import { POLICY_HELP, policiesFor, previewRow, writtenText, type Diff, type Policy } from './logic';
import type { GutterBaseline } from './quickdiff';
import type { Node, RewindTree } from './view';

type Scope = 'workspace' | 'conversation' | 'both';
type TurnLike = Extract<Node, { type: 'turn' | 'checkpoint' | 'file' }>;

export class Commands {
  constructor(private readonly backend: Backend, private readonly tree: RewindTree,
    private readonly docs: RewindDocuments, private readonly root: vscode.Uri,
    private readonly afterChange: () => Promise<void>, private readonly gutter: GutterBaseline) {}

  register(): vscode.Disposable[] {
    const c = (id: string, f: (n?: Node) => Promise<unknown>) =>
      vscode.commands.registerCommand(id, (n?: Node) => f(n).catch((e: Error) => vscode.window.showErrorMessage(`Rewind: ${e.message}`)));
    return [
      c('rewind.refresh', () => this.afterChange()),
      c('rewind.diffTurn', (n) => this.diff(n, 'turn')),
      c('rewind.diffCheckpoint', (n) => this.diff(n, 'checkpoint')),
      c('rewind.diffRewind', (n) => this.diff(n, 'since')),
      c('rewind.rewindCode', (n) => this.rewind(n, 'workspace')),
      c('rewind.rewindConversation', (n) => this.rewind(n, 'conversation')),
      c('rewind.rewindBoth', (n) => this.rewind(n, 'both')),
      c('rewind.undo', () => this.undoRedo('undo')),
      c('rewind.redo', () => this.undoRedo('redo')),
      c('rewind.fork', (n) => this.fork(n)),
      c('rewind.gutter', async (n) => {
        const t = await this.pickTurn(n);
        if (t) this.gutter.set(t.session.id, t.turn.promptId, `before #${t.turn.number}`);
      }),
      c('rewind.clearGutter', async () => this.gutter.clear()),
    ];
  }

  /** The node given, or a turn of the current session picked from a list. */
  private async pickTurn(node?: Node): Promise<TurnLike | undefined> {
    if (node && node.type !== 'session') return node;
    const current = node?.type === 'session' ? node : this.tree.current();
    if (!current || current.turns.length === 0) {
      vscode.window.showInformationMessage('Rewind: no turns recorded in this workspace yet.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(current.turns.map((turn) => ({
      label: `#${turn.number} ${turn.title}`, description: [...turn.files.keys()].join(', '), turn,
    })), { placeHolder: `A turn of "${current.session.title}"` });
    return picked && { type: 'turn', session: current.session, turn: picked.turn };
  }

  private async diff(node: Node | undefined, kind: 'turn' | 'checkpoint' | 'since'): Promise<void> {
    const n = await this.pickTurn(node);
    if (!n) return;
    const cp = n.type === 'turn' ? undefined : n.checkpoint;
    const target: Target = kind === 'since' ? (cp && n.type === 'checkpoint' ? { checkpoint: cp.checkpointId } : { since: n.turn.promptId })
      : kind === 'checkpoint' && cp ? { checkpoint: cp.checkpointId } : { turn: n.turn.turnId };
    const paths = n.type === 'file' ? [n.path] : [...(cp ? cp.files.map((f) => f.path) : n.turn.files.keys())];
    const diff = await this.backend.diff(n.session.id, target, kind === 'since' ? [] : paths);
    const files = diff.files.length ? diff.files.map((f) => f.path) : paths;
    const path = files.length === 1 ? files[0] : await vscode.window.showQuickPick(files, { placeHolder: 'Which file?' });
    if (!path) return;
    const what = kind === 'since' ? `now ↔ after rewinding to #${n.turn.number}` : `#${n.turn.number}'s change`;
    await openRewindDiff(this.docs, this.root, n.session.id, target, path, `${path}: ${what}`, kind === 'since' ? 'rewind' : 'change');
    const file = diff.files.find((f) => f.path === path);
    if (file && !file.safe) await openConflict(this.docs, n.session.id, target, path);
  }

  /** The preview: every file and conflict, then the policies that apply; the one chosen. */
  private async choosePolicy(n: TurnLike, diff: Diff, scope: Scope): Promise<Policy | undefined> {
    type Item = vscode.QuickPickItem & { policy?: Policy; path?: string };
    const files: Item[] = diff.files.map((f) => ({ ...previewRow(f), path: f.path }));
    const policies: Item[] = policiesFor(diff).map((p) => ({
      label: `$(history) Rewind (${p})`, description: POLICY_HELP[p], policy: p,
    }));
    const items: Item[] = [
      { label: 'Files', kind: vscode.QuickPickItemKind.Separator }, ...files,
      { label: 'Rewind', kind: vscode.QuickPickItemKind.Separator }, ...policies,
    ];
    const target: Target = { since: n.turn.promptId };
    for (;;) {
      const picked = await vscode.window.showQuickPick(items, {
        title: `Rewind ${scope === 'both' ? 'code and conversation' : 'code'} to before #${n.turn.number}: ${diff.stats.files} file(s); ${writtenText(diff.stats)}`,
        placeHolder: 'Pick a file to see its diff, or how to rewind', matchOnDescription: true, ignoreFocusOut: true,
      });
      if (!picked) return undefined;
      if (picked.policy) return picked.policy;
      if (picked.path) {
        const f = diff.files.find((x) => x.path === picked.path);
        await openRewindDiff(this.docs, this.root, n.session.id, target, picked.path, `${picked.path}: now ↔ after rewinding to #${n.turn.number}`, 'rewind');
        if (f && !f.safe) await openConflict(this.docs, n.session.id, target, picked.path);
      }
    }
  }

  private async rewind(node: Node | undefined, scope: Scope): Promise<void> {
    const n = await this.pickTurn(node);
    if (!n) return;
    let policy: Policy = 'block';
    if (scope !== 'conversation') {
      const diff = await this.backend.diff(n.session.id, { since: n.turn.promptId });
      if (diff.files.length === 0 && scope === 'workspace') {
        vscode.window.showInformationMessage(`Rewind: no file to restore since #${n.turn.number}.`);
        return;
      }
      const chosen = await this.choosePolicy(n, diff, scope);
      if (!chosen) return;
      policy = chosen;
    } else {
      const ok = await vscode.window.showWarningMessage(`Rewind the conversation to before #${n.turn.number}? Files stay as they are.`, { modal: true }, 'Rewind');
      if (ok !== 'Rewind') return;
    }
    await this.backend.rewind(n.session.id, scope, n.turn.promptId, policy);
    await this.afterChange();
    vscode.window.showInformationMessage(`Rewind: rewound ${scope === 'workspace' ? 'code' : scope} to before #${n.turn.number} (${policy}). Undo with "Rewind: Undo the Last Rewind".`);
  }

  private async undoRedo(which: 'undo' | 'redo'): Promise<void> {
    const current = this.tree.current();
    if (!current) return;
    if (which === 'undo') await this.backend.undo(current.session.id);
    else await this.backend.redo(current.session.id);
    await this.afterChange();
    vscode.window.showInformationMessage(`Rewind: ${which === 'undo' ? 'undid' : 'redid'} the last rewind.`);
  }

  private async fork(node?: Node): Promise<void> {
    const n = await this.pickTurn(node);
    if (!n) return;
    const at = n.type === 'checkpoint' ? { checkpoint: n.checkpoint.checkpointId } : { at: n.turn.promptId };
    const out = await this.backend.fork(n.session.id, at);
    await this.afterChange();
    vscode.window.showInformationMessage(`Rewind: forked at #${n.turn.number}: ${JSON.stringify(out).slice(0, 120)}`);
  }
}
