// End to end for the app's reach: offline after one visit (service worker), a new build replacing
// the old cache whole, the one-file download from file://, and the embed in an iframe on a page of
// another origin. Runs against dist/ (or, with E2E_SERVE_ROOT and E2E_BASE_PATH, under a sub-path).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ROOT, serve, browser, watchErrors } from './harness.mjs';

const DIST = process.env.E2E_DIST || join(ROOT, 'dist');
const BASE_PATH = process.env.E2E_BASE_PATH || '';
const SINGLE = process.env.E2E_SINGLE || join(ROOT, 'dist-single/gpu-advisor.html');
let ctx;

before(async () => { ctx = await browser(); });
after(async () => { await ctx?.close(); });

/**
 * Serves a private copy of dist/ under BASE_PATH, so a test may change or stop it. `log()` returns
 * the server's request log.
 */
async function serveCopy() {
  const root = mkdtempSync(join(tmpdir(), 'gpu-advisor-copy-'));
  const dir = join(root, BASE_PATH);
  mkdirSync(dir, { recursive: true });
  cpSync(DIST, dir, { recursive: true });
  const logFile = join(root, '..', `${basename(root)}.log`);
  const server = await serve(root, logFile);
  return { dir, url: `${server.url}${BASE_PATH}`, close: server.close, log: () => readFileSync(logFile, 'utf8') };
}

/**
 * Marks every file of `dir` as modified `ahead_s` seconds from now. Python's http.server answers a
 * conditional request with 304 when the file's mtime, to the whole second, is not after the
 * If-Modified-Since the browser sends; a "deploy" within the same second as the copy would then
 * never be seen. A real host (GitHub Pages) uses ETags instead.
 */
function touchAll(dir, aheadS = 2) {
  const when = new Date(Date.now() + aheadS * 1000);
  for (const name of readdirSync(dir)) utimesSync(join(dir, name), when, when);
}

async function waitForCatalog(page) {
  await page.locator('.catalog-table__row').first().waitFor();
  const rows = await page.locator('.catalog-table__row').count();
  assert.ok(rows >= 60, `catalog shows ${rows} rows`);
}

/** Polls `check` (an async function) until it returns a truthy value; fails after `ms`. */
async function until(what, check, ms = 30000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until an activated service worker controls the page. */
function waitForServiceWorker(page) {
  return until('an active service worker controlling the page', () => page.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration();
    return !!navigator.serviceWorker.controller && reg?.active?.state === 'activated' && !reg.installing && !reg.waiting;
  }));
}

const cacheNames = (page) => page.evaluate(() => caches.keys());
const swVersion = (dir) => JSON.parse(readFileSync(join(dir, 'sw.js'), 'utf8').match(/^const BUILD = (.*);$/m)[1]).version;

test('after one visit the app works offline', async () => {
  const app = await serveCopy();
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${app.url}?view=catalog`);
    await waitForCatalog(page);
    await waitForServiceWorker(page);
    assert.deepEqual(await cacheNames(page), [`gpu-advisor-${swVersion(app.dir)}`]);

    await ctx.setOffline(true);
    await page.reload();
    await waitForCatalog(page);
    // URLs with other state, never visited online, also open from the cache.
    await page.goto(`${app.url}?view=compare&gpus=rtx-a5000,rtx-4090`);
    await page.locator('.compare-view__row[data-field=bandwidth]').waitFor();
    await page.goto(app.url);
    await page.locator('.sizing-table__row').first().waitFor();
    await ctx.setOffline(false);

    // Not only the emulated network: with the server gone the app still starts.
    app.close();
    await page.goto(`${app.url}?view=catalog`);
    await waitForCatalog(page);
    assert.deepEqual(errors, []);
  } finally {
    await ctx.setOffline(false);
    app.close();
    await page.close();
  }
});

test('a new build replaces the old cache whole', async () => {
  const app = await serveCopy();
  const page = await ctx.newPage();
  try {
    await page.goto(`${app.url}?view=catalog`);
    await waitForCatalog(page);
    await waitForServiceWorker(page);
    const oldVersion = swVersion(app.dir);
    assert.deepEqual(await cacheNames(page), [`gpu-advisor-${oldVersion}`]);

    // A "new deploy": one file changes, and the post-build step gives the build a new version.
    const manifest = join(app.dir, 'manifest.webmanifest');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"description": "', '"description": "v2 '));
    execFileSync('node', [join(ROOT, 'tools/postbuild.mjs'), app.dir]);
    touchAll(app.dir);
    const newVersion = swVersion(app.dir);
    assert.notEqual(newVersion, oldVersion);

    // On the first reload the browser finds the new sw.js (Chromium checks a few seconds after the
    // navigation); it installs, takes over and drops the old cache.
    await page.reload();
    await waitForCatalog(page);
    // Ask for the update check explicitly too (as the page would on a timer), so a slow machine
    // does not depend on when Chromium gets round to its own check.
    // A visitor who keeps reloading gets the new build: reload every 15 s as one would.
    let lastCheck = 0;
    let lastReload = Date.now();
    let seen = [];
    try {
      await until('the old cache to be replaced', async () => {
        if (Date.now() - lastReload > 15000) {
          lastReload = Date.now();
          await page.reload();
          await waitForCatalog(page);
        }
        if (Date.now() - lastCheck > 3000) {
          lastCheck = Date.now();
          await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.update()).catch(() => {}));
        }
        seen = await cacheNames(page);
        return JSON.stringify(seen) === JSON.stringify([`gpu-advisor-${newVersion}`]);
      }, 90000);
    } catch (e) {
      const reg = await page.evaluate(async () => {
        const r = await navigator.serviceWorker.getRegistration();
        return { active: r?.active?.state, installing: r?.installing?.state, waiting: r?.waiting?.state };
      });
      const swLog = app.log().split('\n').filter((l) => l.includes('sw.js')).slice(-8).join('\n');
      throw new Error(`${e.message}; caches ${JSON.stringify(seen)}, want gpu-advisor-${newVersion}; registration ${JSON.stringify(reg)}; the server's last sw.js answers:\n${swLog}`);
    }
    await waitForServiceWorker(page);
    // The second reload runs entirely on the new build.
    await page.reload();
    await waitForCatalog(page);
    await waitForServiceWorker(page);
    const state = await page.evaluate(async (name) => {
      const cache = await caches.open(name);
      const keys = (await cache.keys()).map((r) => new URL(r.url).pathname.split('/').pop());
      const manifest = await (await cache.match('manifest.webmanifest')).text();
      return { names: await caches.keys(), keys, manifest };
    }, `gpu-advisor-${newVersion}`);
    assert.deepEqual(state.names, [`gpu-advisor-${newVersion}`]);
    assert.match(state.manifest, /"description": "v2 /);
    const assets = JSON.parse(readFileSync(join(app.dir, 'sw.js'), 'utf8').match(/^const BUILD = (.*);$/m)[1]).assets;
    assert.deepEqual(state.keys.sort(), assets.map((a) => a.split('/').pop()).sort(), 'the new cache holds exactly the new build');
  } finally {
    app.close();
    await page.close();
  }
});

