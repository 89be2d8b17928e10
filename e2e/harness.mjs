// Shared end-to-end harness: serves a built folder on 127.0.0.1 with Python's http.server and
// drives Debian's Chromium through playwright-core (never a downloaded browser).
import { spawn } from 'node:child_process';
import { before, after } from 'node:test';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';
import { mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;

export const ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Serves `dir` (absolute) at http://127.0.0.1:PORT/. Returns { url, close }. The request log goes
 * to `logFile` if given, else to E2E_SERVER_LOG if set (for debugging a failing test).
 */
export async function serve(dir, logFile = process.env.E2E_SERVER_LOG) {
  const port = await freePort();
  const log = logFile ? openSync(logFile, 'a') : 'ignore';
  const proc = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], {
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(url);
      if (r.ok || r.status === 404) break;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, close: () => proc.kill() };
}

/** Launches Chromium with a fresh profile. */
export async function browser(options = {}) {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'gpu-advisor-e2e-')), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    ...options,
  });
}

/** Collects console errors and page errors of `page`. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

/**
 * The usual suite set-up: serves the build (dist/, or E2E_SERVE_ROOT under E2E_BASE_PATH) and opens
 * a fresh Chromium before the suite, closes both after it. `app.url(q)` is the app's address with
 * the query `q`; `app.ctx` the browser context; `app.server` the server.
 */
export function useApp() {
  const app = { server: null, ctx: null, base: process.env.E2E_BASE_PATH || '' };
  before(async () => {
    app.server = await serve(process.env.E2E_SERVE_ROOT || process.env.E2E_DIST || join(ROOT, 'dist'));
    app.ctx = await browser();
  });
  after(async () => {
    await app.ctx?.close();
    app.server?.close();
  });
  app.url = (q = '') => `${app.server.url}${app.base}${q}`;
  return app;
}
