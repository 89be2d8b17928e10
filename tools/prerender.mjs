// Pre-renders the advisor's default answer into the static shell of dist/index.html, in English,
// Chinese and Russian.
// Run by tools/postbuild.mjs (`make dist`); by hand: node tools/prerender.mjs dist
//
// What it does: serves the built folder on loopback, opens it in headless Chromium (Debian's, or
// Chrome on a CI runner, through playwright-core) with a fresh context, no query and each
// language's locale in turn, and copies the app's first render (the DOM at the moment the app
// removes the shell, so the answer, the form and the frame exactly as the app's first frame has
// them) into the shell: the English one in its place, the Chinese and Russian ones (prices in
// yuan and roubles, as those readers' app shows them) into shell-zh.html and shell-ru.html beside
// it, which the shell's script fetches for those readers and puts in the shell's place. The copy
// is the loader's (assets/answer.js, which says what it leaves out), the same that keeps a
// visitor's own last answer for their next visit.
//
// So a visitor with no link parameters (but its own `lang`) and no saved inputs sees the default
// answer in their language (card, count, speed, cost) as soon as the HTML and the stylesheet (and
// for Chinese and Russian, their shell file) are in, before the wasm has arrived; the shell's
// script (index.html) keeps the bare frame for everyone else, so no one sees an answer to a
// question they did not ask. The answer is the engine's own: it is rendered by the very build it
// ships in, and an end-to-end test compares it with the live app's in each language.
//
// Without a browser on the machine (or one that will not start) the shell stays the bare frame and
// this says so (exit 0): the build still works, it only paints its first answer later. A page that
// fails while rendering fails the build.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serveDir } from './serve-static.mjs';

/** The shell of index.html: from its opening tag to the end of its element, just before its script. */
const SHELL = /<div class="app" id="shell"[^>]*>[\s\S]*?<\/div>(\s*<script>)/;

const BROWSERS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The languages pre-rendered, each with the browser locale that asks for it (the app's
 * src/ui/lang.rs reads navigator.languages); English first, the one in the shell's place. */
const LOCALES = [['en', 'en-US'], ['zh', 'zh-CN'], ['ru', 'ru-RU']];

/** Runs in the page before its scripts: when the app removes the shell (once its first results
 * are rendered, src/ui/dom.rs reveal_app), the app's element is copied as the shell shows it
 * (`window.__answerShell` of assets/answer.js, which the app imports once started and the
 * pre-render puts in the page before its scripts: its live values as attributes, what is below
 * the first screen left out), marked with its language. */
function watch(lang) {
  new MutationObserver((records, observer) => {
    if (document.getElementById('shell') || typeof window.__answerShell !== 'function') return;
    const html = window.__answerShell(lang);
    if (!html) return;
    observer.disconnect();
    window.__prerendered = html;
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
  let browser;
  try {
    browser = await chromium.launch({
      executablePath, headless: true,
      args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
    });
  } catch (e) {
    // A browser that will not start is the machine's problem, not the build's: no answer, a note.
    console.log(`prerender: ${executablePath} did not start (${String(e).split('\n')[0]}); the shell stays the bare frame`);
    return false;
  }
  const server = await serveDir(resolve(dist));
  try {
    const shells = [];
    const answer = readdirSync(dist).find((f) => /^answer-[0-9a-f]+\.js$/.test(f));
    if (!answer) throw new Error(`prerender: no answer-<hash>.js in ${dist} (tools/postbuild.mjs writes it)`);
    const copier = join(dist, answer);
    for (const [lang, locale] of LOCALES) shells.push([lang, await render(browser, server.url, lang, locale, copier)]);
    // The other languages' answers go in files of their own beside the page (shell-zh.html,
    // shell-ru.html), which the shell's script fetches for those readers only: English readers
    // download none of them.
    const [[, en], ...others] = shells;
    for (const [lang, shell] of others) writeFileSync(join(dist, `shell-${lang}.html`), shell);
    // <html data-answers>: the page's <head> script fetches a Chinese or Russian reader's file.
    const marked = html.replace(/<html\b([^>]*)>/, (tag, attrs) => `<html${attrs} data-answers>`);
    writeFileSync(indexPath, marked.replace(SHELL, (_, script) => `${en}${script}`));
    const kb = shells.map(([lang, shell]) => `${lang} ${(shell.length / 1000).toFixed(1)}`).join(', ');
    console.log(`prerender: the default answer is in the shell (KB of HTML: ${kb})`);
    return true;
  } finally {
    await browser.close();
    server.close();
  }
}

/** The app's first render at `url` in a fresh context (empty storage) of `browser` with
 * `locale`, as the shell's HTML marked `lang`, copied by the script at `copier`. */
async function render(browser, url, lang, locale, copier) {
  const ctx = await browser.newContext({ locale, viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  try {
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript({ path: copier });
    await page.addInitScript(watch, lang);
    await page.goto(url);
    await page.waitForFunction(() => typeof window.__prerendered === 'string', null, { timeout: 60000 });
    if (errors.length) throw new Error(`prerender: the page failed (${lang}): ${errors.join('; ')}`);
    const shell = await page.evaluate(() => window.__prerendered);
    const htmlLang = await page.evaluate(() => document.documentElement.lang);
    if (!htmlLang.startsWith(lang)) throw new Error(`prerender: the ${locale} page rendered in ${htmlLang}`);
    return shell;
  } finally {
    await ctx.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await prerender(process.argv[2] || 'dist');
}
