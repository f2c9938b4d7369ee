// Bundle the extension (one CommonJS file, `vscode` left to the host) with esbuild.
import { build } from 'esbuild';
await build({
  entryPoints: ['src/extension.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20',
  external: ['vscode'], outfile: 'dist/extension.js', sourcemap: false, logLevel: 'warning',
});
// The pure logic, for the unit tests (node --test), without VS Code.
await build({ entryPoints: ['src/logic.ts'], bundle: true, platform: 'node', format: 'esm', outfile: 'dist/logic.mjs', logLevel: 'warning' });
