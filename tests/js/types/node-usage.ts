// Type-checked (tsc --noEmit, strict) by scripts/test: the durable Node package's Engine has the
// wasm Engine's method signatures and types, so the same code type-checks against either.
import { Engine, methods, type ApplyOutcome, type EngineMethod, type Preview, type RewindError } from 'rewind-node';
import { Engine as WasmEngine } from 'rewind-wasm';

const engine = Engine.open('/tmp/project', { db: '/tmp/project/.rewind/rewind.db' });
const dir: string = engine.workspace;
const { id } = engine.createSession({ title: 'demo' });
const { turnId, messageId } = engine.recordPrompt(id, { text: 'rename foo' });
engine.recordEdit(id, { turnId, path: 'a.txt', before: new Uint8Array([1]), after: null, toolName: 'Edit' });
const preview: Preview = engine.previewFileRewind(id, { since: messageId });
const done: ApplyOutcome = engine.applyFileRewind(id, { since: messageId, policy: 'block' });
engine.undo(id, { operationId: done.operationId ?? '' });
engine.close();
const names: readonly EngineMethod[] = methods;

// Code written against the shared methods runs on either engine.
function record(e: Pick<WasmEngine, EngineMethod>, text: string) {
  const s = e.createSession();
  return e.recordPrompt(s.id, { text });
}
record(engine, 'node');
declare const wasm: WasmEngine;
record(wasm, 'wasm');

try {
  engine.stats();
} catch (e) {
  const code: string = (e as RewindError).code;
  void code;
}

// @ts-expect-error: the in-memory constructors are the wasm package's only.
Engine.inMemory({});
// @ts-expect-error: bytes are Uint8Array, as in the wasm package.
engine.recordEdit(id, { turnId, path: 'a.txt', before: 'x', after: null, toolName: 'Edit' });
// @ts-expect-error: an Engine comes from Engine.open.
new Engine();

void dir;
void preview;
void names;
