// The web entry (vscode.dev, code-server's browser host): the wasm engine over the workspace
// file system API. It loads the store a wasm host saved in the workspace (`engine.snapshot()`
// written to `.rewind/rewind.snapshot`), lists its sessions and turns in the same view, and
// diffs them in the diff editor. It does not write: rewinds, undo and saves are the desktop's.

import * as vscode from 'vscode';
import { Engine, initSync } from '../../../wasm/pkg/web/rewind_wasm.js';
import { RewindError, type Backend, type Target } from './engine';
import { Commands } from './commands';
import { RewindDocuments, SCHEME } from './content';
import type { Checkpoint, Diff, Message, Session } from './logic';
import { GutterBaseline } from './quickdiff';
import { RewindTree } from './view';

const SNAPSHOT = '.rewind/rewind.snapshot';
/** At most this many files are read into memory for the engine's synchronous workspace. */
const MAX_FILES = 5000;

const readOnly = (): never => {
  throw new RewindError('unavailable', 'the web extension only reads the store: rewind from VS Code on the desktop or the CLI');
};

/**
 * Read ahead, into the engine's synchronous workspace, every file the store's checkpoints name
 * (the web host may have no file search, so the store says which files matter).
 */
async function readAhead(root: vscode.Uri, engine: InstanceType<typeof Engine>, files: Map<string, Uint8Array>): Promise<void> {
  const paths = new Set<string>();
  for (const s of engine.listSessions() as Session[]) {
    for (const c of engine.checkpoints(s.id) as Checkpoint[]) for (const f of c.files) paths.add(f.path);
  }
  for (const p of [...paths].slice(0, MAX_FILES)) {
    try { files.set(p, await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, p))); } catch { /* absent now */ }
  }
}

class WasmBackend implements Backend {
  private engine?: { files: Map<string, Uint8Array>; e: InstanceType<typeof Engine> };
  constructor(private readonly root: vscode.Uri) {}

  /** Load the snapshot and the files again (the view's reload). */
  private async load() {
    const files = new Map<string, Uint8Array>();
    const snapshot = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.root, SNAPSHOT));
    const workspace = { read: (p: string) => files.get(p) ?? null, write: readOnly, remove: readOnly };
    const e = Engine.fromSnapshot(snapshot, { workspace });
    await readAhead(this.root, e, files);
    this.engine = { files, e };
    return e;
  }
  private get e() {
    if (!this.engine) throw new RewindError('unavailable', 'the store is not loaded yet');
    return this.engine.e;
  }
  async sessions(): Promise<Session[]> { return (await this.load()).listSessions() as Session[]; }
  async resume(s: string) { return this.e.resume(s) as { messages: Message[]; runningTurn?: { turnId: string } | null }; }
  async checkpoints(s: string) { return this.e.checkpoints(s) as Checkpoint[]; }
  async diff(s: string, target: Target, paths: string[] = []) { return this.e.diffFileRewind(s, { ...target, paths }) as Diff; }
  rewind = readOnly; undo = readOnly; redo = readOnly; fork = readOnly; recordSave = readOnly;
  async conflictText(s: string, target: Target, path: string) {
    const f = (await this.diff(s, target, [path])).files.find((x) => x.path === path);
    return f?.message ?? 'no conflict';
  }
  dispose() {}
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return;
  const wasm = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(context.extensionUri, 'dist/rewind_wasm_bg.wasm'));
  initSync({ module: wasm });
  const root = folder.uri;
  const backend = new WasmBackend(root);
  const tree = new RewindTree(backend, root);
  const docs = new RewindDocuments(backend, root);
  const gutter = new GutterBaseline(docs, root);
  const reload = async () => { await tree.load(); docs.refresh(); };
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.text = '$(eye) Rewind (web, read-only)';
  status.show();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    vscode.window.createTreeView('rewind.sessions', { treeDataProvider: tree }),
    vscode.window.registerFileDecorationProvider(tree),
    ...new Commands(backend, tree, docs, root, reload, gutter).register(),
    vscode.commands.registerCommand('rewind.doctor', readOnly),
    gutter, status,
  );
  await reload();
}

export function deactivate(): void {}
