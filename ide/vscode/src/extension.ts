// The desktop entry: one engine child per workspace, the view, the `rewind:` documents, the
// status bar, the save recorder, and a watch on the store so the view follows the hooks live.

import * as vscode from 'vscode';
import { execFile } from 'node:child_process';
import { DesktopBackend } from './backend';
import { Commands } from './commands';
import { RewindDocuments, SCHEME } from './content';
import { GutterBaseline } from './quickdiff';
import { SaveRecorder } from './saves';
import { RewindTree } from './view';

/** How long the store must be quiet before the view reloads (a hook writes in bursts). */
const DEBOUNCE_MS = 300;

export function activate(context: vscode.ExtensionContext): void {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || folder.uri.scheme !== 'file') return;
  const config = vscode.workspace.getConfiguration('rewind');
  const bin = config.get<string>('binaryPath') || 'rewind';
  const db = config.get<string>('storeLocation') || '';
  const root = folder.uri;
  const backend = new DesktopBackend(bin, root.fsPath, db);
  const tree = new RewindTree(backend, root);
  const docs = new RewindDocuments(backend, root);
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = 'workbench.view.extension.rewind';
  let lastEvent = '';
  const showStatus = () => {
    const current = tree.current();
    const recording = !!current && vscode.workspace.getConfiguration('rewind').get<boolean>('recordSaves', true);
    status.text = `$(${recording ? 'record' : 'circle-slash'}) Rewind${current ? ` #${current.turns[0]?.number ?? 0}` : ''}`;
    status.tooltip = tree.lastError ? `Rewind: ${tree.lastError}`
      : `${recording ? 'Recording your saves into' : 'Not recording (no session)'} ${current?.session.title ?? ''}${lastEvent ? `\nLast: ${lastEvent}` : ''}`;
    status.show();
  };
  const reload = async () => { await tree.load(); docs.refresh(); showStatus(); };
  let timer: NodeJS.Timeout | undefined;
  const soon = () => { clearTimeout(timer); timer = setTimeout(() => void reload(), DEBOUNCE_MS); };
  const storeDir = db ? vscode.Uri.file(db.replace(/\/[^/]*$/, '')) : vscode.Uri.joinPath(root, '.rewind');
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(storeDir, '**'));
  watcher.onDidChange(soon); watcher.onDidCreate(soon); watcher.onDidDelete(soon);
  const saves = new SaveRecorder(backend, root, () => tree.current()?.session.id, {
    recorded: (p) => { lastEvent = `your save of ${p} (${new Date().toLocaleTimeString()})`; soon(); },
    failed: (p, why) => { lastEvent = `could not record your save of ${p}: ${why}`; showStatus(); },
  });
  const gutter = new GutterBaseline(docs, root);
  const commands = new Commands(backend, tree, docs, root, reload, gutter);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    vscode.window.createTreeView('rewind.sessions', { treeDataProvider: tree, showCollapseAll: true }),
    vscode.window.registerFileDecorationProvider(tree),
    ...commands.register(),
    vscode.commands.registerCommand('rewind.doctor', () => runDoctor(bin, root.fsPath)),
    status, watcher, saves, gutter, { dispose: () => { clearTimeout(timer); backend.dispose(); } },
  );
  // `rewind doctor` is offered only where the binary has it.
  execFile(bin, ['doctor', '--help'], (err) => void vscode.commands.executeCommand('setContext', 'rewind.hasDoctor', !err));
  void reload();
}

function runDoctor(bin: string, cwd: string): void {
  const terminal = vscode.window.createTerminal({ name: 'rewind doctor', cwd });
  terminal.show();
  terminal.sendText(`${JSON.stringify(bin)} doctor`);
}

export function deactivate(): void {}
