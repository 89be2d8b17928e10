// Prints the raw, gzip and brotli size of every file in a folder, the totals, and two loads:
// - the first result: what a visitor downloads before the first result is on screen.
//   With the default answer pre-rendered into index.html (tools/prerender.mjs) that is the page,
//   its stylesheet and its icon: the app loads after the answer has painted. Without it (a build
//   on a machine with no browser), it is the app too.
// - the app: everything but the files fetched later or never by the page itself (LATER), i.e.
//   what it takes until the inputs respond.
// Usage: node tools/size.mjs dist [--budget-kb 150] [--app-budget-kb 275]
// Each budget makes it exit 1 when its load, brotli, is over it, so `make test` fails on a build
// that has grown past it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const args = process.argv.slice(2);
const budgetAt = args.indexOf('--budget-kb');
const budgetKb = budgetAt >= 0 ? Number(args.splice(budgetAt, 2)[1]) : null;
const appBudgetAt = args.indexOf('--app-budget-kb');
const appBudgetKb = appBudgetAt >= 0 ? Number(args.splice(appBudgetAt, 2)[1]) : null;
const root = args[0] || 'dist';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p); else files.push(p);
  }
})(root);

/** Fetched after the first result (the Chinese and Russian table, only for those languages; the
 * cards' source links, when a detail panel opens; the accuracy page's tables, when that page
 * opens; the service worker, registered after start-up; the answer copy below)
 * or never by the page itself (the embed example; the web app manifest and its PNG icons, which
 * the browser reads when it offers to install the app; `make bench-web` sees no request for them
 * during a first load). */
const LATER = new Set(['i18n.bin', 'sources.bin', 'accuracy.bin', 'sw.js', 'embed-parent.html', 'manifest.webmanifest', 'icon-192.png', 'icon-512.png']);
/** The copy that keeps a visitor's last answer for their next visit (assets/answer.js), imported
 * by the loader once the app has started: fetched after the first result, like the service worker. */
const LATER_NAMED = /^answer-[0-9a-f]+\.js$/;
/** The default answer in Chinese and in Russian (tools/prerender.mjs): fetched by those readers
 * only, in place of nothing for everyone else; their first result adds one of them. */
const LANG_SHELL = /^shell-\w+\.html$/;
/** The app itself: Trunk's loader, the wasm-bindgen glue and the wasm. */
const APP = /^(loader-.*\.js|gpu-advisor-web-.*\.(js|wasm))$/;
const prerendered = /<div class="app" id="shell"[^>]*data-answer/.test(readFileSync(join(root, 'index.html'), 'utf8'));
const pad = (s, n) => String(s).padStart(n);
let raw = 0, gz = 0, br = 0, first = 0, app = 0, langShell = 0;
console.log(`${'file'.padEnd(48)} ${pad('raw', 10)} ${pad('gzip', 10)} ${pad('brotli', 10)}`);
for (const f of files) {
  const data = readFileSync(f);
  const g = gzipSync(data, { level: 9 }).length;
  const b = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  raw += data.length; gz += g; br += b;
  const isLangShell = LANG_SHELL.test(relative(root, f));
  const later = LATER.has(relative(root, f)) || LATER_NAMED.test(relative(root, f));
  const isApp = APP.test(relative(root, f));
  if (isLangShell) langShell = Math.max(langShell, b);
  else if (!later) app += b;
  if (!later && !isLangShell && (!isApp || !prerendered)) first += b;
  const note = isLangShell ? '  (Chinese or Russian readers, before the first result)' : later ? '  (later)' : isApp && prerendered ? '  (app, after the first result)' : '';
  console.log(`${relative(root, f).padEnd(48)} ${pad(data.length, 10)} ${pad(g, 10)} ${pad(b, 10)}${note}`);
}
console.log(`${'TOTAL'.padEnd(48)} ${pad(raw, 10)} ${pad(gz, 10)} ${pad(br, 10)}`);
console.log(`total brotli: ${(br / 1000).toFixed(1)} KB`);
console.log(`first result brotli: ${(first / 1000).toFixed(1)} KB${prerendered ? ' (the default answer is pre-rendered; the app loads after it)' : ' (no pre-rendered answer: the app is part of it)'}`);
if (langShell) console.log(`first result for a Chinese or Russian reader, brotli: ${((first + langShell) / 1000).toFixed(1)} KB (its own pre-rendered answer added)`);
console.log(`app, until the inputs respond, brotli: ${(app / 1000).toFixed(1)} KB`);
let over = false;
for (const [label, value, budget] of [['the first result', first, budgetKb], ['the app', app, appBudgetKb]]) {
  if (budget === null) continue;
  if (!(value / 1000 <= budget)) {
    console.error(`size: ${label}, ${(value / 1000).toFixed(1)} KB brotli, is over the budget of ${budget} KB`);
    over = true;
  } else {
    console.log(`${label} within the budget of ${budget} KB brotli (${(budget - value / 1000).toFixed(1)} KB left)`);
  }
}
if (over) process.exit(1);
