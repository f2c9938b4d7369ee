// Bundle the extension with esbuild: the desktop entry (CommonJS for the Node extension host),
// the web entry (CommonJS for the browser's web-worker host, with the wasm engine's glue; the
// .wasm itself is copied beside it), and the pure logic for the unit tests.
import { build } from 'esbuild';
import fs from 'node:fs';

await build({
  entryPoints: ['src/extension.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20',
  external: ['vscode'], outfile: 'dist/extension.js', logLevel: 'warning',
});
await build({
  entryPoints: ['src/web.ts'], bundle: true, platform: 'browser', format: 'cjs', target: 'es2022',
  external: ['vscode'], outfile: 'dist/web.js', logLevel: 'error',
});
fs.copyFileSync('../../wasm/pkg/rewind_wasm_bg.wasm', 'dist/rewind_wasm_bg.wasm');
await build({ entryPoints: ['src/logic.ts'], bundle: true, platform: 'node', format: 'esm', outfile: 'dist/logic.mjs', logLevel: 'warning' });
