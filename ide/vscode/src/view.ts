// The Rewind view (sessions → turns → checkpoints and files) and the file decorations on the
// files the newest turns touched. Both are fed by one `load()`, redone when the store changes.

import * as vscode from 'vscode';
import type { Backend } from './engine';
import { ago, orderSessions, statText, turnsOf, withStats, type Checkpoint, type Session, type TurnNode } from './logic';

export type Node =
  | { type: 'session'; session: Session; turns: TurnNode[] }
  | { type: 'turn'; session: Session; turn: TurnNode }
  | { type: 'checkpoint'; session: Session; turn: TurnNode; checkpoint: Checkpoint }
  | { type: 'file'; session: Session; turn: TurnNode; path: string; checkpoint?: Checkpoint };

/** How many turns of a session get a +/− diff (one engine call each). */
const STAT_TURNS = 20;

export class RewindTree implements vscode.TreeDataProvider<Node>, vscode.FileDecorationProvider {
  private sessions: { session: Session; turns: TurnNode[] }[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  private readonly decorationsChanged = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly onDidChangeFileDecorations = this.decorationsChanged.event;
  lastError?: string;

  constructor(private readonly backend: Backend, private readonly root: vscode.Uri) {}

  /** Read every session from the store again. */
  async load(): Promise<void> {
    try {
      const sessions = orderSessions(await this.backend.sessions());
      const loaded = [];
      for (const session of sessions) {
        const [resume, checkpoints] = await Promise.all([
          this.backend.resume(session.id), this.backend.checkpoints(session.id)]);
        const turns = turnsOf(resume.messages, checkpoints);
        for (const t of turns.slice(0, STAT_TURNS)) {
          if (t.files.size === 0) continue;
          withStats(t, await this.backend.diff(session.id, { turn: t.turnId }).catch(() => ({ files: [] } as never)));
        }
        loaded.push({ session, turns });
      }
      this.sessions = loaded;
      this.lastError = undefined;
    } catch (e) {
      this.sessions = [];
      this.lastError = (e as Error).message;
    }
    this.changed.fire(undefined);
    this.decorationsChanged.fire(undefined);
  }

  /** The current session (or the newest), with its turns. */
  current(): { session: Session; turns: TurnNode[] } | undefined { return this.sessions[0]; }
  all() { return this.sessions; }

  getChildren(node?: Node): Node[] {
    if (!node) return this.sessions.map((s) => ({ type: 'session', ...s }));
    if (node.type === 'session') return node.turns.map((turn) => ({ type: 'turn', session: node.session, turn }));
    if (node.type === 'turn') {
      const cps: Node[] = node.turn.checkpoints.map((checkpoint) => ({ type: 'checkpoint', session: node.session, turn: node.turn, checkpoint }));
      return cps;
    }
    if (node.type === 'checkpoint') {
      return node.checkpoint.files.map((f) => ({ type: 'file', session: node.session, turn: node.turn, path: f.path, checkpoint: node.checkpoint }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.type) {
      case 'session': {
        const first = this.sessions[0]?.session.id === node.session.id; // current, else the newest
        const item = new vscode.TreeItem(node.session.title, first ? vscode.TreeItemCollapsibleState.Expanded : Collapsed);
        item.description = `${node.session.current ? 'current · ' : ''}${node.turns.length} turn${node.turns.length === 1 ? '' : 's'}`;
        item.tooltip = node.session.id;
        item.contextValue = 'session';
        item.iconPath = new vscode.ThemeIcon('history');
        return item;
      }
      case 'turn': {
        const t = node.turn;
        const item = new vscode.TreeItem(`#${t.number} ${t.title}`, t.checkpoints.length ? Collapsed : vscode.TreeItemCollapsibleState.None);
        const files = [...t.files].map(([p, s]) => `${p} ${s.person ? '(yours)' : statText(s)}`).join(', ');
        item.description = [ago(t.time, Date.now()), files].filter(Boolean).join(' · ');
        item.tooltip = `${t.promptId}\n${files || 'no files changed'}`;
        item.contextValue = 'turn';
        item.iconPath = new vscode.ThemeIcon('comment');
        item.id = `${node.session.id}/${t.turnId}`;
        return item;
      }
      case 'checkpoint': {
        const c = node.checkpoint;
        const person = c.kind === 'external';
        const item = new vscode.TreeItem(person ? 'your save' : c.toolName, Collapsed);
        item.description = `${c.kind} · ${c.files.map((f) => f.path).join(', ')}`;
        item.tooltip = `${c.checkpointId}${c.toolInput ? `\n${c.toolInput}` : ''}`;
        item.contextValue = 'checkpoint';
        item.iconPath = new vscode.ThemeIcon(person ? 'person' : 'tools');
        item.id = `${node.session.id}/${c.checkpointId}`;
        return item;
      }
      case 'file': {
        const item = new vscode.TreeItem(node.path, vscode.TreeItemCollapsibleState.None);
        item.resourceUri = vscode.Uri.joinPath(this.root, node.path);
        const s = node.turn.files.get(node.path);
        if (s) item.description = s.person ? 'your save' : statText(s);
        item.contextValue = 'file';
        item.command = { command: 'rewind.diffCheckpoint', title: 'Diff', arguments: [node] };
        return item;
      }
    }
  }

  /** A badge on files the current session's newest turn touched (the agent's, or yours). */
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const newest = this.current()?.turns[0];
    if (!newest || !uri.path.startsWith(this.root.path + '/')) return undefined;
    const rel = uri.path.slice(this.root.path.length + 1);
    const f = newest.files.get(rel);
    if (!f) return undefined;
    return new vscode.FileDecoration(f.person ? 'P' : 'R', `Rewind: changed in turn #${newest.number} ${statText(f)}`,
      new vscode.ThemeColor(f.person ? 'charts.blue' : 'charts.orange'));
  }
}
