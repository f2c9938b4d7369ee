// A static file server for the demo and the browser tests: Node's http module, no dependencies.
// `node wasm/demo/serve.mjs [port]` serves wasm/ (so /demo/ is the page and /pkg/ the package
// beside it, as in the repository) on 127.0.0.1 and prints the URL; tests import `serve`.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  // instantiateStreaming needs the wasm MIME type.
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ts': 'text/plain; charset=utf-8',
};

/**
 * Serve `routes` ({ '/url/prefix/': '/dir' }, longest prefix first) on `host:port` (0 = a free
 * port). Resolves to { url, close() }.
 */
export function serve(routes, { port = 0, host = '127.0.0.1' } = {}) {
  const prefixes = Object.keys(routes).sort((a, b) => b.length - a.length);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let pathname;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      pathname = '';
    }
    const prefix = prefixes.find((p) => pathname.startsWith(p));
    const root = prefix === undefined ? null : path.resolve(routes[prefix]);
    let file = root === null ? null : path.resolve(root, `./${pathname.slice(prefix.length)}`);
    // Nothing outside the served folders (a `..` in the URL).
    if (file !== null && file !== root && !file.startsWith(root + path.sep)) file = null;
    if (file !== null && fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (!pathname.endsWith('/')) {
        res.writeHead(301, { location: `${url.pathname}/` }).end();
        return;
      }
      file = path.join(file, 'index.html');
    }
    if (file === null || !fs.existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${url.pathname}\n`);
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      // Always the files on disk now: a rebuilt package is what the next reload gets.
      'cache-control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      resolve({ url: `http://${host}:${p}`, close: () => new Promise((ok) => server.close(ok)) });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const wasm = path.resolve(fileURLToPath(import.meta.url), '../..');
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
  try {
    const { url } = await serve({ '/': wasm }, { port });
    console.log(`rewind web IDE demo: ${url}/demo/  (serving ${wasm}; Ctrl-C stops)`);
  } catch (e) {
    // One line with the way out, not a stack (scripts/demo-web checks the port first, but
    // something can take it in between).
    const code = /** @type {{ code?: string }} */ (e).code;
    const next = `choose another with scripts/demo-web ${port + 1} or PORT=${port + 1} scripts/demo-web`;
    const why = code === 'EADDRINUSE' ? 'is already in use (another server, or a demo-web still running)'
      : code === 'EACCES' ? 'is not open to this user (ports below 1024 need privileges)'
        : `cannot be listened on (${code ?? e})`;
    console.error(`demo-web: port ${port} on 127.0.0.1 ${why}: ${next}`);
    process.exit(1);
  }
}
