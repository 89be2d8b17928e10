// Prints the raw, gzip and brotli size of every file in a folder, and the totals.
// Usage: node tools/size.mjs dist [--budget-kb 250]
// With --budget-kb it exits 1 when the brotli total is over the budget (issue 6: at most 250 KB),
// so `make test` fails on a build that has grown past it.
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

const pad = (s, n) => String(s).padStart(n);
let raw = 0, gz = 0, br = 0;
console.log(`${'file'.padEnd(48)} ${pad('raw', 10)} ${pad('gzip', 10)} ${pad('brotli', 10)}`);
for (const f of files) {
  const data = readFileSync(f);
  const g = gzipSync(data, { level: 9 }).length;
  const b = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  raw += data.length; gz += g; br += b;
  console.log(`${relative(root, f).padEnd(48)} ${pad(data.length, 10)} ${pad(g, 10)} ${pad(b, 10)}`);
}
console.log(`${'TOTAL'.padEnd(48)} ${pad(raw, 10)} ${pad(gz, 10)} ${pad(br, 10)}`);
console.log(`total brotli: ${(br / 1000).toFixed(1)} KB`);
if (budgetKb !== null) {
  if (!(br / 1000 <= budgetKb)) {
    console.error(`size: ${(br / 1000).toFixed(1)} KB brotli is over the budget of ${budgetKb} KB`);
    process.exit(1);
  }
  console.log(`within the budget of ${budgetKb} KB brotli (${(budgetKb - br / 1000).toFixed(1)} KB left)`);
}
