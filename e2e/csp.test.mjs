// End to end: the page carries a Content-Security-Policy meta tag that allows no
// inline script, and neither the served build nor the one-file download violates it while the app
// starts on the advisor, switches views, opens a detail panel and runs embedded with an accent colour.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, serve, browser, watchErrors } from './harness.mjs';

const DIST = process.env.E2E_DIST || join(ROOT, 'dist');
const BASE_PATH = process.env.E2E_BASE_PATH || '';
const SINGLE = process.env.E2E_SINGLE || join(ROOT, 'dist-single/gpu-advisor.html');
let server, ctx;

before(async () => {
  server = await serve(process.env.E2E_SERVE_ROOT || DIST);
  ctx = await browser();
  // Installed before any script of the page runs, so the first violation is seen too.
  await ctx.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
});
after(async () => {
  await ctx?.close();
  server?.close();
});

/** Drives the app through its views at `base` and returns what CSP and the console reported. */
async function exercise(base) {
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  const cspConsole = [];
  page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspConsole.push(m.text()); });
  await page.goto(base);
  await page.locator('.sizing-table__row').first().waitFor();
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  // Counted in the HTML as served: the app re-renders <body> once it runs.
  const source = base.startsWith('file://') ? readFileSync(new URL(base), 'utf8') : await (await fetch(base)).text();
  const inlineScripts = [...source.matchAll(/<script\b([^>]*)>/g)]
    .filter(([, attrs]) => !/\bsrc=/.test(attrs) && !/type="application\/octet-stream"/.test(attrs)).length;
  // A Russian reader of the default question: the served build fetches its pre-rendered answer
  // from beside the page (index.html), the one-file download has none to fetch.
  await page.goto(`${base}?lang=ru`);
  await page.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'));
  await page.goto(`${base}?view=catalog`);
  await page.locator('.catalog-table__row .catalog-table__name').first().click();
  await page.locator('.gpu-detail').waitFor();
  await page.goto(`${base}?view=compare&gpus=rtx-a5000,rtx-4090`);
  await page.locator('.compare-view__row').first().waitFor();
  // The accuracy page: its tables arrive as HTML rendered at build time (accuracy.bin).
  await page.goto(`${base}?view=accuracy`);
  await page.locator('.accuracy-view__summary tbody tr').first().waitFor();
  await page.goto(`${base}?embed=1&accent=ff6600`);
  await page.locator('.app--embed .sizing-table__row').first().waitFor();
  const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
  const violations = await page.evaluate(() => window.__cspViolations);
  await page.close();
  return { policy, inlineScripts, accent, violations, cspConsole, errors };
}

/** The directives of a policy as a map from name to its source list. */
const directives = (policy) => Object.fromEntries(policy.split(';').map((d) => d.trim().split(/\s+/))
  .filter((d) => d[0]).map(([name, ...sources]) => [name, sources]));

test('the served build declares a strict CSP and never violates it', async () => {
  const r = await exercise(`${server.url}${BASE_PATH}`);
  assert.ok(r.policy, 'a CSP meta tag');
  const d = directives(r.policy);
  assert.deepEqual(d['default-src'], ["'self'"]);
  // Scripts from the origin, plus the static shell's two small inline scripts (in <head> and
  // after the shell) by their hashes.
  assert.deepEqual(d['script-src'].slice(0, 2), ["'self'", "'wasm-unsafe-eval'"]);
  assert.equal(d['script-src'].length, 4, r.policy);
  assert.match(d['script-src'][2], /^'sha256-[A-Za-z0-9+/]+=*'$/);
  assert.match(d['script-src'][3], /^'sha256-[A-Za-z0-9+/]+=*'$/);
  assert.ok(!r.policy.includes('unsafe-inline'), r.policy);
  assert.equal(r.inlineScripts, 2, "two inline scripts (the shell's), allowed by their hashes");
  assert.equal(r.accent, '#ff6600', 'the accent colour applies under the CSP (through CSSOM)');
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.cspConsole, []);
  assert.deepEqual(r.errors, []);
});

test('the one-file download has its own policy and never violates it', async () => {
  const r = await exercise(`file://${SINGLE}`);
  assert.ok(r.policy, 'a CSP meta tag');
  const d = directives(r.policy);
  assert.deepEqual(d['default-src'], ["'none'"]);
  // Only the inline module and the static shell's two scripts, by their hashes; no 'self'
  // (meaningless on file://), no 'unsafe-inline'.
  assert.equal(d['script-src'].length, 4, r.policy);
  for (const i of [0, 1, 2]) assert.match(d['script-src'][i], /^'sha256-[A-Za-z0-9+/]+=*'$/);
  assert.equal(d['script-src'][3], "'wasm-unsafe-eval'");
  assert.ok(!r.policy.includes('unsafe-inline'), r.policy);
  assert.equal(r.inlineScripts, 3, 'exactly three inline scripts, allowed by their hashes');
  assert.equal(r.accent, '#ff6600');
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.cspConsole, []);
  assert.deepEqual(r.errors, []);
});