test('the one-file download works from file://', async () => {
  assert.ok(existsSync(SINGLE), `${SINGLE} exists (make single-file)`);
  const html = readFileSync(SINGLE, 'utf8');
  assert.doesNotMatch(html, /<(script|link)\b[^>]*\b(src|href)="(?!data:)/, 'no external scripts or links');
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${SINGLE}`);
  await page.locator('.sizing-table__row').first().waitFor();
  await page.goto(`file://${SINGLE}?view=catalog`);
  await waitForCatalog(page);
  assert.equal(await page.locator('.header__logo').evaluate((img) => img.complete && img.naturalWidth > 0), true);
  await page.goto(`file://${SINGLE}?view=compare&gpus=rtx-a5000,rtx-4090`);
  await page.locator('.compare-view__row[data-field=bandwidth]').waitFor();
  // The accuracy page's tables travel inline too (file:// allows no fetch).
  await page.goto(`file://${SINGLE}?view=accuracy`);
  await page.locator('.accuracy-view__summary tbody tr').first().waitFor();
  assert.deepEqual(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:')), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('embedded in an iframe on another origin: compact, no site chrome, height fits its content', async () => {
  const app = await serve(process.env.E2E_SERVE_ROOT || DIST);
  const appUrl = `${app.url}${BASE_PATH}`;
  // The documented parent page, served from a different port (another origin), pointing at the app.
  const parentDir = mkdtempSync(join(tmpdir(), 'gpu-advisor-parent-'));
  const snippet = readFileSync(join(DIST, 'embed-parent.html'), 'utf8');
  assert.match(snippet, /src="\.\/\?embed=1"/);
  writeFileSync(join(parentDir, 'index.html'), snippet.replace('src="./?embed=1"', `src="${appUrl}?view=catalog&embed=1"`));
  const parent = await serve(parentDir);
  assert.notEqual(new URL(parent.url).origin, new URL(app.url).origin);
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(parent.url);
    const iframe = page.locator('iframe#gpu-advisor');
    const frame = page.frameLocator('iframe#gpu-advisor');
    await frame.locator('.catalog-table__row').first().waitFor();
    assert.equal(await frame.locator('.app.app--embed').count(), 1);
    assert.equal(await frame.locator('.app__footer').isVisible(), false, 'no footer');
    assert.equal(await frame.locator('.header__brand').isVisible(), false, 'no brand');

    // The iframe grows from its initial 150 px to its content's height.
    const contentHeight = () => frame.locator('html').evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
    const frameHeight = () => iframe.evaluate((el) => el.clientHeight);
    await page.waitForFunction(() => document.getElementById('gpu-advisor').clientHeight > 400);
    assert.ok(Math.abs((await frameHeight()) - (await contentHeight())) <= 2,
      `iframe ${await frameHeight()} px, content ${await contentHeight()} px`);
    // And follows it when the content shrinks: filter the catalog down to a few rows.
    const before = await frameHeight();
    await frame.locator('input[type=search]').fill('H100');
    await page.waitForFunction((h) => document.getElementById('gpu-advisor').clientHeight < h - 200, before);
    assert.ok(Math.abs((await frameHeight()) - (await contentHeight())) <= 2);

    // The parent ignores messages from other origins and of other shapes.
    const settled = await frameHeight();
    await page.evaluate(() => window.postMessage({ type: 'gpu-advisor:height', height: 77 }, '*'));
    const appFrame = page.frames().find((f) => f.url().startsWith(appUrl));
    await appFrame.evaluate(() => {
      for (const m of [{ type: 'gpu-advisor:height', height: '99' }, { type: 'other', height: 99 },
        { type: 'gpu-advisor:height', height: -5 }, 'gpu-advisor:height', null]) parent.postMessage(m, '*');
    });
    // A well-formed message posted after the bad ones is applied, so they were all handled (and
    // ignored) before it. One pixel more than the content keeps the iframe free of a scrollbar.
    await appFrame.evaluate((h) => parent.postMessage({ type: 'gpu-advisor:height', height: h }, '*'), settled + 1);
    await page.waitForFunction((h) => document.getElementById('gpu-advisor').clientHeight === h, settled + 1);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    parent.close();
    app.close();
  }
});
