// A static file server on 127.0.0.1 for the build tools: `make bench-web` (with brotli) and the
// pre-render of `make dist` (plain). Not for production: it serves a folder on loopback, no more.
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
  '.webmanifest': 'application/manifest+json', '.ico': 'image/x-icon', '.bin': 'application/octet-stream',
};

/**
 * Serves `dir` (absolute) at `url`. With `brotli` (a function from a file's bytes to their brotli
 * bytes) a request that accepts `br` gets the compressed body. Returns { url, close }.
 */
export async function serveDir(dir, { brotli = null } = {}) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let p = normalize(join(dir, decodeURIComponent(url.pathname)));
    if (!p.startsWith(dir)) { res.writeHead(403).end(); return; }
    try { if (statSync(p).isDirectory()) p = join(p, 'index.html'); } catch { /* 404 below */ }
    let body;
    try { body = readFileSync(p); } catch { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); return; }
    const headers = { 'content-type': MIME[extname(p)] || 'application/octet-stream', 'cache-control': 'no-cache', vary: 'accept-encoding' };
    if (brotli && /\bbr\b/.test(req.headers['accept-encoding'] || '')) {
      body = brotli(body);
      headers['content-encoding'] = 'br';
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers).end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}
