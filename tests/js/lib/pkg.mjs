// The generated package (scripts/build-wasm writes wasm/pkg/); the nodejs target, loaded as Node
// loads it for `import { Engine } from 'rewind-wasm'`.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../../..');
export const PKG = path.join(ROOT, 'wasm/pkg');
const mod = await import(path.join(PKG, 'node/rewind_wasm.js'));
export const { Engine } = mod;
