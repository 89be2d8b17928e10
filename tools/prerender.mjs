// Pre-renders the advisor's default answer into the static shell of dist/index.html.
// Run by tools/postbuild.mjs (`make dist`); by hand: node tools/prerender.mjs dist
//
// What it does: serves the built folder on loopback, opens it in headless Chromium (Debian's, or
// Chrome on a CI runner, through playwright-core) with an English locale, a fresh profile and no
// query, and copies the app's first render (the DOM at the moment the app removes the shell, so
// the answer, the form and the frame exactly as the app's first frame has them) into the shell.
// Input values, selections and check marks are properties, not attributes: they are written out
// as attributes first. The preset list (a <datalist>, never painted), the charts (below the
// first screen, a third of the page's nodes), the every-card table and the options after the
// first four (below the first screen, more than half of the HTML) are left out.
//
// So a visitor with no link parameters, no saved inputs and an English browser sees the default
// answer (card, count, speed, cost) as soon as the HTML and the stylesheet are in, before the wasm
// has arrived; the shell's script (index.html) keeps the bare frame for everyone else, so no one
// sees an answer to a question they did not ask. The answer is the engine's own: it is rendered by
// the very build it ships in, and an end-to-end test compares it with the live app's.
//
// Without a browser on the machine (or one that will not start) the shell stays the bare frame and
// this says so (exit 0): the build still works, it only paints its first answer later. A page that
// fails while rendering fails the build.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveDir } from './serve-static.mjs';

/** The shell of index.html: from its opening tag to the end of its element, just before its script. */
const SHELL = /<div class="app" id="shell"[^>]*>[\s\S]*?<\/div>(\s*<script>)/;

const BROWSERS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** Runs in the page before its scripts: when the app removes the shell (once its first results
 * are rendered, src/ui/dom.rs reveal_app), the app's element is copied with its live values as
 * attributes. */
function watch() {
  new MutationObserver((records, observer) => {
    if (document.getElementById('shell')) return;
    const app = [...document.querySelectorAll('#app-root > .app')].find((e) => e.querySelector('.recommend-list__option'));
    if (!app) return;
    observer.disconnect();
    const copy = app.cloneNode(true);
    const live = app.querySelectorAll('input, select, textarea');
    copy.querySelectorAll('input, select, textarea').forEach((el, i) => {
      const from = live[i];
      if (el.tagName === 'SELECT') {
        [...el.options].forEach((o, j) => o.toggleAttribute('selected', from.options[j].selected));
      } else if (el.tagName === 'TEXTAREA') {
        el.textContent = from.value;
      } else if (el.type === 'checkbox' || el.type === 'radio') {
        el.toggleAttribute('checked', from.checked);
      } else {
        el.setAttribute('value', from.value);
      }
    });
    copy.querySelectorAll('datalist').forEach((d) => d.replaceChildren());
    // The charts are below the first screen and a third of the page's nodes: the app brings them.
    copy.querySelectorAll('.frontier-chart, .pareto-chart').forEach((c) => c.remove());
    // So are the every-card table (half of the page's HTML: the browser parses it before the first
    // frame) and the options after the first four (two rows on a desktop; a phone or an embed shows
    // the first). The app brings them below what is already on screen, so nothing visible moves.
    copy.querySelectorAll('.sizing-table').forEach((t) => t.remove());
    copy.querySelectorAll('.recommend-list__option').forEach((o, i) => i >= 4 && o.remove());
    copy.id = 'shell';
    copy.setAttribute('inert', '');
    copy.setAttribute('data-answer', '');
    window.__prerendered = copy.outerHTML;
  }).observe(document, { childList: true, subtree: true });
}

export async function prerender(dist) {
  const executablePath = BROWSERS.find((p) => existsSync(p));
  if (!executablePath) {
    console.log('prerender: no Chromium or Chrome here; the shell stays the bare frame');
    return false;
  }
  const indexPath = join(dist, 'index.html');
  const html = readFileSync(indexPath, 'utf8');
  if (!SHELL.test(html)) throw new Error(`prerender: no static shell in ${indexPath}`);
  if (/<div class="app" id="shell"[^>]*data-answer/.test(html)) return true; // already done
  const { chromium } = await import('playwright-core');
  const server = await serveDir(resolve(dist));
  const profile = mkdtempSync(join(tmpdir(), 'gpu-advisor-prerender-'));
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath, headless: true, locale: 'en-US', viewport: { width: 1280, height: 900 }, serviceWorkers: 'block',
      args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
    });
  } catch (e) {
    // A browser that will not start is the machine's problem, not the build's: no answer, a note.
    console.log(`prerender: ${executablePath} did not start (${String(e).split('\n')[0]}); the shell stays the bare frame`);
    server.close();
    rmSync(profile, { recursive: true, force: true });
    return false;
  }
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(watch);
    await page.goto(server.url);
    await page.waitForFunction(() => typeof window.__prerendered === 'string', null, { timeout: 60000 });
    if (errors.length) throw new Error(`prerender: the page failed: ${errors.join('; ')}`);
    const shell = await page.evaluate(() => window.__prerendered);
    writeFileSync(indexPath, html.replace(SHELL, (_, script) => `${shell}${script}`));
    console.log(`prerender: the default answer is in the shell (${(shell.length / 1000).toFixed(1)} KB of HTML)`);
    return true;
  } finally {
    await ctx.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await prerender(process.argv[2] || 'dist');
}
