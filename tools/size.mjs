// Prints the raw, gzip and brotli size of every file in a folder, the totals, and the first load:
// what a visitor downloads before the first result (issue 13), that is everything but the files
// fetched later or never by the page itself (LATER).
// Usage: node tools/size.mjs dist [--budget-kb 250]
// With --budget-kb it exits 1 when the first load, brotli, is over the budget, so `make test`
// fails on a build that has grown past it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const args = process.argv.slice(2);
const budgetAt = args.indexOf('--budget-kb');
const budgetKb = budgetAt >= 0 ? Number(args.splice(budgetAt, 2)[1]) : null;
const root = args[0] || 'dist';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p); else files.push(p);
  }
})(root);

/** Fetched after the first result (the Chinese and Russian table, only for those languages; the
 * cards' source links, when a detail panel opens; the service worker, registered after start-up)
 * or never by the page itself (the embed example; the web app manifest and its PNG icons, which
 * the browser reads when it offers to install the app; `make bench-web` sees no request for them
 * during a first load). */
const LATER = new Set(['i18n.bin', 'sources.bin', 'sw.js', 'embed-parent.html', 'manifest.webmanifest', 'icon-192.png', 'icon-512.png']);
const pad = (s, n) => String(s).padStart(n);
let raw = 0, gz = 0, br = 0, first = 0;
console.log(`${'file'.padEnd(48)} ${pad('raw', 10)} ${pad('gzip', 10)} ${pad('brotli', 10)}`);
for (const f of files) {
  const data = readFileSync(f);
  const g = gzipSync(data, { level: 9 }).length;
  const b = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  raw += data.length; gz += g; br += b;
  const later = LATER.has(relative(root, f));
  if (!later) first += b;
  console.log(`${relative(root, f).padEnd(48)} ${pad(data.length, 10)} ${pad(g, 10)} ${pad(b, 10)}${later ? '  (later)' : ''}`);
}
console.log(`${'TOTAL'.padEnd(48)} ${pad(raw, 10)} ${pad(gz, 10)} ${pad(br, 10)}`);
console.log(`total brotli: ${(br / 1000).toFixed(1)} KB`);
console.log(`first load brotli: ${(first / 1000).toFixed(1)} KB`);
if (budgetKb !== null) {
  if (!(first / 1000 <= budgetKb)) {
    console.error(`size: the first load, ${(first / 1000).toFixed(1)} KB brotli, is over the budget of ${budgetKb} KB`);
    process.exit(1);
  }
  console.log(`first load within the budget of ${budgetKb} KB brotli (${(budgetKb - first / 1000).toFixed(1)} KB left)`);
}
